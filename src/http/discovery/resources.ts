import type { KindDefinition } from '../../registry/kind.ts';
import { customResourceEntries } from './custom-resources.ts';
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
    if (k.customResource) continue;
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
 * Custom resources follow, by name, each with its status and scale (custom-resources.ts).
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
    if (k.group !== group || k.version !== version || k.customResource) continue;
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
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const k of customResourcesOf(kinds, group, version)) entries.push(...customResourceEntries(k));
  return entries;
}

/** The custom resource kinds of one group version, by resource name. */
export function customResourcesOf(kinds: readonly KindDefinition[], group: string, version: string): KindDefinition[] {
  return kinds
    .filter((k) => k.customResource && k.group === group && k.version === version)
    .sort((a, b) => (a.plural < b.plural ? -1 : a.plural > b.plural ? 1 : 0));
}
