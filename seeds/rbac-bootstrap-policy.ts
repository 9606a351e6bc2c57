/**
 * Creates the default RBAC policy at start and keeps it current (upstream's RBAC PostStartHook with
 * pkg/registry/rbac/reconciliation): a missing object is created; one annotated
 * `rbac.authorization.kubernetes.io/autoupdate: "true"` gets back any rule (or subject, label,
 * annotation, aggregation selector) it lost; one an administrator set to "false" is left alone.
 * Several replicas may run this at once: AlreadyExists and Conflict mean another one won.
 */
import type { Logger } from 'pino';
import { ApiError } from '../src/api/errors.ts';
import { isCorruptObjectError } from '../src/registry/storage-errors.ts';
import { systemContext } from '../src/api/request-context.ts';
import type { KubeObject, StoredKubeObject } from '../src/api/types.ts';
import { covers } from '../src/auth/rbac/covers.ts';
import type { PolicyRule, Subject } from '../src/kinds/rbac-rules.ts';
import { NO_ADMISSION } from '../src/admission/chain.ts';
import type { KindDefinition } from '../src/registry/kind.ts';
import { ResourceStore } from '../src/registry/resource-store.ts';
import type { Storage } from '../src/storage/storage.ts';
import {
  BOOTSTRAP_CLUSTER_ROLE_BINDINGS,
  BOOTSTRAP_CLUSTER_ROLES,
  BOOTSTRAP_ROLE_BINDINGS,
  BOOTSTRAP_ROLES,
  type BootstrapBinding,
} from './rbac-bootstrap-policy-data.ts';
import { mapConcurrently } from './concurrently.ts';

const GROUP = 'rbac.authorization.k8s.io';
const API_VERSION = `${GROUP}/v1`;
export const AUTOUPDATE_ANNOTATION = 'rbac.authorization.kubernetes.io/autoupdate';
const BOOTSTRAP_LABELS = { 'kubernetes.io/bootstrapping': 'rbac-defaults' };

type Selector = { matchLabels?: Record<string, string> };
type RbacObject = KubeObject & { rules?: PolicyRule[]; subjects?: Subject[]; aggregationRule?: { clusterRoleSelectors?: Selector[] } };

function meta(name: string, namespace: string | undefined, labels: Record<string, string> = {}) {
  return {
    name,
    ...(namespace ? { namespace } : {}),
    labels: { ...BOOTSTRAP_LABELS, ...labels },
    annotations: { [AUTOUPDATE_ANNOTATION]: 'true' },
  };
}

function bindingObject(b: BootstrapBinding): RbacObject {
  return {
    apiVersion: API_VERSION,
    kind: b.namespace ? 'RoleBinding' : 'ClusterRoleBinding',
    metadata: meta(b.name, b.namespace),
    roleRef: { apiGroup: GROUP, kind: b.roleKind, name: b.role },
    // Upstream omits subjects rather than storing an empty list (system:node).
    ...(b.subjects.length > 0 ? { subjects: b.subjects } : {}),
  };
}

/** The bootstrap objects, per store, as upstream's testdata shows them. */
export function bootstrapPolicyObjects(): { resource: string; objects: RbacObject[] }[] {
  return [
    {
      resource: 'clusterroles',
      objects: BOOTSTRAP_CLUSTER_ROLES.map((r) => ({
        apiVersion: API_VERSION,
        kind: 'ClusterRole',
        metadata: meta(r.name, undefined, r.labels),
        ...(r.aggregateFrom ? { aggregationRule: { clusterRoleSelectors: r.aggregateFrom.map((l) => ({ matchLabels: { [l]: 'true' } })) } } : {}),
        rules: r.rules,
      })),
    },
    { resource: 'clusterrolebindings', objects: BOOTSTRAP_CLUSTER_ROLE_BINDINGS.map(bindingObject) },
    {
      resource: 'roles',
      objects: BOOTSTRAP_ROLES.map((r) => ({ apiVersion: API_VERSION, kind: 'Role', metadata: meta(r.name, r.namespace), rules: r.rules })),
    },
    { resource: 'rolebindings', objects: BOOTSTRAP_ROLE_BINDINGS.map(bindingObject) },
  ];
}

const sameSubject = (a: Subject, b: Subject) => a.kind === b.kind && a.name === b.name && (a.namespace ?? '') === (b.namespace ?? '');

/**
 * What the stored object should become, or undefined when it already holds everything expected:
 * missing labels and annotations added, uncovered rules appended, selectors and subjects unioned.
 */
export function reconcile(existing: StoredKubeObject, expected: RbacObject): KubeObject | undefined {
  const current = existing as StoredKubeObject & RbacObject;
  const next = structuredClone(current) as StoredKubeObject & RbacObject;
  let changed = false;
  for (const key of ['labels', 'annotations'] as const) {
    for (const [k, v] of Object.entries(expected.metadata?.[key] ?? {})) {
      if (next.metadata[key]?.[k] !== undefined) continue;
      next.metadata[key] = { ...(next.metadata[key] ?? {}), [k]: v };
      changed = true;
    }
  }
  if (expected.rules) {
    const { missing } = covers(current.rules ?? [], expected.rules);
    if (missing.length > 0) {
      // Upstream appends the expected rules that are not covered, whole.
      const uncovered = expected.rules.filter((r) => !covers(current.rules ?? [], [r]).covered);
      next.rules = [...(current.rules ?? []), ...uncovered];
      changed = true;
    }
  }
  const selectors = expected.aggregationRule?.clusterRoleSelectors;
  if (selectors) {
    const have = next.aggregationRule?.clusterRoleSelectors ?? [];
    const add = selectors.filter((s) => !have.some((h) => JSON.stringify(h) === JSON.stringify(s)));
    if (add.length > 0 || !next.aggregationRule) {
      next.aggregationRule = { clusterRoleSelectors: [...have, ...add] };
      changed = true;
    }
  }
  if (expected.subjects) {
    const add = expected.subjects.filter((s) => !(current.subjects ?? []).some((h) => sameSubject(h, s)));
    if (add.length > 0) {
      next.subjects = [...(current.subjects ?? []), ...add];
      changed = true;
    }
  }
  return changed ? next : undefined;
}

const isRace = (err: unknown) => err instanceof ApiError && (err.reason === 'AlreadyExists' || err.reason === 'Conflict');

async function ensure(store: ResourceStore, expected: RbacObject): Promise<'created' | 'updated' | undefined> {
  const ctx = systemContext();
  const namespace = expected.metadata?.namespace ?? '';
  const name = expected.metadata!.name!;
  let existing: StoredKubeObject | undefined;
  try {
    existing = (await store.get(ctx, namespace, name)).object;
  } catch (err) {
    if (!(err instanceof ApiError && err.reason === 'NotFound')) throw err;
  }
  if (!existing) {
    try {
      await store.create(ctx, namespace, expected);
      return 'created';
    } catch (err) {
      if (isRace(err)) return undefined;
      throw err;
    }
  }
  if (existing.metadata.annotations?.[AUTOUPDATE_ANNOTATION] !== 'true') return undefined;
  if (!reconcile(existing, expected)) return undefined;
  try {
    await store.update(ctx, namespace, name, {
      build: (current) => (current ? (reconcile(current, expected) ?? current) : expected),
    });
    return 'updated';
  } catch (err) {
    if (isRace(err) || (err instanceof ApiError && err.reason === 'NotFound')) return undefined;
    throw err;
  }
}

/**
 * Creates and reconciles the bootstrap policy; returns what it changed, for the log. Like the
 * bootstrap namespaces, the server's own policy does not pass admission (a plugin that refuses writes
 * must not keep the server from starting); the escalation check still applies.
 */
export async function seedRbacBootstrapPolicy(storage: Storage, kinds: readonly KindDefinition[], logger?: Logger): Promise<string[]> {
  const changed: string[] = [];
  for (const { resource, objects } of bootstrapPolicyObjects()) {
    // --runtime-config may turn the RBAC API off; then there is nothing to seed.
    const kind = kinds.find((k) => k.group === GROUP && k.version === 'v1' && k.plural === resource);
    if (!kind) continue;
    const store = new ResourceStore(kind, storage, NO_ADMISSION);
    // The objects of one resource are independent: ensured a few at a time, so that the storage's
    // group commit writes them together instead of one round trip after another.
    const outcomes = await mapConcurrently(objects, async (obj): Promise<Awaited<ReturnType<typeof ensure>>> => {
      try {
        return await ensure(store, obj);
      } catch (err) {
        // A stored role that no longer decodes must not keep the server from starting: it is left as
        // it is (the unsafe delete can remove it, and the next start seeds it again), as upstream's
        // bootstrap goes on past the roles it cannot reconcile.
        if (!isCorruptObjectError(err)) throw err;
        logger?.warn({ resource, name: obj.metadata?.name, err: (err as Error).message }, 'RBAC bootstrap policy: stored object cannot be read; left as it is');
        return undefined;
      }
    });
    objects.forEach((obj, i) => {
      const outcome = outcomes[i];
      if (outcome) changed.push(`${outcome} ${resource}/${obj.metadata?.namespace ? `${obj.metadata.namespace}/` : ''}${obj.metadata?.name}`);
    });
  }
  if (changed.length > 0) logger?.info({ changed }, 'RBAC bootstrap policy');
  return changed;
}
