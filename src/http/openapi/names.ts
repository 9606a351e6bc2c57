/** Naming shared by the OpenAPI v2 and v3 builders. */
import type { KindDefinition } from '../../registry/kind.ts';

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/**
 * `k8s.io.api.core.v1.ConfigMap` → `io.k8s.api.core.v1.ConfigMap` (the names kube-apiserver publishes).
 * The module segment is the Go module's name: protobuf packages spell `kube-aggregator` and
 * `apiextensions-apiserver` with an underscore, the published names with their hyphen.
 */
export function definitionName(messageName: string): string {
  if (!messageName.startsWith('k8s.io.')) return messageName;
  const rest = messageName.slice('k8s.io.'.length);
  const dot = rest.indexOf('.');
  return `io.k8s.${rest.slice(0, dot).replaceAll('_', '-')}${rest.slice(dot)}`;
}

/** `coordination.k8s.io` → `Coordination`, `rbac.authorization.k8s.io` → `RbacAuthorization`, '' → `Core`. */
export function groupCamel(group: string): string {
  if (!group) return 'Core';
  return group
    .replace(/\.k8s\.io$/, '')
    .split(/[.-]/)
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join('');
}

/** `CoreV1`, `CoordinationV1`, `AppsV1beta2`: the prefix of every operation id of a group-version. */
export function gvCamel(group: string, version: string): string {
  return groupCamel(group) + version.charAt(0).toUpperCase() + version.slice(1);
}

/** `core_v1`, `rbacAuthorization_v1`: the tag of a group-version's operations. */
export function gvTag(group: string, version: string): string {
  const g = groupCamel(group);
  return `${g.charAt(0).toLowerCase()}${g.slice(1)}_${version}`;
}

/** `/api/v1` or `/apis/<group>/<version>`. */
export function gvPrefix(group: string, version: string): string {
  return group ? `/apis/${group}/${version}` : `/api/${version}`;
}

/** `api/v1` or `apis/<group>/<version>`: the key of a group-version in `/openapi/v3`. */
export function gvPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

export function gvkOf(kind: Pick<KindDefinition, 'group' | 'version' | 'kind'>): GroupVersionKind {
  return { group: kind.group, version: kind.version, kind: kind.kind };
}

/** Stable order: group, then version, then kind. */
export function sortKinds(kinds: readonly KindDefinition[]): KindDefinition[] {
  return [...kinds].sort((a, b) =>
    a.group === b.group ? (a.version === b.version ? cmp(a.kind, b.kind) : cmp(a.version, b.version)) : cmp(a.group, b.group));
}

export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A copy of an object with its keys sorted (kube-apiserver publishes its documents with sorted keys). */
export function sortedRecord<T>(record: Readonly<Record<string, T>>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const key of Object.keys(record).sort(cmp)) out[key] = record[key];
  return out;
}
