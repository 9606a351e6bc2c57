/**
 * cel-js's type names in cel-go's two spellings: FormatCELType, which compile errors use
 * (`list(int)`, `timestamp`, `null`), and Type.String(), which "must evaluate to" uses
 * (`google.protobuf.Timestamp`, `null_type`).
 */
import { parseType, type TypeExpr } from '../lib/type-guards.ts';

function format(t: TypeExpr, forErrors: boolean): string {
  const params = t.params.map((p) => format(p, forErrors));
  switch (t.name) {
    case 'list':
      return `list(${params[0] ?? 'dyn'})`;
    case 'map':
      return `map(${params[0] ?? 'dyn'}, ${params[1] ?? 'dyn'})`;
    case 'optional':
      return `optional_type(${params[0] ?? 'dyn'})`;
    case 'dyn':
      // cel-js marks known types seen through dyn as dyn<T>.
      return params[0] ?? 'dyn';
    case 'null':
    case 'null_type':
      return forErrors ? 'null' : 'null_type';
    case 'google.protobuf.Timestamp':
      return forErrors ? 'timestamp' : t.name;
    case 'google.protobuf.Duration':
      return forErrors ? 'duration' : t.name;
    default:
      // An unresolved type parameter of cel-js reads as dyn.
      return /^[A-Z]$/.test(t.name) ? 'dyn' : t.name;
  }
}

/** FormatCELType: how compile errors print a type. */
export function errorTypeName(celJsType: string): string {
  return format(parseType(celJsType), true);
}

/** Type.String(): how result-type errors print a type. */
export function resultTypeName(celJsType: string): string {
  return format(parseType(celJsType), false);
}

const KEPT = new Set(['bool', 'bytes', 'double', 'int', 'uint', 'string', 'null', 'google.protobuf.Timestamp', 'google.protobuf.Duration', 'list', 'map']);

/**
 * The type a variable of this type has in `variables` (composition.go's convertCelTypeToDeclType):
 * scalars, timestamps, durations, lists and maps keep their types, anything else is dyn.
 */
export function variableTypeOf(celJsType: string): string {
  const t = parseType(celJsType);
  const keep = (x: typeof t): string => {
    if (x.name === 'dyn' && x.params.length === 1) return keep(x.params[0]!);
    if (!KEPT.has(x.name)) return 'dyn';
    if (x.name === 'list') return `list<${x.params[0] ? keep(x.params[0]) : 'dyn'}>`;
    if (x.name === 'map') return `map<${x.params[0] ? keep(x.params[0]) : 'dyn'}, ${x.params[1] ? keep(x.params[1]) : 'dyn'}>`;
    return x.name;
  };
  return keep(t);
}
