/**
 * Plain JSON (objects as stored) in and out of CEL values.
 *
 * Objects are not copied: a JsonMap reads its object lazily and converts each member the first time
 * it is read, so an expression that looks at three fields of a large object pays for three. Arrays
 * become lists when first read (their objects lazily again). Numbers follow kube-apiserver's JSON
 * decoding: integral values that fit are int64 (`int`), everything else float64 (`double`).
 */
import { CelDuration, CelObject, CelOptional, CelTimestamp, CelType, CelUint, INT64_MAX, INT64_MIN, isMap, JsonMapBase, type CelValue, type MapKey } from './values.ts';
import { formatDuration, formatTimestamp } from './runtime/time.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const hasOwn = Object.prototype.hasOwnProperty;

/** A CEL map over a JSON object: string keys, members converted on first read and kept. */
export class JsonMap extends JsonMapBase {
  #converted: Map<string, CelValue> | undefined;
  constructor(readonly raw: Readonly<Record<string, unknown>>) {
    super();
  }

  get(key: MapKey): CelValue | undefined {
    if (typeof key !== 'string' || !hasOwn.call(this.raw, key)) return undefined;
    const done = this.#converted?.get(key);
    if (done !== undefined) return done;
    const raw = this.raw[key];
    if (raw === undefined) return undefined;
    const v = toCel(raw);
    // Only containers are worth keeping: scalars convert as fast as they look up.
    if (typeof raw === 'object' && raw !== null) (this.#converted ??= new Map()).set(key, v);
    return v;
  }

  has(key: MapKey): boolean {
    return typeof key === 'string' && hasOwn.call(this.raw, key) && this.raw[key] !== undefined;
  }

  get size(): number {
    let n = 0;
    for (const k in this.raw) if (hasOwn.call(this.raw, k) && this.raw[k] !== undefined) n++;
    return n;
  }

  *keys(): MapIterator<MapKey> {
    for (const k in this.raw) if (hasOwn.call(this.raw, k) && this.raw[k] !== undefined) yield k;
  }

  *values(): MapIterator<CelValue> {
    for (const k of this.keys()) yield this.get(k)!;
  }

  *entries(): MapIterator<[MapKey, CelValue]> {
    for (const k of this.keys()) yield [k, this.get(k)!];
  }

  forEach(cb: (value: CelValue, key: MapKey, map: ReadonlyMap<MapKey, CelValue>) => void): void {
    for (const [k, v] of this.entries()) cb(v, k, this);
  }
}

/** A JSON number as kube-apiserver decodes it: int64 when integral and in range, else double. */
export function jsonNumber(n: number): bigint | number {
  if (Number.isInteger(n)) {
    const b = BigInt(n);
    if (b >= INT64_MIN && b <= INT64_MAX) return b;
  }
  return n;
}

/** A JSON value (or undefined, read as null) as a CEL value. Objects are wrapped, not copied. */
export function toCel(value: unknown): CelValue {
  switch (typeof value) {
    case 'number':
      return jsonNumber(value);
    case 'string':
    case 'boolean':
    case 'bigint':
      return value;
    case 'undefined':
      return null;
    case 'object':
      if (value === null) return null;
      if (Array.isArray(value)) return value.map(toCel);
      if (value instanceof JsonMap || value instanceof Map || value instanceof CelObject || value instanceof Uint8Array) return value as CelValue;
      if (value instanceof CelUint || value instanceof CelTimestamp || value instanceof CelDuration || value instanceof CelType || value instanceof CelOptional) return value;
      return new JsonMap(value as Record<string, unknown>);
    default:
      throw new TypeError(`not a JSON value: ${typeof value}`);
  }
}

/**
 * A CEL value as JSON (what a messageExpression or a mutation hands back): ints become numbers,
 * timestamps and durations their string forms, bytes base64 (as encoding/json prints []byte).
 * Maps over stored JSON return the stored object itself.
 */
export function fromCel(value: CelValue): Json {
  switch (typeof value) {
    case 'bigint':
      return Number(value);
    case 'number':
    case 'string':
    case 'boolean':
      return value;
    default:
      if (value === null) return null;
      if (Array.isArray(value)) return value.map(fromCel);
      if (value instanceof JsonMap) return value.raw as Json;
      if (isMap(value)) {
        const out: Record<string, Json> = {};
        for (const [k, v] of value) out[String(k)] = fromCel(v);
        return out;
      }
      if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
      if (value instanceof CelUint) return Number(value.value);
      if (value instanceof CelTimestamp) return formatTimestamp(value);
      if (value instanceof CelDuration) return formatDuration(value);
      if (value instanceof CelType) return value.name;
      if (value instanceof CelOptional) return value.value === undefined ? null : fromCel(value.value);
      return String(value);
  }
}

export type { Json };
