import type { KindDefinition } from '../../registry/kind.ts';
import { storageVersionHash } from './storage-version-hash.ts';
import type { APIResource } from './types.ts';
import { sortVersionsByPriority } from './version-priority.ts';

/** What discovery says about a subresource: the kind it returns and the verbs it serves. */
export interface SubresourceInfo {
  /** Kind served; the parent's kind when absent. */
  readonly kind?: string;
  /** Group and version of that kind when they differ from the parent's (scale → autoscaling/v1). */
  readonly group?: string;
  readonly version?: string;
  readonly verbs: readonly string[];
}

const GET_PATCH_UPDATE = ['get', 'patch', 'update'] as const;

/** Known subresources; any other name is listed with the parent's kind and get/patch/update. */
export const SUBRESOURCES: Readonly<Record<string, SubresourceInfo>> = {
  status: { verbs: GET_PATCH_UPDATE },
  finalize: { verbs: ['update'] },
  approval: { verbs: GET_PATCH_UPDATE },
  ephemeralcontainers: { verbs: GET_PATCH_UPDATE },
  resize: { verbs: GET_PATCH_UPDATE },
  scale: { kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: GET_PATCH_UPDATE },
  eviction: { kind: 'Eviction', group: 'policy', version: 'v1', verbs: ['create'] },
  token: { kind: 'TokenRequest', group: 'authentication.k8s.io', version: 'v1', verbs: ['create'] },
  binding: { kind: 'Binding', verbs: ['create'] },
  log: { verbs: ['get'] },
  exec: { kind: 'PodExecOptions', verbs: ['create', 'get'] },
  attach: { kind: 'PodAttachOptions', verbs: ['create', 'get'] },
  portforward: { kind: 'PodPortForwardOptions', verbs: ['create', 'get'] },
  proxy: { kind: 'PodProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] },
};

/** A kind's subresource names: `status` when it has one, then its extra subresources, sorted. */
export function subresourcesOf(kind: KindDefinition): string[] {
  const names = new Set<string>(kind.subresources);
  if (kind.hasStatus) names.add('status');
  return [...names].sort();
}

export function subresourceInfo(name: string): SubresourceInfo {
  return SUBRESOURCES[name] ?? { verbs: GET_PATCH_UPDATE };
}

/**
 * The version a kind is stored in, for its storage version hash: the highest priority version
 * among the served versions of the same group and kind.
 */
export function storageVersions(kinds: readonly KindDefinition[]): Map<string, string> {
  const versions = new Map<string, string[]>();
  for (const k of kinds) {
    const key = `${k.group}/${k.kind}`;
    const list = versions.get(key) ?? [];
    list.push(k.version);
    versions.set(key, list);
  }
  const out = new Map<string, string>();
  for (const [key, list] of versions) out.set(key, sortVersionsByPriority(list)[0]!);
  return out;
}

/**
 * The resources of one group version, in the order the real server lists them: by path, so a
 * resource is followed by its subresources (`namespaces`, `namespaces/finalize`, `namespaces/status`).
 */
export function apiResourcesFor(
  kinds: readonly KindDefinition[],
  group: string,
  version: string,
  allKinds: readonly KindDefinition[] = kinds,
): APIResource[] {
  const storage = storageVersions(allKinds);
  const entries: APIResource[] = [];
  for (const k of kinds) {
    if (k.group !== group || k.version !== version) continue;
    const main: APIResource = {
      name: k.plural,
      singularName: k.singular,
      namespaced: k.namespaced,
      kind: k.kind,
      verbs: [...k.verbs].sort(),
    };
    if (k.shortNames.length > 0) main.shortNames = [...k.shortNames];
    if (k.categories.length > 0) main.categories = [...k.categories];
    main.storageVersionHash = storageVersionHash(k.group, storage.get(`${k.group}/${k.kind}`) ?? k.version, k.kind);
    entries.push(main);
    for (const sub of subresourcesOf(k)) {
      const info = subresourceInfo(sub);
      entries.push({
        name: `${k.plural}/${sub}`,
        singularName: '',
        namespaced: k.namespaced,
        ...(info.group !== undefined ? { group: info.group } : {}),
        ...(info.version !== undefined ? { version: info.version } : {}),
        kind: info.kind ?? k.kind,
        verbs: [...info.verbs].sort(),
      });
    }
  }
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
