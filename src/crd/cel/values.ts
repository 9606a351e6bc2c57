/**
 * Custom resource data as CEL values, typed by the schema (valuesunstructured.go's
 * UnstructuredToVal):
 *
 * - `integer` is int and `number` is double (even for `1`), int-or-string is int or string;
 * - strings of format date, date-time, duration and byte are timestamps, durations and bytes;
 * - an object with properties (or an embedded resource, with kind, apiVersion and
 *   metadata.name/generateName declared) is read by escaped field name, a field set to null is
 *   absent, and fields the schema does not declare are invisible (but count in size() and compare
 *   as raw JSON in `==`); an object with additionalProperties is a map of unescaped keys;
 * - lists with x-kubernetes-list-type `set` or `map` compare without regard to order and `+`
 *   merges them (union, or by key);
 * - a value without a type (x-kubernetes-preserve-unknown-fields) only compares for equality.
 *
 * Objects are read lazily, each member converted on first read. Data that contradicts the schema
 * yields upstream's error text as an evaluation error where it is read.
 */
import { CelEvalError, celEquals, CelObject, fromCel, JsonMapBase, unorderedList, type CelMap, type CelValue, type MapKey } from '../../cel/index.ts';
import { isGoInt } from '../../api/go/number.ts';
import { deepEqualJson, isJsonObject } from '../schema/json.ts';
import type { Structural } from '../schema/structural.ts';
import { withTypeAndObjectMeta } from './decl-type.ts';
import { escapeName, unescapeName } from './escaping.ts';
import { parseSchemaBytes, parseSchemaDate, parseSchemaDateTime, parseSchemaDuration } from './string-formats.ts';

const fail = (message: string) => new CelEvalError(message);

/** Whether a decoded JSON number is an int64 (kube-apiserver decodes other numbers as float64). */
const isInt64 = (n: number) => isGoInt(n);

/** Go's %T of a decoded JSON value. */
function goTypeName(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'number') return isInt64(v) ? 'int64' : 'float64';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

const hasProperties = (s: Structural) => s.properties !== undefined && Object.keys(s.properties).length > 0;

/**
 * A value preserved by x-kubernetes-preserve-unknown-fields where the schema gives no type: rules
 * cannot read it, but objects holding it compare it as JSON.
 */
export class UnknownPreserved extends CelObject {
  readonly typeName = 'unknown';
  constructor(readonly raw: unknown) {
    super();
  }
  equals(other: CelValue): boolean {
    return deepEqualJson(this.raw, other instanceof UnknownPreserved ? other.raw : fromCel(other));
  }
}

/** The CEL value of `value` under `schema`; throws CelEvalError (upstream's text) on data the schema does not allow. */
export function toCelValue(value: unknown, schema: Structural): CelValue {
  if (value === null || value === undefined) {
    if (schema.nullable) return null;
    throw fail('invalid data, got null for schema with nullable=false');
  }
  if (schema.xIntOrString) {
    if (typeof value === 'string') return value;
    if (typeof value === 'number' && isInt64(value)) return BigInt(value);
    throw fail('invalid data, expected XIntOrString value to be either a string or integer');
  }
  switch (schema.type) {
    case 'object': {
      if (!isJsonObject(value)) throw fail('invalid data, expected a map for the provided schema with type=object');
      if (schema.xEmbeddedResource || hasProperties(schema)) return new ObjectValue(value, schema.xEmbeddedResource ? withTypeAndObjectMeta(schema) : schema);
      return new ObjectValue(value, schema);
    }
    case 'array': {
      if (!Array.isArray(value)) throw fail('invalid data, expected an array for the provided schema with type=array');
      if (!schema.items) throw fail('invalid array type, expected Items with a non-empty Schema');
      const items = schema.items;
      const list = value.map((v) => toCelValue(v, items));
      switch (schema.xListType) {
        case undefined:
        case 'atomic':
          return list;
        case 'set':
          return unorderedList(list, 'set');
        case 'map':
          return unorderedList(list, { mapKeys: (schema.xListMapKeys ?? []).map((k) => escapeName(k) ?? k) });
        default:
          throw fail(`invalid x-kubernetes-list-type, expected 'map', 'set' or 'atomic' but got ${schema.xListType}`);
      }
    }
    case 'string':
      if (typeof value !== 'string') throw fail(`invalid data, expected string, got ${goTypeName(value)}`);
      return stringValue(value, schema.valueValidation?.format);
    case 'number':
      if (typeof value !== 'number') throw fail(`invalid data, expected float, got ${goTypeName(value)}`);
      return value;
    case 'integer':
      if (typeof value !== 'number' || !isInt64(value)) throw fail(`invalid data, expected int, got ${goTypeName(value)}`);
      return BigInt(value);
    case 'boolean':
      if (typeof value !== 'boolean') throw fail(`invalid data, expected bool, got ${goTypeName(value)}`);
      return value;
  }
  if (schema.xPreserveUnknownFields) return new UnknownPreserved(value);
  throw fail(`invalid type, expected object, array, number, integer, boolean or string, or no type with x-kubernetes-int-or-string or x-kubernetes-preserve-unknown-fields is true, got ${schema.type}`);
}

function stringValue(s: string, format: string | undefined): CelValue {
  switch (format) {
    case 'duration': {
      const d = parseSchemaDuration(s);
      if (d instanceof Error) throw fail(`Invalid duration ${s}: ${d.message}`);
      return d;
    }
    case 'date': {
      const t = parseSchemaDate(s);
      if (t instanceof Error) throw fail(`Invalid date formatted string ${s}: ${t.message}`);
      return t;
    }
    case 'date-time': {
      const t = parseSchemaDateTime(s);
      if (t instanceof Error) throw fail(`Invalid date-time formatted string ${s}: ${t.message}`);
      return t;
    }
    case 'byte': {
      const b = parseSchemaBytes(s);
      if (b instanceof Error) throw fail(`Invalid byte formatted string ${s}: ${b.message}`);
      return b;
    }
    default:
      return s;
  }
}

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * An object of custom resource data (upstream's unstructuredMap): with properties, read by escaped
 * field name; with additionalProperties, a map by plain key; with neither, nothing is readable.
 */
export class ObjectValue extends JsonMapBase {
  readonly #isObject: boolean;
  #converted: Map<string, CelValue> | undefined;

  constructor(
    readonly raw: Readonly<Record<string, unknown>>,
    readonly schema: Structural,
  ) {
    super();
    this.#isObject = hasProperties(schema);
  }

  /** The schema of a member, or undefined when the schema does not declare it. */
  #memberSchema(key: string): Structural | undefined {
    if (this.#isObject) return hasOwn.call(this.schema.properties, key) ? this.schema.properties![key] : undefined;
    return this.schema.additionalProperties?.structural;
  }

  /** Find: the member under a CEL key, or undefined when absent (throws for data the schema refuses). */
  get(key: MapKey): CelValue | undefined {
    if (typeof key !== 'string') return undefined;
    let k: string | undefined = key;
    if (this.#isObject) {
      k = unescapeName(key);
      if (k === undefined) return undefined;
    }
    if (!hasOwn.call(this.raw, k)) return undefined;
    const v = this.raw[k];
    // A field of an object set to null is as absent as an unset one.
    if (this.#isObject && (v === null || v === undefined)) return undefined;
    const schema = this.#memberSchema(k);
    if (!schema) return undefined;
    const done = this.#converted?.get(k);
    if (done !== undefined) return done;
    const converted = toCelValue(v, schema);
    (this.#converted ??= new Map()).set(k, converted);
    return converted;
  }

  has(key: MapKey): boolean {
    return this.get(key) !== undefined;
  }

  /** All members, declared or not (upstream's Size). */
  get size(): number {
    return Object.keys(this.raw).length;
  }

  /** The keys a rule can iterate: declared members (escaped for objects). */
  *keys(): MapIterator<MapKey> {
    for (const k of Object.keys(this.raw)) {
      if (!this.#memberSchema(k)) continue;
      yield this.#isObject ? (escapeName(k) ?? k) : k;
    }
  }

  *values(): MapIterator<CelValue> {
    for (const [, v] of this.entries()) yield v;
  }

  *entries(): MapIterator<[MapKey, CelValue]> {
    for (const k of this.keys()) {
      const v = this.get(k);
      if (v !== undefined) yield [k, v];
    }
  }

  forEach(cb: (value: CelValue, key: MapKey, map: ReadonlyMap<MapKey, CelValue>) => void): void {
    for (const [k, v] of this.entries()) cb(v, k, this);
  }

  /**
   * unstructuredMap.Equal: same number of members; declared members equal (present in both or
   * in neither); undeclared ones equal as JSON where the other object has them too.
   */
  override equalsMap(other: CelMap): boolean {
    if (this.size !== other.size) return false;
    for (const k of Object.keys(this.raw)) {
      if (this.#memberSchema(k)) {
        const key = this.#isObject ? (escapeName(k) ?? k) : k;
        const v = this.get(key);
        const o = other.get(key);
        if ((v === undefined) !== (o === undefined)) return false;
        if (v === undefined || o === undefined) continue;
        if (!celEquals(v, o)) return false;
      } else {
        if (!(other instanceof ObjectValue)) throw fail('no such overload');
        if (hasOwn.call(other.raw, k) && !deepEqualJson(this.raw[k], other.raw[k])) return false;
      }
    }
    return true;
  }
}
