/**
 * Discovery entries of custom resource kinds, as apiextensions-apiserver's discovery controller
 * writes them (pkg/apiserver/customresource_discovery_controller.go), from the CRD each kind serves:
 *
 * - the verbs in upstream's order (delete, deletecollection, get, list, patch, create, update,
 *   watch), only the reading ones and delete while the CRD is Terminating;
 * - `status` and `scale` (an autoscaling/v1 Scale) subresources as the served version declares
 *   them, each with get, patch and update, listed after their resource;
 * - the storage version hash of the CRD's storage version, and none when that version is not served;
 * - in aggregated discovery, response kinds naming the group and version (built-in kinds leave them
 *   empty).
 */
import type { CrdVersion, CustomResourceDefinition } from '../../crd/validation/types.ts';
import type { KindDefinition } from '../../registry/kind.ts';
import { storageVersionHash } from './storage-version-hash.ts';
import type { APIResource, APIResourceDiscovery } from './types.ts';

const SERVING_VERBS = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];
const TERMINATING_VERBS = ['delete', 'deletecollection', 'get', 'list', 'watch'];
const SUBRESOURCE_VERBS = ['get', 'patch', 'update'];

function crdOf(kind: KindDefinition): { crd: CustomResourceDefinition; version: CrdVersion | undefined } {
  const crd = kind.customResource!.crd as CustomResourceDefinition;
  return { crd, version: crd.spec?.versions?.find((v) => v.name === kind.customResource!.version) };
}

function terminating(crd: CustomResourceDefinition): boolean {
  return (crd.status?.conditions ?? []).some((c) => c.type === 'Terminating' && c.status === 'True');
}

/** The hash of the served storage version (`<group>/<storage version>/<spec.names.kind>`), if any. */
function crdStorageVersionHash(crd: CustomResourceDefinition): string | undefined {
  const storage = (crd.spec?.versions ?? []).find((v) => v.served && v.storage);
  if (!storage?.name) return undefined;
  return storageVersionHash(crd.spec?.group ?? '', storage.name, crd.spec?.names?.kind ?? '');
}

/** The legacy discovery entries of one custom resource kind: the resource, then status, then scale. */
export function customResourceEntries(kind: KindDefinition): APIResource[] {
  const { crd, version } = crdOf(kind);
  const main: APIResource = {
    name: kind.plural,
    singularName: kind.singular,
    namespaced: kind.namespaced,
    kind: kind.kind,
    verbs: terminating(crd) ? [...TERMINATING_VERBS] : [...SERVING_VERBS],
  };
  if (kind.shortNames.length > 0) main.shortNames = [...kind.shortNames];
  if (kind.categories.length > 0) main.categories = [...kind.categories];
  const hash = crdStorageVersionHash(crd);
  if (hash) main.storageVersionHash = hash;
  const out = [main];
  if (version?.subresources?.status) {
    out.push({ name: `${kind.plural}/status`, singularName: '', namespaced: kind.namespaced, kind: kind.kind, verbs: [...SUBRESOURCE_VERBS] });
  }
  if (version?.subresources?.scale) {
    out.push({ name: `${kind.plural}/scale`, singularName: '', namespaced: kind.namespaced, group: 'autoscaling', version: 'v1',
      kind: 'Scale', verbs: [...SUBRESOURCE_VERBS] });
  }
  return out;
}

/** The aggregated discovery entry of one custom resource kind. */
export function customResourceDiscovery(kind: KindDefinition): APIResourceDiscovery {
  const [main, ...subs] = customResourceEntries(kind);
  const entry: APIResourceDiscovery = {
    resource: main!.name,
    responseKind: { group: kind.group, version: kind.version, kind: kind.kind },
    scope: kind.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: main!.singularName,
    verbs: main!.verbs,
    ...(main!.shortNames ? { shortNames: main!.shortNames } : {}),
    ...(main!.categories ? { categories: main!.categories } : {}),
  };
  if (subs.length > 0) {
    entry.subresources = subs.map((s) => ({
      subresource: s.name.slice(s.name.indexOf('/') + 1),
      responseKind: { group: s.group ?? kind.group, version: s.version ?? kind.version, kind: s.kind },
      verbs: s.verbs,
    }));
  }
  return entry;
}
