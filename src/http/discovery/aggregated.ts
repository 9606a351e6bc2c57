import { createHash } from 'node:crypto';
import type { KindDefinition } from '../../registry/kind.ts';
import { servedGroups } from './legacy.ts';
import { customResourceDiscovery } from './custom-resources.ts';
import { apiResourcesFor, customResourcesOf } from './resources.ts';
import type {
  AggregatedDiscoveryVersion,
  APIGroupDiscovery,
  APIGroupDiscoveryList,
  APIResource,
  APIResourceDiscovery,
  APIVersionDiscovery,
} from './types.ts';
import { sortVersionsByPriority } from './version-priority.ts';

/**
 * Aggregated discovery (`apidiscovery.k8s.io`): everything `/api` or `/apis` and all their group
 * versions would list, in one document. v2 and v2beta1 have the same shape.
 *
 * @param root `api` for the core group, `apis` for named groups.
 */
export function aggregatedDiscovery(
  kinds: readonly KindDefinition[],
  root: 'api' | 'apis',
  version: AggregatedDiscoveryVersion = 'v2',
): APIGroupDiscoveryList {
  const items: APIGroupDiscovery[] = [];
  if (root === 'api') {
    const versions = sortVersionsByPriority(kinds.filter((k) => k.group === '').map((k) => k.version));
    if (versions.length > 0) {
      items.push({ metadata: { creationTimestamp: null }, versions: versions.map((v) => versionDiscovery(kinds, '', v)) });
    }
  } else {
    for (const [group, versions] of servedGroups(kinds)) {
      items.push({
        metadata: { name: group, creationTimestamp: null },
        versions: versions.map((v) => versionDiscovery(kinds, group, v)),
      });
    }
  }
  return { kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${version}`, metadata: {}, items };
}

function versionDiscovery(kinds: readonly KindDefinition[], group: string, version: string): APIVersionDiscovery {
  const builtins = kinds.filter((k) => !k.customResource);
  const resources = [
    ...toResourceDiscovery(apiResourcesFor(builtins, group, version, kinds)),
    ...customResourcesOf(kinds, group, version).map(customResourceDiscovery),
  ];
  return { version, resources, freshness: 'Current' };
}

/** Folds `name/sub` entries into their parent's `subresources`, as the real server does. */
export function toResourceDiscovery(list: readonly APIResource[]): APIResourceDiscovery[] {
  const out: APIResourceDiscovery[] = [];
  const parents = new Map<string, APIResourceDiscovery>();
  for (const r of list) {
    if (r.name.includes('/')) continue;
    const entry: APIResourceDiscovery = {
      resource: r.name,
      responseKind: { group: r.group ?? '', version: r.version ?? '', kind: r.kind },
      scope: r.namespaced ? 'Namespaced' : 'Cluster',
      singularResource: r.singularName,
      verbs: r.verbs,
      ...(r.shortNames ? { shortNames: r.shortNames } : {}),
      ...(r.categories ? { categories: r.categories } : {}),
    };
    out.push(entry);
    parents.set(r.name, entry);
  }
  for (const r of list) {
    const slash = r.name.indexOf('/');
    if (slash < 0) continue;
    const parent = parents.get(r.name.slice(0, slash));
    if (!parent) continue;
    (parent.subresources ??= []).push({
      subresource: r.name.slice(slash + 1),
      responseKind: { group: r.group ?? '', version: r.version ?? '', kind: r.kind },
      verbs: r.verbs,
    });
  }
  return out;
}

/**
 * The ETag of an aggregated discovery document (quoted, as sent in the header). The real server
 * also sends `Vary: Accept` and `Cache-Control: public`, and answers 304 when `If-None-Match`
 * equals it.
 */
export function discoveryETag(document: unknown): string {
  return `"${createHash('sha512').update(JSON.stringify(document)).digest('hex').toUpperCase()}"`;
}
