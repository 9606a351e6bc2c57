/**
 * JSON type checking against the kind's schema object: what decoding into the Go types does upstream.
 * A body whose field has the wrong JSON type (`metadata.name: 5`, `data: "x"`) never reaches
 * validation there; the decoder refuses it with 400 and Go's own words:
 * `json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string`.
 *
 * The formats of the wire types are checked as their decoders check them: RFC 3339 Time and
 * MicroTime, resource quantities, int-or-string (a string or an int32), base64 bytes, durations.
 * Unknown fields are not looked at (field validation reports them); `null` is always accepted
 * (it leaves the zero value). The first problem in document order is reported, as Go does.
 */
import { parseGoDurationStrict } from '../api/go/duration.ts';
import { quantityParseError } from '../api/go/quantity.ts';
import { goTimeParseError, RFC3339, RFC3339_MICRO } from '../api/go/time.ts';
import type { ObjectSchema, TypeSchema } from '../schema/type-schema.ts';

const INT_RANGES: Readonly<Record<string, readonly [number, number]>> = {
  int32: [-(2 ** 31), 2 ** 31 - 1],
  uint32: [0, 2 ** 32 - 1],
  int64: [-(2 ** 63), 2 ** 63 - 1],
  uint64: [0, 2 ** 64 - 1],
};

/** What Go calls a JSON value in an UnmarshalTypeError. */
function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return 'number';
  return typeof value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fieldError(value: unknown, struct: string, path: string, goType: string, what = jsonKind(value)): string {
  return `json: cannot unmarshal ${what} into Go struct field ${struct}.${path} of type ${goType}`;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * Where Go's standard base64 decoder gives up on `s` (its CorruptInputError offset), or undefined
 * when `s` decodes. Follows encoding/base64's decodeQuantum: newlines are skipped, padding is required.
 */
export function base64ErrorOffset(s: string): number | undefined {
  let si = 0;
  while (si < s.length) {
    let j = 0;
    for (; j < 4; j++) {
      if (si === s.length) {
        if (j === 0) return undefined;
        return si - j;
      }
      const c = s[si++]!;
      if (B64.includes(c)) continue;
      if (c === '\n' || c === '\r') {
        j--;
        continue;
      }
      if (c !== '=') return si - 1;
      if (j < 2) return si - 1;
      if (j === 2) {
        while (si < s.length && (s[si] === '\n' || s[si] === '\r')) si++;
        if (si === s.length) return s.length;
        if (s[si] !== '=') return si - 1;
        si++;
      }
      while (si < s.length && (s[si] === '\n' || s[si] === '\r')) si++;
      if (si < s.length) return si;
      return undefined;
    }
  }
  return undefined;
}

/** A string of a format, as its type's UnmarshalJSON reads it. */
function checkString(schema: Extract<TypeSchema, { kind: 'string' }>, value: unknown, struct: string, path: string, goType: string): string | undefined {
  switch (schema.format) {
    case 'byte':
      if (typeof value !== 'string') return fieldError(value, struct, path, goType);
      return base64ErrorOffset(value) === undefined ? undefined : `illegal base64 data at input byte ${base64ErrorOffset(value)}`;
    case 'quantity':
      // Quantity reads the raw JSON (quoted or not) with ParseQuantity, whose errors are the decoder's.
      if (typeof value === 'string') return quantityParseError(value.trim());
      return quantityParseError(typeof value === 'number' ? String(value) : JSON.stringify(value));
    case 'date-time':
    case 'micro-time':
    case 'duration': {
      if (typeof value !== 'string') return `json: cannot unmarshal ${jsonKind(value)} into Go value of type string`;
      if (schema.format === 'date-time') return goTimeParseError(value, RFC3339);
      if (schema.format === 'micro-time') return goTimeParseError(value, RFC3339_MICRO);
      const parsed = parseGoDurationStrict(value);
      return 'error' in parsed ? parsed.error : undefined;
    }
    default:
      return typeof value === 'string' ? undefined : fieldError(value, struct, path, goType);
  }
}

function checkElement(schema: TypeSchema, value: unknown, struct: string, path: string, goType: string): string | undefined {
  if (value === null) return undefined;
  switch (schema.kind) {
    case 'any':
      return undefined;
    case 'string':
      return checkString(schema, value, struct, path, goType);
    case 'boolean':
      return typeof value === 'boolean' ? undefined : fieldError(value, struct, path, goType);
    case 'integer': {
      if (typeof value !== 'number') return fieldError(value, struct, path, goType);
      const [min, max] = INT_RANGES[schema.format]!;
      return Number.isInteger(value) && value >= min && value <= max ? undefined : fieldError(value, struct, path, goType, `number ${String(value)}`);
    }
    case 'number':
      return typeof value === 'number' ? undefined : fieldError(value, struct, path, goType);
    case 'int-or-string': {
      if (typeof value === 'string') return undefined;
      // A number is read into an int32.
      if (typeof value === 'number') {
        const [min, max] = INT_RANGES.int32!;
        return Number.isInteger(value) && value >= min && value <= max ? undefined : `json: cannot unmarshal number ${String(value)} into Go value of type int32`;
      }
      return `json: cannot unmarshal ${jsonKind(value)} into Go value of type int32`;
    }
    case 'array': {
      // A well-known list type (metav1.Verbs): its elements are strings.
      if (!Array.isArray(value)) return fieldError(value, struct, path, goType);
      const bad = value.find((v) => v !== null && typeof v !== 'string');
      return bad === undefined ? undefined : fieldError(bad, struct, path, 'string');
    }
    case 'map':
      return isPlainObject(value) ? undefined : fieldError(value, struct, path, goType);
    case 'object':
      if (!isPlainObject(value)) return fieldError(value, struct, path, goType);
      return checkObject(schema, value, path);
  }
}

function checkObject(schema: ObjectSchema, obj: Record<string, unknown>, path: string): string | undefined {
  const struct = schema.goName.split('.').pop()!;
  for (const key of Object.keys(obj)) {
    const field = schema.fields.get(key);
    const value = obj[key];
    if (!field || value === null) continue;
    const at = path ? `${path}.${key}` : key;
    let problem: string | undefined;
    const s = field.schema;
    if (s.kind === 'map' && field.collection === 'map') {
      if (!isPlainObject(value)) problem = fieldError(value, struct, at, field.goType);
      else for (const v of Object.values(value)) if ((problem = checkElement(s.values, v, struct, at, field.goElementType))) break;
    } else if (s.kind === 'array' && field.collection === 'list') {
      if (!Array.isArray(value)) problem = fieldError(value, struct, at, field.goType);
      else for (const v of value) if ((problem = checkElement(s.items, v, struct, at, field.goElementType))) break;
    } else {
      problem = checkElement(s, value, struct, at, field.goType);
    }
    if (problem) return problem;
  }
  return undefined;
}

/**
 * The first JSON type error decoding `obj` as `schema` would meet, in Go's words, or undefined.
 *
 * @example findTypeError(messageSchema('k8s.io.api.core.v1.ConfigMap'), { metadata: { name: 5 } })
 * // 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string'
 */
export function findTypeError(schema: ObjectSchema, obj: Record<string, unknown>): string | undefined {
  return checkObject(schema, obj, '');
}
