/**
 * JSON type checking against the generated schema: what decoding into the Go types does upstream.
 * A body whose field has the wrong JSON type (`metadata.name: 5`, `data: "x"`) never reaches
 * validation there; the decoder refuses it with 400 and Go's own words:
 * `json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string`.
 *
 * The formats of the wire types are checked as their decoders check them: RFC 3339 Time and
 * MicroTime, resource quantities, int-or-string (a string or an int32), base64 bytes, durations.
 * Unknown fields are not looked at (field validation reports them); `null` is always accepted
 * (it leaves the zero value). The first problem in document order is reported, as Go does.
 */
import { fieldsOf, getMessage, isScalar, wellKnownShape, type FieldSchema } from '../schema/generated/index.ts';
import { parseGoDurationStrict } from '../api/go/duration.ts';
import { quantityParseError } from '../api/go/quantity.ts';
import { goTimeParseError, RFC3339, RFC3339_MICRO } from '../api/go/time.ts';

const TIME = 'k8s.io.apimachinery.pkg.apis.meta.v1.Time';
const MICRO_TIME = 'k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime';
const DURATION = 'k8s.io.apimachinery.pkg.apis.meta.v1.Duration';

const GO_SCALARS: Readonly<Record<string, string>> = {
  string: 'string',
  bytes: '[]uint8',
  bool: 'bool',
  int32: 'int32',
  sint32: 'int32',
  sfixed32: 'int32',
  uint32: 'uint32',
  fixed32: 'uint32',
  int64: 'int64',
  sint64: 'int64',
  sfixed64: 'int64',
  uint64: 'uint64',
  fixed64: 'uint64',
  double: 'float64',
  float: 'float32',
};

const INT_RANGES: Readonly<Record<string, readonly [number, number]>> = {
  int32: [-(2 ** 31), 2 ** 31 - 1],
  uint32: [0, 2 ** 32 - 1],
  int64: [-(2 ** 63), 2 ** 63 - 1],
  uint64: [0, 2 ** 64 - 1],
};

/** Go's name of a type: `v1.ObjectMeta` for `k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta`. */
function goTypeName(type: string): string {
  if (Object.hasOwn(GO_SCALARS, type)) return GO_SCALARS[type]!;
  const parts = type.split('.');
  return parts.slice(-2).join('.');
}

function goFieldType(field: FieldSchema): string {
  const element = goTypeName(field.type);
  if (field.keyType) return `map[${goTypeName(field.keyType)}]${element}`;
  if (field.repeated) return `[]${element}`;
  return element;
}

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

function checkElement(type: string, value: unknown, struct: string, path: string, goType: string): string | undefined {
  if (value === null) return undefined;
  if (isScalar(type)) {
    const go = GO_SCALARS[type]!;
    if (go === 'string') return typeof value === 'string' ? undefined : fieldError(value, struct, path, goType);
    if (go === 'bool') return typeof value === 'boolean' ? undefined : fieldError(value, struct, path, goType);
    if (go === '[]uint8') {
      if (typeof value !== 'string') return fieldError(value, struct, path, goType);
      const at = base64ErrorOffset(value);
      return at === undefined ? undefined : `illegal base64 data at input byte ${at}`;
    }
    if (typeof value !== 'number') return fieldError(value, struct, path, goType);
    const range = INT_RANGES[go];
    if (range && (!Number.isInteger(value) || value < range[0] || value > range[1])) {
      return fieldError(value, struct, path, goType, `number ${String(value)}`);
    }
    return undefined;
  }
  const shape = wellKnownShape(type);
  if (shape) {
    switch (shape.kind) {
      case 'any':
        return undefined;
      case 'int-or-string':
        if (typeof value === 'string') return undefined;
        // A number is read into an int32.
        if (typeof value === 'number') {
          const [min, max] = INT_RANGES.int32!;
          return Number.isInteger(value) && value >= min && value <= max ? undefined : `json: cannot unmarshal number ${String(value)} into Go value of type int32`;
        }
        return `json: cannot unmarshal ${jsonKind(value)} into Go value of type int32`;
      case 'array':
        if (!Array.isArray(value)) return fieldError(value, struct, path, goType);
        return value.some((v) => v !== null && typeof v !== 'string') ? fieldError(value.find((v) => v !== null && typeof v !== 'string'), struct, path, 'string') : undefined;
      default:
        // Time, MicroTime, Duration, Quantity: their UnmarshalJSON reads a JSON string (Quantity also a number),
        // and the time types then parse it with Go's time.Parse, whose error is the decoder's.
        // Quantity reads the raw JSON (quoted or not) with ParseQuantity, whose errors are the decoder's.
        if (shape.kind === 'string' && shape.format === 'quantity') {
          if (typeof value === 'string') return quantityParseError(value.trim());
          return quantityParseError(typeof value === 'number' ? String(value) : JSON.stringify(value));
        }
        if (typeof value === 'string') {
          if (type === TIME) return goTimeParseError(value, RFC3339);
          if (type === MICRO_TIME) return goTimeParseError(value, RFC3339_MICRO);
          if (type === DURATION) {
            const parsed = parseGoDurationStrict(value);
            return 'error' in parsed ? parsed.error : undefined;
          }
          return undefined;
        }
        return `json: cannot unmarshal ${jsonKind(value)} into Go value of type string`;
    }
  }
  if (!isPlainObject(value)) return fieldError(value, struct, path, goType);
  return checkMessage(type, value, path);
}

function checkMessage(message: string, obj: Record<string, unknown>, path: string): string | undefined {
  if (!getMessage(message)) return undefined;
  const fields = fieldsOf(message);
  const struct = goTypeName(message).split('.').pop()!;
  for (const key of Object.keys(obj)) {
    const field = Object.hasOwn(fields, key) ? fields[key] : undefined;
    const value = obj[key];
    if (!field || value === null) continue;
    const at = path ? `${path}.${key}` : key;
    const goType = goFieldType(field);
    const element = goTypeName(field.type);
    let problem: string | undefined;
    if (field.keyType) {
      if (!isPlainObject(value)) problem = fieldError(value, struct, at, goType);
      else for (const v of Object.values(value)) if ((problem = checkElement(field.type, v, struct, at, element))) break;
    } else if (field.repeated) {
      if (!Array.isArray(value)) problem = fieldError(value, struct, at, goType);
      else for (const v of value) if ((problem = checkElement(field.type, v, struct, at, element))) break;
    } else {
      problem = checkElement(field.type, value, struct, at, goType);
    }
    if (problem) return problem;
  }
  return undefined;
}

/**
 * The first JSON type error decoding `obj` as `message` would meet, in Go's words, or undefined.
 *
 * @example findTypeError('k8s.io.api.core.v1.ConfigMap', { metadata: { name: 5 } })
 * // 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string'
 */
export function findTypeError(message: string, obj: Record<string, unknown>): string | undefined {
  return checkMessage(message, obj, '');
}
