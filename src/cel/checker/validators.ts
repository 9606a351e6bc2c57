/**
 * The AST validators Kubernetes enables (cel.ASTValidators in its base environment) and the strings
 * extension's format check, run after a successful type check as cel-go runs them:
 * - list and map literals hold one type (`expected type 'int' but found 'string'`), except inside
 *   `format` calls;
 * - literal arguments of matches, duration and timestamp must be valid;
 * - a literal format string with a literal argument list must fit its arguments.
 */
import type { Issue } from '../errors.ts';
import { re2Error } from '../runtime/re2.ts';
import { parseDuration, parseTimestamp } from '../runtime/time.ts';
import { callPosition, children, positionOf, type Node } from './ast.ts';
import { errorTypeName } from './type-names.ts';
import { parseType, type TypeExpr } from '../lib/type-guards.ts';

const typeName = (n: Node) => n.checkedType?.name ?? 'dyn';

/** IsEquivalentType; cel-js's unresolved type parameters (`[]` is list<T>) stand for what cel-go infers. */
function equivalent(a: string, b: string): boolean {
  const eq = (x: TypeExpr, y: TypeExpr): boolean => {
    if (/^[A-Z]$/.test(x.name) || /^[A-Z]$/.test(y.name)) return true;
    if (x.name !== y.name || x.params.length !== y.params.length) return x.name === 'dyn' && y.name === 'dyn';
    return x.params.every((p, i) => eq(p, y.params[i]!));
  };
  return a === b || eq(parseType(a), parseType(b));
}

/** The type an entry contributes: the value type of an optional entry (`[?x]`). */
function entryType(n: Node, optional: boolean): string {
  const t = typeName(n);
  const m = optional ? /^optional<(.*)>$/.exec(t) : null;
  return m ? m[1]! : t;
}

export function validate(root: Node, optionalEntries: ReadonlySet<number>): Issue[] {
  const issues: Issue[] = [];
  const mismatch = (n: Node, expected: string, actual: string) => issues.push({ at: positionOf(n), message: `expected type '${errorTypeName(expected)}' but found '${errorTypeName(actual)}'` });

  const visit = (node: Node, inFormat: boolean): void => {
    if (!inFormat && node.op === 'list') {
      let first: string | undefined;
      for (const el of node.args as Node[]) {
        const t = entryType(el, optionalEntries.has(el.start));
        if (first === undefined) first = t;
        else if (!equivalent(first, t)) {
          mismatch(el, first, t);
          break;
        }
      }
    }
    if (!inFormat && node.op === 'map') {
      let kt: string | undefined;
      let vt: string | undefined;
      for (const [k, v] of node.args as [Node, Node][]) {
        const ktype = typeName(k);
        const vtype = entryType(v, optionalEntries.has(k.start));
        if (kt === undefined || vt === undefined) {
          kt = ktype;
          vt = vtype;
          continue;
        }
        if (!equivalent(kt, ktype)) mismatch(k, kt, ktype);
        if (!equivalent(vt, vtype)) mismatch(v, vt, vtype);
      }
    }
    if (node.op === 'call' || node.op === 'rcall') literalArguments(node, issues);
    const format = node.op === 'rcall' && node.args[0] === 'format';
    if (format) formatCall(node, issues);
    for (const c of children(node)) visit(c, inFormat || format);
  };
  visit(root, false);
  return issues;
}

/** formatValidator: matches, duration and timestamp with a literal first argument. */
function literalArguments(node: Node, issues: Issue[]): void {
  const name = node.args[0] as string;
  const args = (node.op === 'rcall' ? node.args[2] : node.args[1]) as Node[];
  const lit = args[0];
  if (!lit || lit.op !== 'value' || typeof lit.args !== 'string') return;
  const value = lit.args as string;
  let ok = true;
  if (name === 'matches') ok = re2Error(value) === undefined;
  else if (name === 'duration' && node.op === 'call') ok = parseDuration(value) !== undefined;
  else if (name === 'timestamp' && node.op === 'call') {
    try {
      ok = parseTimestamp(value) !== undefined;
    } catch {
      ok = false;
    }
  } else return;
  if (!ok) issues.push({ at: lit.pos, message: `invalid ${name} argument` });
}

/** The kinds each clause accepts, as cel-go's stringFormatChecker verifies them. */
const CLAUSES: Record<string, { kinds: readonly string[]; error: string }> = {
  d: { kinds: ['int', 'uint'], error: 'decimal clause can only be used on integers' },
  f: { kinds: ['double', 'string'], error: 'fixed-point clause can only be used on doubles' },
  e: { kinds: ['double', 'string'], error: 'scientific clause can only be used on doubles' },
  b: { kinds: ['int', 'uint', 'bool'], error: 'only integers and bools can be formatted as binary' },
  x: { kinds: ['int', 'uint', 'string', 'bytes'], error: 'only integers, byte buffers, and strings can be formatted as hex' },
  X: { kinds: ['int', 'uint', 'string', 'bytes'], error: 'only integers, byte buffers, and strings can be formatted as hex' },
  o: { kinds: ['int', 'uint'], error: 'octal clause can only be used on integers' },
};
const STRING_KINDS = ['list', 'map', 'int', 'uint', 'double', 'bool', 'string', 'google.protobuf.Timestamp', 'bytes', 'google.protobuf.Duration', 'type', 'null'];
const STRING_ERROR = 'string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps';

/** The runtime type name cel-go prints for a checked type (TypeName: `list`, `null_type`). */
function runtimeName(t: string): string {
  const base = t.replace(/<.*/, '');
  return base === 'null' ? 'null_type' : base;
}

const kindOf = (t: string) => t.replace(/<.*/, '');
const isDyn = (t: string) => t === 'dyn' || /^dyn</.test(t) || /^[A-Z]$/.test(t);

/** stringFormatChecker.verifyString: lists and map literals are checked element by element. */
function verifyString(n: Node): Node | undefined {
  const t = typeName(n);
  if (!isDyn(t) && !STRING_KINDS.includes(kindOf(t))) return n;
  if (n.op === 'list') for (const el of n.args as Node[]) { const bad = verifyString(el); if (bad) return bad; }
  if (n.op === 'map') for (const [k, v] of n.args as [Node, Node][]) { const bad = verifyString(k) ?? verifyString(v); if (bad) return bad; }
  return undefined;
}

/** stringFormatValidator: a literal format string against a literal list of arguments. */
function formatCall(node: Node, issues: Issue[]): void {
  const [, target, args] = node.args as [string, Node, Node[]];
  if (target.op !== 'value' || typeof target.args !== 'string' || args.length !== 1 || args[0]!.op !== 'list') return;
  const format = target.args as string;
  const list = args[0]!.args as Node[];
  const at = callPosition(node);
  let used = 0;
  for (let i = 0; i < format.length; i++) {
    if (format[i] !== '%') continue;
    if (format[i + 1] === '%') {
      i++;
      continue;
    }
    // The checker's argument list never runs out, so a trailing % is found before a missing argument.
    if (i + 1 >= format.length) return void issues.push({ at, message: 'unexpected end of string' });
    if (used >= list.length) return void issues.push({ at, message: `index ${used} out of range` });
    let j = i + 1;
    if (format[j] === '.') {
      j++;
      while (j < format.length && /[0-9]/.test(format[j]!)) j++;
      if (j >= format.length) return void issues.push({ at, message: 'could not parse formatting clause: error while parsing precision: could not find end of precision specifier' });
    }
    const verb = format[j]!;
    const arg = list[used]!;
    if (verb === 's') {
      const bad = verifyString(arg);
      if (bad) return void issues.push({ at: positionOf(bad), message: `error during formatting: ${STRING_ERROR}, was given ${runtimeName(typeName(bad))}` });
    } else {
      const clause = CLAUSES[verb];
      if (!clause) return void issues.push({ at, message: `could not parse formatting clause: unrecognized formatting clause "${verb}"` });
      const t = typeName(arg);
      if (!isDyn(t) && !clause.kinds.includes(kindOf(t))) return void issues.push({ at: positionOf(arg), message: `error during formatting: ${clause.error}, was given ${runtimeName(t)}` });
    }
    used++;
    i = j;
  }
  if (list.length > used) issues.push({ at, message: `too many arguments supplied to string.format (expected ${used}, got ${list.length})` });
}
