/**
 * The CEL declaration of a structural schema (k8s.io/apiserver/pkg/cel/common's SchemaDeclType):
 * what type `self` has at each schema node, and the sizes the cost estimator assumes. Objects
 * with properties become object types whose fields are the escapable property names; maps
 * (additionalProperties) are map(string, T); lists are list(T); strings with a format are
 * timestamps (date, date-time), durations or bytes; x-kubernetes-int-or-string is dyn. A node
 * without a type (x-kubernetes-preserve-unknown-fields alone) has no declaration, and neither has
 * a list or map of such nodes; an object's field of such a type is left out.
 *
 * Sizes: `maxElements` is the largest size() a value can have (maxItems, maxProperties, 4 bytes per
 * character of maxLength, else as many as fit into a 3 MiB request); `minSerializedSize` the
 * fewest JSON bytes a value takes, which bounds how many fit into a request.
 */
import type { Structural } from '../schema/structural.ts';
import { escapeName } from './escaping.ts';

/** apiserver's MaxRequestSizeBytes, which the size estimates assume. */
export const MAX_REQUEST_SIZE_BYTES = 3n * 1024n * 1024n;
const MAX_DURATION_SIZE_JSON = 32n;
const MAX_DATETIME_SIZE_JSON = 32n;
const MIN_DURATION_SIZE_JSON = 3n;
const JSON_DATE_SIZE = 12n;
const MIN_DATETIME_SIZE_JSON = 21n;
const MIN_STRING_SIZE = 2n;
const MIN_BOOL_SIZE = 4n;
const MIN_NUMBER_SIZE = 1n;

export type DeclKind = 'object' | 'list' | 'map' | 'string' | 'bytes' | 'duration' | 'timestamp' | 'bool' | 'int' | 'double' | 'dyn';

export interface DeclField {
  /** The property name as the schema spells it. */
  readonly property: string;
  readonly type: DeclType;
}

export interface DeclType {
  readonly kind: DeclKind;
  /** An object's fields by escaped name. */
  readonly fields?: ReadonlyMap<string, DeclField>;
  /** A list's items or a map's values. */
  readonly elem?: DeclType;
  /** A map's keys (always strings). */
  readonly key?: DeclType;
  readonly maxElements: bigint;
  readonly minSerializedSize: bigint;
}

const simple = (kind: DeclKind, minSerializedSize: bigint, maxElements = 0n): DeclType => ({ kind, maxElements, minSerializedSize });
/** The key type of every map: the plain string declaration, whose size upstream leaves at 0. */
const MAP_KEY = simple('string', MIN_STRING_SIZE);

const zeroIfNegative = (n: number): bigint => (n < 0 ? 0n : BigInt(Math.trunc(n)));

/**
 * The schema with `kind`, `apiVersion` and `metadata` (name and generateName only) declared, as
 * every resource root and embedded resource is seen by rules; unchanged when it declares them all.
 */
export function withTypeAndObjectMeta(s: Structural): Structural {
  const p = s.properties;
  const meta = p?.metadata;
  if (p && p.kind?.type === 'string' && p.apiVersion?.type === 'string' && meta?.type === 'object' && meta.properties && meta.properties.name?.type === 'string' && meta.properties.generateName?.type === 'string') return s;
  const str = plain('string');
  const props: Record<string, Structural> = Object.assign(Object.create(null) as Record<string, Structural>, p ?? {});
  props.kind = str;
  props.apiVersion = str;
  props.metadata = { ...plain('object'), properties: Object.assign(Object.create(null) as Record<string, Structural>, { name: str, generateName: str }) };
  return { ...s, properties: props };
}

function plain(type: string): Structural {
  return { type, nullable: false, xPreserveUnknownFields: false, xEmbeddedResource: false, xIntOrString: false };
}

function maxStringLengthPerRequest(s: Structural): bigint {
  if (s.xIntOrString) return MAX_REQUEST_SIZE_BYTES - 2n;
  switch (s.valueValidation?.format) {
    case 'duration':
      return MAX_DURATION_SIZE_JSON;
    case 'date':
      return JSON_DATE_SIZE;
    case 'date-time':
      return MAX_DATETIME_SIZE_JSON;
    default:
      return MAX_REQUEST_SIZE_BYTES - 2n;
  }
}

/** The longest enum value, in bytes. */
function maxEnumLength(values: readonly unknown[]): bigint {
  let max = 0n;
  for (const v of values) if (typeof v === 'string') max = BigInt(Math.max(Number(max), Buffer.byteLength(v)));
  return max;
}

/** maxLength counts characters; a character is up to 4 bytes. */
const maxElementsFromMaxLength = (maxLength: number): bigint => zeroIfNegative(maxLength) * 4n;

/** SchemaDeclType: the declaration of a schema node, or undefined where rules cannot see it. */
export function schemaDeclType(s: Structural | undefined, isResourceRoot: boolean): DeclType | undefined {
  if (!s) return undefined;
  const vv = s.valueValidation;
  if (s.xIntOrString) {
    // Smallest serialized int-or-string: `0`.
    return simple('dyn', 1n, vv?.maxLength !== undefined ? maxElementsFromMaxLength(vv.maxLength) : maxStringLengthPerRequest(s));
  }
  if (isResourceRoot) s = withTypeAndObjectMeta(s);
  switch (s.type) {
    case 'array': {
      if (!s.items) return undefined;
      const items = schemaDeclType(s.items, s.items.xEmbeddedResource);
      if (!items) return undefined;
      const maxItems = vv?.maxItems !== undefined ? zeroIfNegative(vv.maxItems) : (MAX_REQUEST_SIZE_BYTES - 2n) / (items.minSerializedSize + 1n);
      return { kind: 'list', elem: items, maxElements: maxItems, minSerializedSize: 2n };
    }
    case 'object': {
      const additional = s.additionalProperties?.structural;
      if (additional) {
        const values = schemaDeclType(additional, additional.xEmbeddedResource);
        if (!values) return undefined;
        // A pair takes at least `"":` and a comma besides its value.
        const maxProperties = vv?.maxProperties !== undefined ? zeroIfNegative(vv.maxProperties) : (MAX_REQUEST_SIZE_BYTES - 2n) / (values.minSerializedSize + 6n);
        return { kind: 'map', key: MAP_KEY, elem: values, maxElements: maxProperties, minSerializedSize: 2n };
      }
      const required = new Set(vv?.required ?? []);
      const fields = new Map<string, DeclField>();
      // `{}` at least, plus each required property that has no default (defaults are filled in).
      let minSerializedSize = 2n;
      for (const [name, prop] of Object.entries(s.properties ?? {})) {
        const fieldType = schemaDeclType(prop, prop.xEmbeddedResource);
        if (!fieldType) continue;
        const escaped = escapeName(name);
        if (escaped !== undefined) fields.set(escaped, { property: name, type: fieldType });
        if (required.has(name) && (prop.default === undefined || prop.default === null)) minSerializedSize += BigInt(Buffer.byteLength(name)) + fieldType.minSerializedSize + 4n;
      }
      return { kind: 'object', fields, maxElements: 0n, minSerializedSize };
    }
    case 'string':
      switch (vv?.format) {
        case 'byte':
          return simple('bytes', MIN_STRING_SIZE, vv.maxLength !== undefined ? zeroIfNegative(vv.maxLength) : maxStringLengthPerRequest(s));
        case 'duration':
          return simple('duration', MIN_DURATION_SIZE_JSON, maxStringLengthPerRequest(s));
        case 'date':
          return simple('timestamp', JSON_DATE_SIZE, maxStringLengthPerRequest(s));
        case 'date-time':
          return simple('timestamp', MIN_DATETIME_SIZE_JSON, maxStringLengthPerRequest(s));
      }
      if (vv?.maxLength !== undefined) return simple('string', MIN_STRING_SIZE, maxElementsFromMaxLength(vv.maxLength));
      if (vv?.enum && vv.enum.length > 0) return simple('string', MIN_STRING_SIZE, maxEnumLength(vv.enum));
      return simple('string', MIN_STRING_SIZE, maxStringLengthPerRequest(s));
    case 'boolean':
      return simple('bool', MIN_BOOL_SIZE);
    case 'number':
      return simple('double', MIN_NUMBER_SIZE);
    case 'integer':
      return simple('int', MIN_NUMBER_SIZE);
    default:
      return undefined;
  }
}

/**
 * maxCardinality: how many times a value of this minimum size could occur in one request, the
 * worst case for a rule under lists and maps without maxItems or maxProperties.
 */
export function maxCardinality(minSerializedSize: bigint): bigint {
  return MAX_REQUEST_SIZE_BYTES / (minSerializedSize + 1n);
}
