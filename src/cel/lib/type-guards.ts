/**
 * Types in cel-js's notation (`list<map<string, int>>`, `optional<T>`, `kubernetes.Quantity`) read
 * two ways: as runtime guards on values (cel-go's IsAssignableRuntimeType, which looks at a list's or
 * map's first element only) and as static matches against the types cel-js's checker inferred.
 */
import { CelDuration, CelObject, CelOptional, CelTimestamp, CelType, CelUint, isMap, type CelValue } from '../values.ts';

export interface TypeExpr {
  readonly name: string;
  readonly params: readonly TypeExpr[];
}

const parsed = new Map<string, TypeExpr>();

/** Parses `list<map<string, int>>` into a tree (cached). */
export function parseType(text: string): TypeExpr {
  let t = parsed.get(text);
  if (!t) {
    let i = 0;
    const read = (): TypeExpr => {
      const start = i;
      while (i < text.length && text[i] !== '<' && text[i] !== '>' && text[i] !== ',') i++;
      const name = text.slice(start, i).trim();
      const params: TypeExpr[] = [];
      if (text[i] === '<') {
        i++;
        for (;;) {
          params.push(read());
          if (text[i] === ',') {
            i++;
            continue;
          }
          i++; // '>'
          break;
        }
      }
      return { name, params };
    };
    t = read();
    parsed.set(text, t);
  }
  return t;
}

/** Type parameters (`T`, `A`) and dyn accept anything. */
export function isOpen(t: TypeExpr): boolean {
  return t.name === 'dyn' || /^[A-Z]$/.test(t.name);
}

export type TypeGuard = (v: CelValue) => boolean;

const any: TypeGuard = () => true;

function guardOf(t: TypeExpr): TypeGuard {
  if (isOpen(t)) return any;
  switch (t.name) {
    case 'int':
      return (v) => typeof v === 'bigint';
    case 'uint':
      return (v) => v instanceof CelUint;
    case 'double':
      return (v) => typeof v === 'number';
    case 'bool':
      return (v) => typeof v === 'boolean';
    case 'string':
      return (v) => typeof v === 'string';
    case 'bytes':
      return (v) => v instanceof Uint8Array;
    case 'null':
      return (v) => v === null;
    case 'type':
      return (v) => v instanceof CelType;
    case 'google.protobuf.Timestamp':
      return (v) => v instanceof CelTimestamp;
    case 'google.protobuf.Duration':
      return (v) => v instanceof CelDuration;
    case 'optional':
      return (v) => v instanceof CelOptional;
    case 'list': {
      const el = guardOf(t.params[0] ?? { name: 'dyn', params: [] });
      return (v) => Array.isArray(v) && (v.length === 0 || el(v[0]));
    }
    case 'map': {
      const k = guardOf(t.params[0] ?? { name: 'dyn', params: [] });
      const val = guardOf(t.params[1] ?? { name: 'dyn', params: [] });
      return (v) => {
        if (!isMap(v)) return false;
        for (const [key, value] of v) return k(key) && val(value);
        return true;
      };
    }
    default:
      return (v) => v instanceof CelObject && v.typeName === t.name;
  }
}

const guards = new Map<string, TypeGuard>();

/** The runtime guard of a declared parameter type. */
export function typeGuard(text: string): TypeGuard {
  let g = guards.get(text);
  if (!g) guards.set(text, (g = guardOf(parseType(text))));
  return g;
}

/**
 * Whether an argument of the checked type `arg` can bind to the parameter type `param`: 'yes' when
 * certain, 'maybe' when the argument's type is (partly) dyn, 'no' when it cannot.
 */
export function staticMatch(param: TypeExpr, arg: TypeExpr): 'yes' | 'maybe' | 'no' {
  if (isOpen(param)) return 'yes';
  if (isOpen(arg)) return 'maybe';
  const argName = arg.name === 'null_type' ? 'null' : arg.name;
  if (param.name !== argName) return 'no';
  let result: 'yes' | 'maybe' = 'yes';
  for (let i = 0; i < param.params.length; i++) {
    const p = param.params[i]!;
    const a = arg.params[i];
    if (!a) {
      result = 'maybe';
      continue;
    }
    const m = staticMatch(p, a);
    if (m === 'no') return 'no';
    if (m === 'maybe') result = 'maybe';
  }
  return result;
}
