/**
 * The runtime values of CEL as this evaluator holds them, and their cel-go type names.
 *
 *   int        bigint (always within int64)          uint       CelUint
 *   double     number                                bool       boolean
 *   string     string                                bytes      Uint8Array
 *   null       null                                  list       readonly CelValue[]
 *   map        ReadonlyMap (Map, or JsonMap over JSON) timestamp  CelTimestamp
 *   duration   CelDuration                           type       CelType
 *   optional   CelOptional                           library objects: instances of CelObject
 *
 * Integers are bigints so int64 arithmetic and its overflow errors are exact; JSON numbers become
 * ints when integral (as kube-apiserver's decoder makes them int64) and doubles otherwise.
 */
import { runeCount } from '../api/go/strings.ts';

export type CelValue = bigint | number | boolean | string | null | Uint8Array | CelUint | readonly CelValue[] | CelMap | CelTimestamp | CelDuration | CelType | CelOptional | CelObject;

/** A map as the evaluator reads it: Map for maps it builds, JsonMap over stored JSON objects. */
export type CelMap = ReadonlyMap<MapKey, CelValue>;

/** Map keys: strings, ints, bools (uint keys are held as ints, which compare equal to them). */
export type MapKey = string | bigint | boolean;

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;
export const UINT64_MAX = 2n ** 64n - 1n;

/** An unsigned 64-bit integer (a class, so it stays apart from int). */
export class CelUint {
  constructor(readonly value: bigint) {}
}

/** A point in time: nanoseconds since the Unix epoch, within years 1 to 9999 as cel-go allows. */
export class CelTimestamp {
  constructor(readonly nanos: bigint) {}
}

/** A signed span of time in nanoseconds (int64, as Go's time.Duration). */
export class CelDuration {
  constructor(readonly nanos: bigint) {}
}

/** A type as a value (`type(1) == int`). */
export class CelType {
  constructor(readonly name: string) {}
}

/** optional(T): a value or none. */
export class CelOptional {
  constructor(readonly value: CelValue | undefined) {}
  static readonly NONE = new CelOptional(undefined);
  static of(value: CelValue): CelOptional {
    return new CelOptional(value);
  }
}

/**
 * The base of library values (quantities, URLs, IPs, authorizer checks …): each names its cel-go
 * type and says how it compares with another value for `==`.
 */
export abstract class CelObject {
  abstract readonly typeName: string;
  /** `==` with another value; undefined when upstream's Equal reports "no such overload". */
  abstract equals(other: CelValue): boolean | undefined;
}

export const TYPES = {
  int: new CelType('int'),
  uint: new CelType('uint'),
  double: new CelType('double'),
  bool: new CelType('bool'),
  string: new CelType('string'),
  bytes: new CelType('bytes'),
  list: new CelType('list'),
  map: new CelType('map'),
  null_type: new CelType('null_type'),
  type: new CelType('type'),
  timestamp: new CelType('google.protobuf.Timestamp'),
  duration: new CelType('google.protobuf.Duration'),
  optional: new CelType('optional_type'),
} as const;

const objectTypes = new Map<string, CelType>();

/** The type value of a library type name (one instance per name, so types compare by identity too). */
export function typeNamed(name: string): CelType {
  const known = (TYPES as Record<string, CelType>)[name];
  if (known) return known;
  let t = objectTypes.get(name);
  if (!t) objectTypes.set(name, (t = new CelType(name)));
  return t;
}

export function isMap(v: unknown): v is CelMap {
  return v instanceof Map || v instanceof JsonMapBase;
}

export function isList(v: unknown): v is readonly CelValue[] {
  return Array.isArray(v);
}

/**
 * The base class of maps that read JSON lazily (json.ts); declared here so `isMap` needs no import
 * cycle. Subclasses implement the ReadonlyMap methods the evaluator uses.
 */
export abstract class JsonMapBase implements ReadonlyMap<MapKey, CelValue> {
  abstract get(key: MapKey): CelValue | undefined;
  abstract has(key: MapKey): boolean;
  abstract get size(): number;
  abstract keys(): MapIterator<MapKey>;
  abstract values(): MapIterator<CelValue>;
  abstract entries(): MapIterator<[MapKey, CelValue]>;
  abstract forEach(cb: (value: CelValue, key: MapKey, map: ReadonlyMap<MapKey, CelValue>) => void): void;
  /**
   * `==` with another map when this map compares its own way (a schema-typed object comparing
   * the fields its schema does not declare as raw JSON); undefined for the usual entry-wise test.
   */
  equalsMap(_other: CelMap): boolean | undefined {
    return undefined;
  }
  [Symbol.iterator](): MapIterator<[MapKey, CelValue]> {
    return this.entries();
  }
}

/** The runtime type name of a value as cel-go's ref.Type names it (error texts, type(), dispatch). */
export function typeName(v: CelValue): string {
  switch (typeof v) {
    case 'bigint':
      return 'int';
    case 'number':
      return 'double';
    case 'boolean':
      return 'bool';
    case 'string':
      return 'string';
    default:
      if (v === null) return 'null_type';
      if (Array.isArray(v)) return 'list';
      if (v instanceof Uint8Array) return 'bytes';
      if (isMap(v)) return 'map';
      if (v instanceof CelUint) return 'uint';
      if (v instanceof CelTimestamp) return 'google.protobuf.Timestamp';
      if (v instanceof CelDuration) return 'google.protobuf.Duration';
      if (v instanceof CelType) return 'type';
      if (v instanceof CelOptional) return 'optional_type';
      if (v instanceof CelObject) return v.typeName;
      return 'unknown';
  }
}

/** `type(v)`. */
export function typeOf(v: CelValue): CelType {
  return typeNamed(typeName(v));
}

/** The number of code points of a string (CEL sizes and indexes strings by code point). */
export const codePointCount = runeCount;

/** The size cel-go's cost model gives a value (Sizer: code points, bytes, elements, entries; else 1). */
export function actualSize(v: CelValue): number {
  if (typeof v === 'string') return codePointCount(v);
  if (Array.isArray(v)) return v.length;
  if (v instanceof Uint8Array) return v.length;
  if (isMap(v)) return v.size;
  if (v instanceof CelOptional && v.value !== undefined) return actualSize(v.value);
  return 1;
}
