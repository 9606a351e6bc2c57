/**
 * Typed access to the generated schema (`messages.json`, `kinds.json`; regenerate with `npm run gen:schema`).
 *
 * Message names are protobuf full names without the leading dot (`k8s.io.api.core.v1.ConfigMap`).
 * `getMessage` gives the protobuf view (one field per proto field); `fieldsOf` gives the JSON view, where
 * the fields of Go structs embedded inline (Volume.volumeSource, Probe.handler …) sit in the parent.
 * The files are read lazily on first use and kept in memory.
 */
import { readFileSync } from 'node:fs';

export type ListType = 'atomic' | 'set' | 'map';

/** One field of a message. `type` is a proto scalar (`string`, `int64`, `bytes` …) or a message name. */
export interface FieldSchema {
  readonly type: string;
  /** Protobuf field number. */
  readonly id: number;
  readonly repeated?: true;
  /** Set on map fields (`map<keyType, type>`); JSON objects with arbitrary keys. */
  readonly keyType?: string;
  /** A Go struct embedded with `json:",inline"`: its fields appear in the parent's JSON. */
  readonly inline?: true;
  readonly optional?: true;
  readonly required?: true;
  /** Strategic merge patch: `merge`, `retainKeys`, `merge,retainKeys` or `replace`. */
  readonly patchStrategy?: string;
  readonly patchMergeKey?: string;
  readonly listType?: ListType;
  readonly listMapKey?: readonly string[];
  readonly mapType?: 'atomic' | 'granular';
  readonly structType?: 'atomic' | 'granular';
  /** Upstream default marker, as written there (`"TCP"`, `false`, `ref(Foo)`). */
  readonly default?: string;
  readonly featureGate?: string;
}

export interface MessageSchema {
  readonly name: string;
  /** The Go type embeds TypeMeta: `apiVersion` and `kind` are known fields in JSON. */
  readonly typeMeta?: true;
  readonly structType?: 'atomic' | 'granular';
  readonly union?: true;
  /** Fields by proto (= JSON) name, in declaration order. */
  readonly fields: Readonly<Record<string, FieldSchema>>;
}

export interface KindLifecycle {
  readonly introduced?: string;
  readonly deprecated?: string;
  readonly removed?: string;
  /** `group,version,Kind` of the replacement. */
  readonly replacement?: string;
}

/** A top-level kind as recorded upstream (not every one is served: see lifecycle). */
export interface SchemaKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
  readonly message: string;
  readonly listMessage?: string;
  readonly lifecycle: KindLifecycle;
}

/**
 * How a value of a type looks in JSON. Well-known apimachinery messages have a JSON form of their own
 * and are never walked as messages.
 */
export type JsonShape =
  | { readonly kind: 'string'; readonly format?: 'date-time' | 'byte' | 'quantity' | 'duration' }
  | { readonly kind: 'integer'; readonly format: 'int32' | 'int64' }
  | { readonly kind: 'number'; readonly format: 'double' | 'float' }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'int-or-string' }
  /** Embedded JSON of any shape (RawExtension, FieldsV1, Patch). */
  | { readonly kind: 'any' }
  | { readonly kind: 'array'; readonly items: JsonShape }
  | { readonly kind: 'message'; readonly message: string };

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';

/** Well-known types: their JSON is not the JSON of their proto fields. */
export const WELL_KNOWN: Readonly<Record<string, JsonShape>> = {
  [`${META}.Time`]: { kind: 'string', format: 'date-time' },
  [`${META}.MicroTime`]: { kind: 'string', format: 'date-time' },
  [`${META}.Duration`]: { kind: 'string', format: 'duration' },
  [`${META}.FieldsV1`]: { kind: 'any' },
  [`${META}.Patch`]: { kind: 'any' },
  [`${META}.Verbs`]: { kind: 'array', items: { kind: 'string' } },
  'k8s.io.apimachinery.pkg.api.resource.Quantity': { kind: 'string', format: 'quantity' },
  'k8s.io.apimachinery.pkg.api.resource.QuantityValue': { kind: 'string', format: 'quantity' },
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': { kind: 'int-or-string' },
  'k8s.io.apimachinery.pkg.runtime.RawExtension': { kind: 'any' },
  // apiextensions' JSON and the JSON Schema unions (a schema or an array, a bool or a schema, a schema
  // or a string list): free JSON, as upstream's OpenAPI publishes them (they have no type there).
  ...Object.fromEntries(
    ['JSON', 'JSONSchemaPropsOrArray', 'JSONSchemaPropsOrBool', 'JSONSchemaPropsOrStringArray'].map(
      (name): [string, JsonShape] => [`k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.${name}`, { kind: 'any' }],
    ),
  ),
  // `type ExtraValue []string` (user extras): a list of strings in JSON, a message on the wire.
  ...Object.fromEntries(
    ['authentication.v1', 'authentication.v1beta1', 'authorization.v1', 'authorization.v1beta1', 'certificates.v1', 'certificates.v1beta1'].map(
      (gv): [string, JsonShape] => [`k8s.io.api.${gv}.ExtraValue`, { kind: 'array', items: { kind: 'string' } }],
    ),
  ),
};

/** The proto scalar types (everything else is a message). */
const SCALARS: ReadonlySet<string> = new Set(['string', 'bytes', 'bool', 'int32', 'sint32', 'sfixed32', 'uint32', 'fixed32', 'int64', 'sint64', 'sfixed64', 'uint64', 'fixed64', 'double', 'float']);

interface MessagesFile {
  readonly release: string;
  readonly messages: Readonly<Record<string, Omit<MessageSchema, 'name'>>>;
}

let messagesCache: Map<string, MessageSchema> | undefined;
let kindsCache: readonly SchemaKind[] | undefined;
let releaseCache = '';
const jsonFieldsCache = new Map<string, Readonly<Record<string, FieldSchema>>>();

function loadJson<T>(file: string): T {
  return JSON.parse(readFileSync(new URL(file, import.meta.url), 'utf8')) as T;
}

function messages(): Map<string, MessageSchema> {
  if (!messagesCache) {
    const file = loadJson<MessagesFile>('./messages.json');
    releaseCache = file.release;
    messagesCache = new Map();
    for (const [name, m] of Object.entries(file.messages)) messagesCache.set(name, Object.freeze({ name, ...m }));
  }
  return messagesCache;
}

/** The upstream release the schema was generated from (`kubernetes-1.34`). */
export function schemaRelease(): string {
  messages();
  return releaseCache;
}

/** The message with this full name (`k8s.io.api.core.v1.ConfigMap`), or undefined. */
export function getMessage(name: string): MessageSchema | undefined {
  return messages().get(name);
}

/** Every message name, sorted. */
export function messageNames(): string[] {
  return [...messages().keys()];
}

/**
 * The JSON fields of a message: inline-embedded structs are flattened into it.
 * Throws for an unknown message name (a programming error: kinds name their message statically).
 */
export function fieldsOf(name: string): Readonly<Record<string, FieldSchema>> {
  const cached = jsonFieldsCache.get(name);
  if (cached) return cached;
  const msg = getMessage(name);
  if (!msg) throw new Error(`unknown schema message ${name}`);
  const out: Record<string, FieldSchema> = {};
  for (const [fieldName, field] of Object.entries(msg.fields)) {
    if (field.inline) Object.assign(out, fieldsOf(field.type));
    else out[fieldName] = field;
  }
  const frozen = Object.freeze(out);
  jsonFieldsCache.set(name, frozen);
  return frozen;
}

/** True when the type is a proto scalar rather than a message. */
export function isScalar(type: string): boolean {
  return SCALARS.has(type);
}

/** The JSON form of a well-known message (Time, Quantity, IntOrString, RawExtension …), if it is one. */
export function wellKnownShape(type: string): JsonShape | undefined {
  return Object.hasOwn(WELL_KNOWN, type) ? WELL_KNOWN[type] : undefined;
}

/** The kinds recorded upstream (group, version, plural, scope, message, lifecycle). */
export function schemaKinds(): readonly SchemaKind[] {
  kindsCache ??= Object.freeze(loadJson<{ kinds: SchemaKind[] }>('./kinds.json').kinds);
  return kindsCache;
}

/** The upstream kind whose message this is, if any. */
export function schemaKindOf(group: string, version: string, kind: string): SchemaKind | undefined {
  return schemaKinds().find((k) => k.group === group && k.version === version && k.kind === kind);
}
