/** Pieces shared by the v2 and v3 documents: options, GVK maps and discovery paths. */
import type { KindDefinition } from '../../registry/kind.ts';
import { cmp, gvCamel, gvTag, groupCamel, type GroupVersionKind } from './names.ts';
import {
  API_GROUP,
  API_GROUP_LIST,
  API_RESOURCE_LIST,
  API_VERSIONS,
  DELETE_OPTIONS,
  listMessageOf,
  META,
  STATUS,
  WATCH_EVENT,
} from './schemas.ts';

export interface OpenApiOptions {
  /** `info.title`; default `Kubernetes`. */
  readonly title?: string;
  /** `info.version`, the server's version (`v1.34.0`); default `unversioned`. */
  readonly version?: string;
}

export function info(options: OpenApiOptions = {}): { title: string; version: string } {
  return { title: options.title ?? 'Kubernetes', version: options.version ?? 'unversioned' };
}

export const MEDIA_TYPES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];
export const WATCH_MEDIA_TYPES = ['application/json;stream=watch', 'application/vnd.kubernetes.protobuf;stream=watch'];

export const BEARER_TOKEN = {
  type: 'apiKey',
  name: 'authorization',
  in: 'header',
  description: 'Bearer Token authentication',
};

/**
 * `x-kubernetes-group-version-kind` of the definitions: each kind's message and list message, and the
 * meta types every group-version shares (Status, DeleteOptions, WatchEvent, discovery documents).
 */
export function gvkMap(kinds: readonly KindDefinition[]): Map<string, GroupVersionKind[]> {
  const out = new Map<string, GroupVersionKind[]>();
  const add = (message: string, gvk: GroupVersionKind): void => {
    const list = out.get(message) ?? [];
    if (!list.some((g) => g.group === gvk.group && g.version === gvk.version && g.kind === gvk.kind)) list.push(gvk);
    out.set(message, list);
  };
  for (const k of kinds) {
    add(k.schemaMessage, { group: k.group, version: k.version, kind: k.kind });
    add(listMessageOf(k.schemaMessage) ?? `${k.schemaMessage}List`, { group: k.group, version: k.version, kind: `${k.kind}List` });
  }
  const gvs = new Map<string, { group: string; version: string }>([['/v1', { group: '', version: 'v1' }]]);
  for (const k of kinds) gvs.set(`${k.group}/${k.version}`, { group: k.group, version: k.version });
  const sortedGvs = [...gvs.values()].sort((a, b) => cmp(`${a.group}/${a.version}`, `${b.group}/${b.version}`));
  for (const gv of sortedGvs) {
    add(DELETE_OPTIONS, { ...gv, kind: 'DeleteOptions' });
    add(WATCH_EVENT, { ...gv, kind: 'WatchEvent' });
  }
  add(STATUS, { group: '', version: 'v1', kind: 'Status' });
  for (const m of [API_GROUP, API_GROUP_LIST, API_RESOURCE_LIST, API_VERSIONS]) {
    add(m, { group: '', version: 'v1', kind: m.slice(META.length + 1) });
  }
  return out;
}

/** A GET-only discovery endpoint (`/api/`, `/apis/`, `/apis/<group>/`, `/apis/<group>/<version>/`). */
export interface DiscoveryPath {
  readonly path: string;
  readonly operationId: string;
  readonly description: string;
  readonly tag: string;
  readonly response: string;
}

export function coreVersionsPath(): DiscoveryPath {
  return { path: '/api/', operationId: 'getCoreAPIVersions', description: 'get available API versions', tag: 'core',
    response: API_VERSIONS };
}

export function groupListPath(): DiscoveryPath {
  return { path: '/apis/', operationId: 'getAPIVersions', description: 'get available API versions', tag: 'apis',
    response: API_GROUP_LIST };
}

export function groupPath(group: string): DiscoveryPath {
  const g = groupCamel(group);
  return { path: `/apis/${group}/`, operationId: `get${g}APIGroup`, description: 'get information of a group',
    tag: g.charAt(0).toLowerCase() + g.slice(1), response: API_GROUP };
}

export function resourcesPath(group: string, version: string): DiscoveryPath {
  return { path: group ? `/apis/${group}/${version}/` : `/api/${version}/`,
    operationId: `get${gvCamel(group, version)}APIResources`, description: 'get available resources',
    tag: gvTag(group, version), response: API_RESOURCE_LIST };
}
