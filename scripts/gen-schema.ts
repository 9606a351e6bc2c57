/**
 * Generates the committed schema module from the upstream wire-format facts.
 *
 *   npx tsx scripts/gen-schema.ts [path-to-schema-source-dir]     (default: schema-source/)
 *
 * Reads protobuf.json, markers.json, kinds.json and openapiv2-gnostic.json, with the supplements
 * kube-aggregator.json and apiextensions.json merged in, and writes:
 *   src/schema/generated/messages.json   every message: JSON fields with types, numbers and markers
 *   src/schema/generated/kinds.json      every top-level kind (group, version, plural, scope, lifecycle)
 *   proto/k8s.json                   the protobufjs descriptor of the API messages (for a protobuf codec)
 *   proto/openapiv2.json             the gnostic openapi.v2 descriptor (for /openapi/v2 as protobuf)
 *
 * The input lives in the repo (schema-source/, see its README) and the output is committed: nothing
 * reads the input directory at run time.
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const inputDir = resolve(process.argv[2] ?? join(repoRoot, 'schema-source'));

/**
 * Go structs embedded with `json:",inline"`: go-to-protobuf turns them into an ordinary field named after
 * the embedded type, but in JSON their fields sit directly in the parent. The upstream data carries no
 * marker for this, so the list is kept here (message → proto field name). Each entry is checked below.
 */
const INLINE_FIELDS: Readonly<Record<string, readonly string[]>> = {
  'k8s.io.api.core.v1.Volume': ['volumeSource'],
  'k8s.io.api.core.v1.PersistentVolumeSpec': ['persistentVolumeSource'],
  'k8s.io.api.core.v1.EphemeralContainer': ['ephemeralContainerCommon'],
  'k8s.io.api.core.v1.Probe': ['handler'],
  'k8s.io.api.core.v1.ConfigMapEnvSource': ['localObjectReference'],
  'k8s.io.api.core.v1.ConfigMapKeySelector': ['localObjectReference'],
  'k8s.io.api.core.v1.ConfigMapProjection': ['localObjectReference'],
  'k8s.io.api.core.v1.ConfigMapVolumeSource': ['localObjectReference'],
  'k8s.io.api.core.v1.SecretEnvSource': ['localObjectReference'],
  'k8s.io.api.core.v1.SecretKeySelector': ['localObjectReference'],
  'k8s.io.api.core.v1.SecretProjection': ['localObjectReference'],
  'k8s.io.api.extensions.v1beta1.IngressRule': ['ingressRuleValue'],
  'k8s.io.api.networking.v1.IngressRule': ['ingressRuleValue'],
  'k8s.io.api.networking.v1beta1.IngressRule': ['ingressRuleValue'],
  'k8s.io.api.admissionregistration.v1.NamedRuleWithOperations': ['ruleWithOperations'],
  'k8s.io.api.admissionregistration.v1alpha1.NamedRuleWithOperations': ['ruleWithOperations'],
  'k8s.io.api.admissionregistration.v1beta1.NamedRuleWithOperations': ['ruleWithOperations'],
  'k8s.io.api.admissionregistration.v1.RuleWithOperations': ['rule'],
  'k8s.io.api.resource.v1.DeviceAllocationConfiguration': ['deviceConfiguration'],
  'k8s.io.api.resource.v1.DeviceClaimConfiguration': ['deviceConfiguration'],
  'k8s.io.api.resource.v1.DeviceClassConfiguration': ['deviceConfiguration'],
  'k8s.io.api.resource.v1beta1.DeviceAllocationConfiguration': ['deviceConfiguration'],
  'k8s.io.api.resource.v1beta1.DeviceClaimConfiguration': ['deviceConfiguration'],
  'k8s.io.api.resource.v1beta1.DeviceClassConfiguration': ['deviceConfiguration'],
  'k8s.io.api.resource.v1beta2.DeviceAllocationConfiguration': ['deviceConfiguration'],
  'k8s.io.api.resource.v1beta2.DeviceClaimConfiguration': ['deviceConfiguration'],
  'k8s.io.api.resource.v1beta2.DeviceClassConfiguration': ['deviceConfiguration'],
  'k8s.io.apimachinery.pkg.runtime.Unknown': ['typeMeta'],
};

/**
 * Fields whose protobuf name is not their JSON name (go-to-protobuf lower-cases only the first letter of
 * the Go name, so Go `UID` becomes proto `uID` while its json tag says `uid`). message → proto → JSON.
 */
const JSON_NAMES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'k8s.io.api.authentication.v1.BoundObjectReference': { uID: 'uid' },
  // JSON Schema's own keywords and the Kubernetes extensions are not protobuf identifiers.
  'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps': {
    schema: '$schema',
    ref: '$ref',
    xKubernetesPreserveUnknownFields: 'x-kubernetes-preserve-unknown-fields',
    xKubernetesEmbeddedResource: 'x-kubernetes-embedded-resource',
    xKubernetesIntOrString: 'x-kubernetes-int-or-string',
    xKubernetesListMapKeys: 'x-kubernetes-list-map-keys',
    xKubernetesListType: 'x-kubernetes-list-type',
    xKubernetesMapType: 'x-kubernetes-map-type',
    xKubernetesValidations: 'x-kubernetes-validations',
  },
};

/** Messages that embed TypeMeta although they carry no `metadata` field. */
const TYPE_META_EXTRA = new Set([
  'k8s.io.apimachinery.pkg.apis.meta.v1.APIGroup',
  'k8s.io.apimachinery.pkg.apis.meta.v1.APIGroupList',
  'k8s.io.apimachinery.pkg.apis.meta.v1.APIResourceList',
  'k8s.io.apimachinery.pkg.apis.meta.v1.APIVersions',
  'k8s.io.api.admission.v1.AdmissionReview',
  'k8s.io.api.admission.v1beta1.AdmissionReview',
]);

/** Messages with a `metadata` field that do not embed TypeMeta (templates nested inside other objects). */
const NO_TYPE_META = /(TemplateSpec|ClaimTemplate)$/;

/** Plurals that the simple English rule in kinds.json gets wrong. */
const PLURAL_FIXES: Readonly<Record<string, string>> = { Endpoints: 'endpoints' };

/** Groups whose "kinds" are discovery documents, not REST resources: left out of kinds.json. */
const NOT_RESOURCES = new Set(['apidiscovery.k8s.io']);

interface RawMarkers {
  readonly [key: string]: unknown;
}

interface OutField {
  type: string;
  id: number;
  repeated?: true;
  keyType?: string;
  inline?: true;
  optional?: true;
  required?: true;
  patchStrategy?: string;
  patchMergeKey?: string;
  listType?: string;
  listMapKey?: string[];
  mapType?: string;
  structType?: string;
  default?: string;
  featureGate?: string;
}

interface OutMessage {
  typeMeta?: true;
  structType?: string;
  union?: true;
  fields: Record<string, OutField>;
}

function readJson(name: string): any {
  return JSON.parse(readFileSync(join(inputDir, name), 'utf8'));
}

function noDot(name: string): string {
  return name.startsWith('.') ? name.slice(1) : name;
}

function normalizeFieldMarkers(raw: RawMarkers | undefined, out: OutField): void {
  if (!raw) return;
  const get = (k: string): unknown => raw[k] ?? raw[`k8s:${k}`];
  if (get('optional') === true) out.optional = true;
  if (get('required') === true) out.required = true;
  const str = (k: string): string | undefined => (typeof get(k) === 'string' ? (get(k) as string) : undefined);
  const ps = str('patchStrategy');
  if (ps) out.patchStrategy = ps;
  const pk = str('patchMergeKey');
  if (pk) out.patchMergeKey = pk;
  const lt = str('listType');
  if (lt) out.listType = lt;
  const lk = get('listMapKey');
  if (Array.isArray(lk)) out.listMapKey = lk.map(String);
  else if (typeof lk === 'string') out.listMapKey = [lk];
  const mt = str('mapType');
  if (mt) out.mapType = mt;
  const st = str('structType');
  if (st) out.structType = st;
  const def = str('default');
  if (def !== undefined) out.default = def;
  const fg = str('featureGate');
  if (fg) out.featureGate = fg;
  if (out.optional && out.required) delete out.optional;
}

function collectTypes(ns: protobuf.NamespaceBase, out: protobuf.Type[]): void {
  for (const nested of ns.nestedArray) {
    if (nested instanceof protobuf.Type) out.push(nested);
    if (nested instanceof protobuf.Namespace || nested instanceof protobuf.Type) collectTypes(nested, out);
  }
}

function buildMessages(protoJson: any, markersJson: any, kindMessages: Set<string>): Record<string, OutMessage> {
  const root = protobuf.Root.fromJSON(protoJson);
  root.resolveAll();
  const types: protobuf.Type[] = [];
  collectTypes(root, types);
  const markers: Record<string, { fields?: Record<string, RawMarkers>; type?: RawMarkers }> = markersJson.messages;

  const messages: Record<string, OutMessage> = {};
  for (const t of types.sort((a, b) => (a.fullName < b.fullName ? -1 : 1))) {
    const name = noDot(t.fullName);
    const m = markers[name];
    const inline = new Set(INLINE_FIELDS[name] ?? []);
    const fields: Record<string, OutField> = {};
    for (const f of t.fieldsArray) {
      const type = f.resolvedType ? noDot(f.resolvedType.fullName) : f.type;
      const out: OutField = { type, id: f.id };
      if (f.repeated) out.repeated = true;
      if (f instanceof protobuf.MapField) out.keyType = f.keyType;
      if (inline.has(f.name)) out.inline = true;
      normalizeFieldMarkers(m?.fields?.[f.name], out);
      fields[JSON_NAMES[name]?.[f.name] ?? f.name] = out;
    }
    for (const f of Object.keys(JSON_NAMES[name] ?? {})) {
      if (!t.fields[f]) throw new Error(`JSON name list names unknown field ${name}.${f}`);
    }
    for (const f of inline) {
      if (!fields[f]?.inline) throw new Error(`inline field ${name}.${f} not found in protobuf.json`);
    }
    const msg: OutMessage = { fields };
    const hasMeta = fields.metadata !== undefined && /\.(ObjectMeta|ListMeta)$/.test(fields.metadata.type);
    if ((hasMeta && !NO_TYPE_META.test(name)) || TYPE_META_EXTRA.has(name) || kindMessages.has(name) ||
        /^k8s\.io\.(apimachinery\.pkg\.apis\.meta\.v1|api\.core\.v1)\.\w+Options$/.test(name)) {
      msg.typeMeta = true;
    }
    const typeMarkers = m?.type;
    if (typeMarkers && typeof typeMarkers.structType === 'string') msg.structType = typeMarkers.structType;
    if (typeMarkers && typeMarkers.union === true) msg.union = true;
    messages[name] = msg;
  }
  for (const name of Object.keys(INLINE_FIELDS)) {
    if (!messages[name]) throw new Error(`inline list names unknown message ${name}`);
  }
  return messages;
}

interface Lifecycle {
  introduced?: string;
  deprecated?: string;
  removed?: string;
  replacement?: string;
}

function plusMinors(version: string, n: number): string {
  const [major, minor] = version.split('.').map(Number);
  return `${major}.${minor + n}`;
}

/**
 * Prerelease (alpha/beta) versions that name no deprecation or removal get the defaults the upstream
 * lifecycle generator applies: deprecated = introduced + 3 minors, removed = deprecated + 3 minors.
 */
function effectiveLifecycle(version: string, raw: Lifecycle): Lifecycle {
  const out: Lifecycle = { ...raw };
  if (/alpha|beta/.test(version) && out.introduced) {
    out.deprecated ??= plusMinors(out.introduced, 3);
    out.removed ??= plusMinors(out.deprecated, 3);
  }
  return out;
}

function buildKinds(kindsJson: any, messages: Record<string, OutMessage>): unknown[] {
  const out: unknown[] = [];
  for (const k of kindsJson.kinds) {
    if (NOT_RESOURCES.has(k.group)) continue;
    if (!messages[k.message]) throw new Error(`kind ${k.kind} names unknown message ${k.message}`);
    const listMessage = messages[`${k.message}List`] ? `${k.message}List` : undefined;
    out.push({
      group: k.group,
      version: k.version,
      kind: k.kind,
      plural: PLURAL_FIXES[k.kind] ?? k.plural,
      namespaced: k.namespaced,
      message: k.message,
      ...(listMessage ? { listMessage } : {}),
      lifecycle: effectiveLifecycle(k.version, k.lifecycle ?? {}),
    });
  }
  return out;
}

/** One message per block and one field per line: compact, yet readable and diff-friendly. */
function formatMessages(release: string, messages: Record<string, OutMessage>): string {
  const blocks: string[] = [];
  for (const [name, msg] of Object.entries(messages)) {
    const head: string[] = [];
    if (msg.typeMeta) head.push('"typeMeta": true');
    if (msg.structType) head.push(`"structType": ${JSON.stringify(msg.structType)}`);
    if (msg.union) head.push('"union": true');
    const fields = Object.entries(msg.fields).map(([f, d]) => `    ${JSON.stringify(f)}: ${JSON.stringify(d)}`);
    const fieldBlock = fields.length ? `{\n${fields.join(',\n')}\n  }` : '{}';
    blocks.push(`  ${JSON.stringify(name)}: {${head.map((h) => h + ', ').join('')}"fields": ${fieldBlock}}`);
  }
  return `{\n"release": ${JSON.stringify(release)},\n"messages": {\n${blocks.join(',\n')}\n}\n}\n`;
}

function write(rel: string, text: string): void {
  const path = join(repoRoot, rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  console.log(`wrote ${rel} (${Math.round(text.length / 1024)} KiB)`);
}

/** Deep-merges nested protobuf namespaces (a supplement adds packages and messages, never replaces). */
function mergeNested(into: any, from: any): void {
  for (const [key, value] of Object.entries<any>(from)) {
    if (into[key] && typeof into[key] === 'object' && value && typeof value === 'object' && !('fields' in value)) mergeNested(into[key], value);
    else into[key] = value;
  }
}

/** Adds a supplement's facts (types outside k8s.io/api, such as kube-aggregator's) to the main ones. */
function mergeSupplement(protoJson: any, markersJson: any, kindsJson: any, supplement: any): void {
  mergeNested(protoJson.nested, supplement.protobuf);
  Object.assign(markersJson.messages, supplement.markers);
  kindsJson.kinds.push(...supplement.kinds);
}

function main(): void {
  const protoJson = readJson('protobuf.json');
  const markersJson = readJson('markers.json');
  const kindsJson = readJson('kinds.json');
  const gnosticJson = readJson('openapiv2-gnostic.json');
  mergeSupplement(protoJson, markersJson, kindsJson, readJson('kube-aggregator.json'));
  mergeSupplement(protoJson, markersJson, kindsJson, readJson('apiextensions.json'));
  const release: string = protoJson.release ?? kindsJson.release ?? 'unknown';

  const kindMessages = new Set<string>();
  for (const k of kindsJson.kinds) {
    kindMessages.add(k.message);
    kindMessages.add(`${k.message}List`);
  }
  const messages = buildMessages(protoJson, markersJson, kindMessages);
  const kinds = buildKinds(kindsJson, messages);

  write('src/schema/generated/messages.json', formatMessages(release, messages));
  write(
    'src/schema/generated/kinds.json',
    `{\n"release": ${JSON.stringify(release)},\n"kinds": [\n${kinds.map((k) => '  ' + JSON.stringify(k)).join(',\n')}\n]\n}\n`,
  );
  write('proto/k8s.json', JSON.stringify(protoJson) + '\n');
  write('proto/openapiv2.json', JSON.stringify(gnosticJson, null, 1) + '\n');
}

main();
