/**
 * The types the cost estimator reasons with, as cel-go's checker knows them (kind, name,
 * parameters), read from cel-js's type notation. What the estimator asks of a type: its kind (a
 * select costs extra on maps, structs and type parameters; bool, int, uint, double, timestamp and
 * duration have a fixed size), a list's element type, and whether two types are the same.
 */
import { parseType, type TypeExpr } from '../lib/type-guards.ts';

export type TypeKind =
  | 'bool'
  | 'int'
  | 'uint'
  | 'double'
  | 'string'
  | 'bytes'
  | 'null'
  | 'timestamp'
  | 'duration'
  | 'list'
  | 'map'
  | 'struct'
  | 'opaque'
  | 'type'
  | 'typeparam'
  | 'dyn';

export interface GoType {
  readonly kind: TypeKind;
  /** cel-go's TypeName(): `int`, `list`, `kubernetes.Quantity`, `optional_type`, `net.IP`. */
  readonly name: string;
  readonly params: readonly GoType[];
}

const simple = (kind: TypeKind, name: string = kind): GoType => ({ kind, name, params: [] });

export const DYN = simple('dyn');
export const BOOL = simple('bool');
export const INT = simple('int');
export const STRING = simple('string');
export const listOf = (elem: GoType): GoType => ({ kind: 'list', name: 'list', params: [elem] });
export const mapOf = (key: GoType, value: GoType): GoType => ({ kind: 'map', name: 'map', params: [key, value] });
export const optionalOf = (elem: GoType): GoType => ({ kind: 'opaque', name: 'optional_type', params: [elem] });

/** Library types cel-go declares opaque; every other named type is a struct (object) type. */
const OPAQUE = new Set(['net.IP', 'net.CIDR']);

function fromExpr(t: TypeExpr): GoType {
  const p = t.params.map(fromExpr);
  switch (t.name) {
    case 'bool':
    case 'int':
    case 'uint':
    case 'double':
    case 'string':
    case 'bytes':
    case 'type':
      return simple(t.name);
    case 'null':
    case 'null_type':
      return simple('null', 'null_type');
    case 'google.protobuf.Timestamp':
      return simple('timestamp', t.name);
    case 'google.protobuf.Duration':
      return simple('duration', t.name);
    case 'list':
      return listOf(p[0] ?? DYN);
    case 'map':
      return mapOf(p[0] ?? DYN, p[1] ?? DYN);
    case 'optional':
      return optionalOf(p[0] ?? DYN);
    case 'dyn':
      // cel-js writes a type it knows behind dyn as dyn<T>.
      return p[0] ?? DYN;
    case '':
      return DYN;
    default:
      if (/^[A-Z]$/.test(t.name)) return simple('typeparam', t.name);
      if (OPAQUE.has(t.name)) return simple('opaque', t.name);
      return simple('struct', t.name);
  }
}

const cache = new Map<string, GoType>();

/** The type of a cel-js type name (`list<string>`, `selfType1.spec`); dyn when unknown. */
export function goType(celJsType: string | undefined): GoType {
  if (celJsType === undefined) return DYN;
  let t = cache.get(celJsType);
  if (!t) {
    t = fromExpr(parseType(celJsType));
    if (cache.size > 10_000) cache.clear();
    cache.set(celJsType, t);
  }
  return t;
}

/** types.Type.Equal: same kind, name and parameters. */
export function sameType(a: GoType, b: GoType): boolean {
  return a.kind === b.kind && a.name === b.name && a.params.length === b.params.length && a.params.every((p, i) => sameType(p, b.params[i]!));
}

/** checker's isScalar: types of a size known before evaluation (strings and containers are not). */
export function isScalar(t: GoType): boolean {
  switch (t.kind) {
    case 'bool':
    case 'double':
    case 'duration':
    case 'int':
    case 'timestamp':
    case 'uint':
      return true;
    case 'opaque':
      return t.name === 'optional_type' && isScalar(t.params[0]!);
    default:
      return false;
  }
}
