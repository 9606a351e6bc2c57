/**
 * The kinds a CustomResourceDefinition serves: one KindDefinition per served version, as
 * apiextensions-apiserver builds one crdInfo per version. The serving loop (crd-serving.ts) adds them
 * to the ApiSurface; everything the generic registry needs to serve them (schema, decoder, strategy,
 * subresources, tables, field selectors) is data here.
 */
import type { KubeObject } from '../../api/types.ts';
import { cloneJson } from '../../codecs/deep-json.ts';
import { defineKind, type KindDefinition, type StorageMapping, type SubresourceDefinition, type Verb } from '../../registry/kind.ts';
import type { CrdNames, CrdVersion, CustomResourceDefinition } from '../validation/types.ts';
import { decodeCustomResource } from './decode.ts';
import { versionDeprecationWarning } from './deprecation.ts';
import { customResourceFieldSelectors } from './field-selectors.ts';
import { scaleSubresource } from './scale-subresource.ts';
import { customResourceStatusStrategy, customResourceStrategy, defaultCustomResource } from './strategy.ts';
import { customResourceTable } from './table.ts';
import { customResourceVersionSchema, type VersionSchema } from './version-schema.ts';

/** The wire formats of a custom resource: no protobuf, no strategic merge patch, CBOR while gated. */
const CUSTOM_RESOURCE_WIRE = Object.freeze({ protobuf: false, strategicMergePatch: false, cbor: true });

const VERBS: readonly Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** The names the CRD serves under: the accepted ones once the controller has accepted them. */
export function servedNames(crd: CustomResourceDefinition): CrdNames {
  const accepted = crd.status?.acceptedNames;
  return accepted?.plural && accepted.kind ? accepted : (crd.spec?.names ?? {});
}

/**
 * What reading a stored object of this version does, as upstream's storage codec decodes: the
 * current schema's pruning and coercion, then its defaults. `fromStorage` of the kind's storage
 * mapping; the serving loop converts a stored object to this version first and then calls it.
 */
export function readCustomResource(v: VersionSchema, stored: KubeObject, owned = false): KubeObject {
  // An object the caller owns (a conversion's fresh output) is read in place: a list of 10,000
  // would otherwise pay a deep copy per item for nothing.
  const obj = owned ? stored : cloneJson(stored);
  try {
    decodeCustomResource(v, obj, true);
  } catch {
    // Metadata that is not an object at all cannot be read: served as stored, the read check reports it.
    return owned ? obj : cloneJson(stored);
  }
  defaultCustomResource(v, obj);
  return obj;
}

/** Reads a stored object as the kind's version; `owned`: the object is the caller's to change. */
export type CustomResourceReader = (stored: KubeObject, owned?: boolean) => KubeObject;

const READERS = new WeakMap<object, CustomResourceReader>();

/**
 * The read step of a kind built here (pruning and defaults of its version's schema), for a storage
 * mapping that replaces the kind's own: convert the stored object to the kind's version, then call it.
 */
export function customResourceReader(kind: KindDefinition): CustomResourceReader | undefined {
  // Keyed by the customResource record, which a copy of the kind (`{ ...kind, storage }`) keeps.
  return kind.customResource ? READERS.get(kind.customResource) : undefined;
}

function readMapping(group: string, plural: string, v: VersionSchema): StorageMapping {
  return { group, resource: plural, toStorage: (obj) => obj, fromStorage: (obj) => readCustomResource(v, obj) };
}

function subresourcesOf(version: CrdVersion, v: VersionSchema, namespaced: boolean, main: ReturnType<typeof customResourceStrategy>, crd?: CustomResourceDefinition): SubresourceDefinition[] {
  const out: SubresourceDefinition[] = [];
  const scale = version.subresources?.scale;
  if (version.subresources?.status) {
    out.push({ name: 'status', verbs: ['get', 'update', 'patch'], strategy: customResourceStatusStrategy(v, scale) });
  }
  if (scale) out.push(scaleSubresource(scale, namespaced, main, crd && version.name ? { crd, version: version.name } : undefined));
  return out;
}

/** The kind of one served version. */
export function customResourceKind(crd: CustomResourceDefinition, version: CrdVersion): KindDefinition | undefined {
  const names = servedNames(crd);
  if (!version.served || !version.name || !names.plural || !names.kind) return undefined;
  const group = crd.spec?.group ?? '';
  const namespaced = crd.spec?.scope !== 'Cluster';
  const v = customResourceVersionSchema(crd, version, names.kind);
  const hasStatus = !!version.subresources?.status;
  const strategy = customResourceStrategy(v, hasStatus, version.subresources?.scale);
  const deprecationWarning = versionDeprecationWarning(crd, version, names.kind);
  const kind = defineKind({
    group,
    version: version.name,
    kind: names.kind,
    plural: names.plural,
    singular: names.singular || names.kind.toLowerCase(),
    shortNames: names.shortNames ?? [],
    categories: names.categories ?? [],
    namespaced,
    verbs: VERBS,
    // A custom resource has no generated message: the name is a key only, never compiled.
    schemaMessage: `${group}.${version.name}.${names.kind}`,
    schema: v.typeSchema,
    subresources: subresourcesOf(version, v, namespaced, strategy, crd),
    // Upstream's customResourceValidator validates names as DNS subdomains.
    nameRule: 'dns-subdomain',
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    // With a status subresource the generic rule (anything but metadata and status) is upstream's;
    // without one, status changes bump too, which the strategy's prepareForUpdate does.
    tracksGeneration: hasStatus,
    coreObjectMeta: false,
    fieldSelectors: customResourceFieldSelectors(version),
    strategy,
    wire: CUSTOM_RESOURCE_WIRE,
    table: customResourceTable(version),
    decode: (obj) => decodeCustomResource(v, obj),
    storage: readMapping(group, names.plural, v),
    ...(deprecationWarning !== undefined ? { deprecationWarning } : {}),
    customResource: { crd: crd as KubeObject, version: version.name },
  });
  READERS.set(kind.customResource!, (stored, owned) => readCustomResource(v, stored, owned));
  return kind;
}

/** One kind per served version of the CRD, in spec order (`customResource` set on each). */
export function customResourceKinds(crd: CustomResourceDefinition): KindDefinition[] {
  const kinds: KindDefinition[] = [];
  for (const version of crd.spec?.versions ?? []) {
    const kind = customResourceKind(crd, version);
    if (kind) kinds.push(kind);
  }
  return kinds;
}
