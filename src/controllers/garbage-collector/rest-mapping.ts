/**
 * The collector's REST mapper: an apiVersion and kind (as owner references and graph nodes name
 * them) to the store that serves them and whether they are namespaced. As upstream's mapper, the
 * version must be one that is served.
 */
import type { ApiSurface } from '../../registry/api-surface.ts';
import type { KindDefinition } from '../../registry/kind.ts';
import type { ResourceStore } from '../../registry/resource-store.ts';

export interface Mapping {
  readonly kind: KindDefinition;
  readonly store: ResourceStore;
  readonly namespaced: boolean;
}

/** No served kind answers to the apiVersion and kind (upstream's restMappingError; retried, it may appear). */
export class RestMappingError extends Error {
  constructor(kind: string, apiVersion: string) {
    super(`unable to get REST mapping for ${kind}/${apiVersion}.`);
  }
}

/** Go's schema.ParseGroupVersion, lenient: `v1`, `group/version`. */
export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

export function restMapping(surface: ApiSurface, apiVersion: string, kind: string): Mapping {
  const { group, version } = parseApiVersion(apiVersion);
  const def = surface.kinds.find((k) => k.group === group && k.version === version && k.kind === kind);
  const served = def ? surface.lookup(group, version, def.plural) : undefined;
  if (!def || !served) throw new RestMappingError(kind, apiVersion);
  return { kind: def, store: served.store, namespaced: def.namespaced };
}
