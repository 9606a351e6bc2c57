/**
 * Which protobuf message carries a given `apiVersion` + `kind`.
 *
 * Order of lookup:
 * 1. the kinds recorded in the schema (`kinds.json`), and their `<Kind>List`;
 * 2. the meta.k8s.io types every group version registers (DeleteOptions, ListOptions, Status,
 *    WatchEvent …), accepted under any apiVersion: clients send `DeleteOptions` as `batch/v1`;
 * 3. other top-level types of the group version's package (Scale, Eviction, TokenRequest, the
 *    review kinds …), found by package name.
 */
import { getMessage, schemaKinds } from '../../schema/generated/index.ts';

const META_V1 = 'k8s.io.apimachinery.pkg.apis.meta.v1';
const META_V1BETA1 = 'k8s.io.apimachinery.pkg.apis.meta.v1beta1';

/** Kinds of meta.k8s.io that may appear under any apiVersion. */
const META_KINDS: ReadonlySet<string> = new Set([
  'APIGroup',
  'APIGroupList',
  'APIResourceList',
  'APIVersions',
  'ApplyOptions',
  'CreateOptions',
  'DeleteOptions',
  'GetOptions',
  'List',
  'ListOptions',
  'PartialObjectMetadata',
  'PartialObjectMetadataList',
  'PatchOptions',
  'Status',
  'TableOptions',
  'UpdateOptions',
  'WatchEvent',
]);

let byKind: Map<string, string> | undefined;
let packages: Map<string, string> | undefined;
/** Only hits are cached: misses come from client input and must not grow the map. */
const resolved = new Map<string, string>();

function key(group: string, version: string, kind: string): string {
  return `${group}/${version}/${kind}`;
}

function packageOf(message: string): string {
  return message.slice(0, message.lastIndexOf('.'));
}

function load(): void {
  byKind = new Map();
  packages = new Map();
  for (const k of schemaKinds()) {
    byKind.set(key(k.group, k.version, k.kind), k.message);
    if (k.listMessage) byKind.set(key(k.group, k.version, `${k.kind}List`), k.listMessage);
    packages.set(`${k.group}/${k.version}`, packageOf(k.message));
  }
}

/** `apps/v1` → [`apps`, `v1`]; `v1` → [``, `v1`]. */
export function splitApiVersion(apiVersion: string): [group: string, version: string] {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
}

/** The proto package of a group version: from the schema, else `k8s.io.api.<first label>.<version>`. */
function packageFor(group: string, version: string): string {
  const known = packages!.get(`${group}/${version}`);
  if (known) return known;
  const first = group === '' ? 'core' : group.split('.')[0]!;
  return `k8s.io.api.${first}.${version}`;
}

function resolve(apiVersion: string, kind: string): string | undefined {
  if (!byKind) load();
  const [group, version] = splitApiVersion(apiVersion);
  if (!version || !kind) return undefined;
  const direct = byKind!.get(key(group, version, kind));
  if (direct) return direct;
  if (META_KINDS.has(kind)) {
    if (group === 'meta.k8s.io' && version === 'v1beta1' && getMessage(`${META_V1BETA1}.${kind}`)) return `${META_V1BETA1}.${kind}`;
    return `${META_V1}.${kind}`;
  }
  const candidate = `${packageFor(group, version)}.${kind}`;
  return getMessage(candidate)?.typeMeta ? candidate : undefined;
}

/**
 * The message name for an apiVersion and kind (`v1`, `ConfigMap` → `k8s.io.api.core.v1.ConfigMap`),
 * or undefined when the kind has no protobuf form (custom resources, unknown kinds).
 */
export function messageForKind(apiVersion: string, kind: string): string | undefined {
  // Meta kinds resolve in constant time and may come under any apiVersion: not cached.
  if (META_KINDS.has(kind)) return resolve(apiVersion, kind);
  const k = `${apiVersion}\u0000${kind}`;
  let hit = resolved.get(k);
  if (hit === undefined) {
    hit = resolve(apiVersion, kind);
    if (hit !== undefined) resolved.set(k, hit);
  }
  return hit;
}
