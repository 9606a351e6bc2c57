/**
 * Decoding of a versioned configuration document (YAML or JSON) as apimachinery's universal decoder
 * does it, with its messages: the type (kind, then apiVersion, then whether the scheme registers
 * them), then the fields by the Go type they decode into. A value of the wrong JSON type fails as
 * Go's encoding/json says (`json: cannot unmarshal …`); unknown fields are dropped, or refused when
 * the scheme decodes strictly (`strict decoding error: unknown field "…"`).
 */
import { parseYaml, YamlDecodeError, YamlTooLargeError } from '../../codecs/yaml.ts';
import { pluginFactoryError } from './errors.ts';

/** What a field decodes into: Go's type name goes into type errors. */
export type Shape =
  | { readonly kind: 'string'; readonly goType?: string }
  | { readonly kind: 'list'; readonly goType: string; readonly items: Shape }
  | { readonly kind: 'struct'; readonly goType: string; readonly fields: Readonly<Record<string, Shape>> }
  /** Any JSON value, kept as it is (runtime.Unknown, RawExtension). */
  | { readonly kind: 'raw' };

export type StructShape = Extract<Shape, { kind: 'struct' }>;

/** A runtime.Scheme as far as decoding goes: its name (where it was made) and the types it knows. */
export interface Scheme {
  readonly name: string;
  readonly types: readonly { readonly apiVersion: string; readonly kind: string }[];
  /** Whether unknown fields are errors (serializer.EnableStrict). */
  readonly strict: boolean;
}

/** Why the decoder could not tell the type: upstream's IsMissingKind, IsMissingVersion, IsNotRegisteredError. */
export type TypeProblem = 'missing-kind' | 'missing-version' | 'not-registered';

export class DecodeError extends Error {
  override name = 'DecodeError';
  constructor(
    message: string,
    /** Set when the document decoded but its type is unknown (the admission file falls back on this). */
    readonly typeProblem?: TypeProblem,
    /** The parsed document, when it parsed. */
    readonly document?: unknown,
  ) {
    super(message);
  }
}

export interface TypedDocument {
  readonly apiVersion: string;
  readonly kind: string;
  /** The fields the shape knows, decoded; absent and null fields are left out. */
  readonly value: Readonly<Record<string, unknown>>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** encoding/json's name of a JSON value's type. */
function jsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'bool';
  return typeof v === 'number' ? 'number' : typeof v === 'string' ? 'string' : 'object';
}

const TYPE_META_PROBE = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/**
 * Decodes `text` as one of the scheme's types with `shapeFor(apiVersion)` (the Go package differs by
 * version). Throws DecodeError with the decoder's message.
 */
export function decodeTypedDocument(text: string, scheme: Scheme, shapeFor: (apiVersion: string) => StructShape): TypedDocument {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    if (err instanceof YamlDecodeError || err instanceof YamlTooLargeError) throw new DecodeError(`error converting YAML to JSON: ${err.message}`);
    throw err;
  }
  if (doc !== null && !isRecord(doc)) {
    throw new DecodeError(`couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonType(doc)} into Go value of type ${TYPE_META_PROBE}`);
  }
  const top = doc ?? {};
  for (const key of ['apiVersion', 'kind']) {
    const v = top[key];
    if (v !== undefined && v !== null && typeof v !== 'string') {
      throw new DecodeError(`couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonType(v)} into Go struct field .${key} of type string`);
    }
  }
  const apiVersion = typeof top.apiVersion === 'string' ? top.apiVersion : '';
  const kind = typeof top.kind === 'string' ? top.kind : '';
  if (!kind) throw new DecodeError(`Object 'Kind' is missing in '${text}'`, 'missing-kind', doc);
  if (!apiVersion) throw new DecodeError(`Object 'apiVersion' is missing in '${text}'`, 'missing-version', doc);
  if (!scheme.types.some((t) => t.apiVersion === apiVersion && t.kind === kind)) {
    throw new DecodeError(`no kind "${kind}" is registered for version "${apiVersion}" in scheme "${scheme.name}"`, 'not-registered', doc);
  }
  const shape = shapeFor(apiVersion);
  const unknown: string[] = [];
  // TypeMeta is decoded already; the rest are the type's own fields.
  const fields = Object.fromEntries(Object.entries(top).filter(([k]) => k !== 'apiVersion' && k !== 'kind'));
  const value = decodeStruct(fields, shape, '', unknown);
  if (scheme.strict && unknown.length > 0) throw new DecodeError(`strict decoding error: ${unknown.map((u) => `unknown field "${u}"`).join(', ')}`);
  return { apiVersion, kind, value };
}

/** The Go package of an apiVersion (`v1`, `v1beta1`): the version part. */
export function goPackage(apiVersion: string): string {
  return apiVersion.slice(apiVersion.lastIndexOf('/') + 1);
}

/** Go's UnmarshalTypeError: the innermost struct, and the field's path from the document's top. */
function typeError(value: unknown, struct: string, path: string, goType: string): DecodeError {
  return new DecodeError(`json: cannot unmarshal ${jsonType(value)} into Go struct field ${struct}.${path} of type ${goType}`);
}

const structName = (goType: string) => goType.slice(goType.lastIndexOf('.') + 1);

function decodeStruct(obj: Record<string, unknown>, shape: StructShape, path: string, unknown: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const struct = structName(shape.goType);
  for (const [key, v] of Object.entries(obj)) {
    const at = path ? `${path}.${key}` : key;
    const field = shape.fields[key];
    if (!field) {
      unknown.push(at);
      continue;
    }
    const decoded = decodeValue(v, field, struct, at, unknown);
    if (decoded !== undefined) out[key] = decoded;
  }
  return out;
}

/** One field's value; undefined for null (Go leaves the zero value). List items keep the list's path, as Go reports them. */
function decodeValue(v: unknown, shape: Shape, struct: string, at: string, unknown: string[]): unknown {
  if (v === null || v === undefined) return undefined;
  switch (shape.kind) {
    case 'raw':
      return v;
    case 'string':
      if (typeof v !== 'string') throw typeError(v, struct, at, shape.goType ?? 'string');
      return v;
    case 'list':
      if (!Array.isArray(v)) throw typeError(v, struct, at, shape.goType);
      return v.map((item) => decodeValue(item, shape.items, struct, at, unknown) ?? zeroValue(shape.items));
    case 'struct':
      if (!isRecord(v)) throw typeError(v, struct, at, shape.goType);
      return decodeStruct(v, shape, at, unknown);
  }
}

/** What a null list item decodes to. */
function zeroValue(shape: Shape): unknown {
  if (shape.kind === 'string') return '';
  if (shape.kind === 'struct') return {};
  return shape.kind === 'list' ? [] : null;
}

/** A decoded document's fields, read loosely: the decoder has checked their types already. */
export type RawFields = Readonly<Record<string, unknown>>;
export const textField = (v: unknown): string => (typeof v === 'string' ? v : '');
export const textsField = (v: unknown): string[] => (Array.isArray(v) ? v.map(textField) : []);

/**
 * A plugin's configuration decoded as one of its scheme's types; a document that does not decode is
 * the start-up error kube-apiserver gives when the plugin's factory fails.
 */
export function decodePluginConfiguration(plugin: string, source: string, scheme: Scheme, shapeFor: (apiVersion: string) => StructShape): RawFields {
  try {
    return decodeTypedDocument(source, scheme, shapeFor).value;
  } catch (err) {
    if (err instanceof DecodeError) throw pluginFactoryError(plugin, err.message);
    throw err;
  }
}
