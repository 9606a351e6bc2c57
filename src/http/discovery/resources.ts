import type { KindDefinition } from '../../registry/kind.ts';
import { storageVersionHash } from './storage-version-hash.ts';
import type { APIResource } from './types.ts';
import { sortVersionsByPriority } from './version-priority.ts';

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
    // Subresources as the kind declares them; one with a kind of another group or version names it.
    for (const sub of k.subresources) {
      const own = sub.kind;
      entries.push({
        name: `${k.plural}/${sub.name}`,
        singularName: '',
        namespaced: k.namespaced,
        ...(own && (own.group !== k.group || own.version !== k.version) ? { group: own.group, version: own.version } : {}),
        kind: own?.kind ?? k.kind,
        verbs: [...sub.verbs].sort(),
      });
    }
  }
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
