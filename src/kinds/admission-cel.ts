/**
 * The CEL expressions of admission policies, judged as upstream's validation compiles them, as far
 * as @marcbachmann/cel-js can tell without Kubernetes' CEL libraries: syntax, identifiers the
 * expression's environment does not declare, `variables.<name>` for variables not (yet) composed,
 * and a result of a type the field does not take where that type is certain. Anything else (library
 * functions, overloads, cost) is not judged here, so a policy is never refused for what cel-js lacks.
 */
import { Environment, type ASTNode } from '@marcbachmann/cel-js';
import type { FieldError } from '../api/errors.ts';
import * as field from '../registry/validation/field.ts';

/** What the field's expression must evaluate to (upstream's ReturnTypes of its expression kind). */
export type CelResult = 'bool' | 'string' | 'string-or-null' | 'any';

/** The optional declarations of the expression's environment. */
export interface CelDeclarations {
  /** `params`: the policy names a paramKind. */
  readonly params: boolean;
  /** `authorizer` and `authorizer.requestResource` (every kind of expression but messageExpression). */
  readonly authorizer: boolean;
  /** The variables composed so far; undefined where `variables` is not declared at all. */
  readonly variables?: readonly string[];
}

const ALWAYS_DECLARED = ['object', 'oldObject', 'request', 'namespaceObject'];
/** Type names usable as values (`type(x) == int`), and the roots of qualified type names. */
const TYPE_IDENTS = new Set(['bool', 'bytes', 'double', 'dyn', 'int', 'list', 'map', 'null_type', 'string', 'type', 'uint', 'optional_type', 'google', 'kubernetes', 'net']);
/** Receivers that are function namespaces (`optional.of(x)`, `cel.bind(...)`), not variables. */
const NAMESPACES = new Set(['optional', 'cel', 'math', 'sets', 'strings', 'lists', 'regex', 'base64', 'format']);
/** Macros whose leading identifier arguments are variables bound in the other arguments. */
const BINDING_MACROS = new Set(['all', 'exists', 'exists_one', 'existsOne', 'map', 'filter', 'transformList', 'transformMap', 'transformMapEntry', 'sortBy']);
/** Roots whose field paths are `dyn` to the checker. */
const DYN_ROOTS = new Set(['object', 'oldObject', 'params']);

const RESULT_TYPES: Record<Exclude<CelResult, 'any'>, { accepts: readonly string[]; shown: string }> = {
  bool: { accepts: ['bool'], shown: 'bool' },
  string: { accepts: ['string'], shown: 'string' },
  'string-or-null': { accepts: ['string', 'null_type'], shown: 'one of [string null_type]' },
};

/**
 * The error of one expression, at most one as upstream gives (its compile errors joined in one
 * `compilation failed: …` detail); `shown` is the value the error prints (the field's own text where
 * upstream compiles a trimmed copy).
 */
export function celErrors(expression: string, at: field.FieldPath, decls: CelDeclarations, result: CelResult, shown = expression): FieldError[] {
  const detail = celProblem(expression, decls, result);
  return detail === undefined ? [] : [field.invalid(at, shown, detail)];
}

function celProblem(expression: string, decls: CelDeclarations, result: CelResult): string | undefined {
  const scanned = scan(expression);
  const env = environmentFor(decls);
  let ast: ASTNode;
  try {
    ast = env.parse(scanned.masked).ast;
  } catch (err) {
    const e = err as { summary?: string; message?: string; range?: { start: number } };
    const at = e.range?.start ?? 0;
    return compilationFailed(expression, [{ at, message: syntaxMessage(e.summary ?? String(e.message).split('\n')[0]!, at, expression, scanned) }]);
  }
  const issues = referenceIssues(ast, decls, expression);
  if (issues.length) return compilationFailed(expression, issues);
  if (result === 'any') return undefined;
  const got = outputType(env, scanned.masked, ast);
  const want = RESULT_TYPES[result];
  if (got === undefined || want.accepts.includes(got)) return undefined;
  return `must evaluate to ${want.shown} but got ${got}`;
}

// ---- environments ----

const environments = new Map<string, Environment>();

/** A cel-js environment declaring what upstream's does, every variable as `dyn`. */
function environmentFor(decls: CelDeclarations): Environment {
  const key = `${decls.params}/${decls.authorizer}/${decls.variables !== undefined}`;
  let env = environments.get(key);
  if (!env) {
    // No limits of cel-js's own: upstream's parser has none on list, map or argument counts.
    env = new Environment({ enableOptionalTypes: true, limits: { maxAstNodes: 1e7, maxListElements: 1e7, maxMapEntries: 1e7, maxCallArguments: 1e7 } });
    for (const name of declaredNames(decls)) env.registerVariable(name, 'dyn');
    environments.set(key, env);
  }
  return env;
}

function declaredNames(decls: CelDeclarations): string[] {
  return [...ALWAYS_DECLARED, ...(decls.params ? ['params'] : []), ...(decls.authorizer ? ['authorizer'] : []), ...(decls.variables !== undefined ? ['variables'] : [])];
}

// ---- source scanning ----

interface Scanned {
  /** The source with the `?` of optional list and map entries blanked (cel-js parses neither). */
  readonly masked: string;
  /** Brackets still open at the end: `list`, `map`, `index` or `call`. */
  readonly open: readonly string[];
  /** The last token: `expr` for an operand, otherwise the punctuation itself. */
  readonly last: string;
}

const IDENT_START = /[A-Za-z_]/;
const IDENT_PART = /[A-Za-z0-9_]/;

/** Walks the source past strings and comments, tracking brackets. */
function scan(src: string): Scanned {
  const out = src.split('');
  const open: string[] = [];
  let last = '';
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === '/' && src[i + 1] === '/') {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    const prefix = /^(?:[rR][bB]?|[bB][rR]?)?(?=['"])/.exec(src.slice(i, i + 3));
    if (prefix && (prefix[0] !== '' || c === '"' || c === "'")) {
      i = skipString(src, i + prefix[0].length, /r/i.test(prefix[0]));
      last = 'expr';
      continue;
    }
    if (IDENT_START.test(c)) {
      const start = i;
      while (i < src.length && IDENT_PART.test(src[i]!)) i++;
      last = src.slice(start, i) === 'in' ? 'in' : 'expr';
      continue;
    }
    if (/[0-9]/.test(c)) {
      while (i < src.length && /[0-9A-Za-z.]/.test(src[i]!)) i++;
      last = 'expr';
      continue;
    }
    if (c === '?' && (last === '[' || last === '{' || (last === ',' && (open.at(-1) === 'list' || open.at(-1) === 'map')))) out[i] = ' ';
    if (c === '[') open.push(last === 'expr' ? 'index' : 'list');
    else if (c === '{') open.push('map');
    else if (c === '(') open.push('call');
    else if (c === ')' || c === ']' || c === '}') open.pop();
    if (!/\s/.test(c)) last = c === ')' || c === ']' || c === '}' ? 'expr' : c;
    i++;
  }
  return { masked: out.join(''), open, last };
}

/** The index after the string literal whose quote is at `i` (or the end, unterminated). */
function skipString(src: string, i: number, raw: boolean): number {
  const q = src[i]!;
  const triple = src.startsWith(q.repeat(3), i);
  const close = triple ? q.repeat(3) : q;
  i += close.length;
  while (i < src.length) {
    if (!raw && src[i] === '\\') i += 2;
    else if (src.startsWith(close, i)) return i + close.length;
    else if (!triple && src[i] === '\n') return i;
    else i++;
  }
  return i;
}

/**
 * The syntax error's text. A list or map left open after a trailing comma is the single missing
 * token ANTLR names (`missing ']' at '<EOF>'`), as is a missing closing parenthesis or bracket.
 */
function syntaxMessage(summary: string, at: number, src: string, scanned: Scanned): string {
  const reserved = /^Reserved identifier: (.*)$/.exec(summary);
  if (reserved) return `reserved identifier: ${reserved[1]}`;
  const closing: Record<string, string> = { RPAREN: ')', RBRACKET: ']', RBRACE: '}' };
  const expected = /^Expected (RPAREN|RBRACKET|RBRACE), got EOF$/.exec(summary);
  if (expected) return `Syntax error: missing '${closing[expected[1]!]}' at '<EOF>'`;
  if (summary === 'Unexpected token: EOF' && at >= src.length && scanned.last === ',') {
    const top = scanned.open.at(-1);
    if (top === 'list') return "Syntax error: missing ']' at '<EOF>'";
    if (top === 'map') return "Syntax error: missing '}' at '<EOF>'";
  }
  return `Syntax error: ${summary}`;
}

// ---- declarations ----

interface Issue {
  readonly at: number;
  readonly message: string;
}

const isNode = (v: unknown): v is ASTNode => typeof v === 'object' && v !== null && 'op' in v;

/** Identifiers the environment does not declare and `variables` fields not composed yet, as the checker reports them. */
function referenceIssues(root: ASTNode, decls: CelDeclarations, src: string): Issue[] {
  const declared = new Set(declaredNames(decls));
  const issues: Issue[] = [];
  const known = (name: string, bound: ReadonlySet<string>) => bound.has(name) || declared.has(name) || TYPE_IDENTS.has(name);

  const visit = (node: ASTNode, bound: ReadonlySet<string>): void => {
    switch (node.op) {
      case 'id':
        if (!known(node.args, bound)) issues.push({ at: node.start, message: `undeclared reference to '${node.args}' (in container '')` });
        return;
      case '.': {
        const [operand, name] = node.args;
        if (operand.op === 'id' && operand.args === 'variables' && decls.variables !== undefined && !bound.has('variables') && !decls.variables.includes(name)) {
          issues.push({ at: dotBefore(src, node.pos), message: `undefined field '${name}'` });
        }
        visit(operand, bound);
        return;
      }
      case 'rcall': {
        const [name, receiver, args] = node.args;
        const namespace = receiver.op === 'id' && !known(receiver.args, bound) && NAMESPACES.has(receiver.args);
        if (!namespace) visit(receiver, bound);
        const binders = bindersOf(name, namespace ? receiver.args : undefined, args);
        const inner = binders.size ? new Set([...bound, ...binders]) : bound;
        args.forEach((arg, i) => {
          if (i < binders.size && arg.op === 'id') return;
          visit(arg, inner);
        });
        return;
      }
      default:
        for (const child of children(node.args)) visit(child, bound);
    }
  };
  visit(root, new Set());
  return issues.sort((a, b) => a.at - b.at);
}

/** The comprehension variables a call binds: leading identifiers of a macro, or cel.bind's first. */
function bindersOf(name: string, namespace: string | undefined, args: readonly ASTNode[]): Set<string> {
  const binders = new Set<string>();
  if (namespace === 'cel' && name === 'bind') {
    if (args[0]?.op === 'id') binders.add(args[0].args);
    return binders;
  }
  if (namespace !== undefined || !BINDING_MACROS.has(name) || args.length < 2) return binders;
  for (const arg of args.slice(0, -1)) {
    if (arg.op !== 'id') break;
    binders.add(arg.args);
  }
  return binders;
}

function children(args: unknown): ASTNode[] {
  if (isNode(args)) return [args];
  if (Array.isArray(args)) return args.flatMap((a) => children(a));
  return [];
}

/** Where the `.` before a selected field is (upstream places select errors there). */
function dotBefore(src: string, fieldAt: number): number {
  let i = fieldAt - 1;
  while (i > 0 && src[i] !== '.') i--;
  return Math.max(i, 0);
}

// ---- result types ----

/**
 * The expression's type in upstream's spelling when it is certain: a field path from `object`,
 * `oldObject` or `params` is `dyn`; otherwise cel-js's inference when it names a concrete type
 * (a `dyn` there may be a typed value upstream, so it says nothing).
 */
function outputType(env: Environment, masked: string, ast: ASTNode): string | undefined {
  if (isDynPath(ast)) return 'dyn';
  let checked: { valid: boolean; type?: string };
  try {
    checked = env.check(masked);
  } catch {
    return undefined;
  }
  if (!checked.valid || !checked.type || checked.type === 'dyn') return undefined;
  return celGoType(checked.type);
}

function isDynPath(node: ASTNode): boolean {
  if (node.op === 'id') return DYN_ROOTS.has(node.args);
  if (node.op === '.' || node.op === '[]') return isDynPath(node.args[0]);
  return false;
}

/** cel-js's type name as cel-go prints the type (`list<int>` is `list(int)`); undefined when unsure. */
function celGoType(t: string): string | undefined {
  const m = /^([A-Za-z_.]+)(?:<(.*)>)?$/.exec(t.trim());
  if (!m) return undefined;
  const [, name, inner] = m;
  const params = inner === undefined ? [] : splitTypeArgs(inner).map(celGoType);
  if (params.some((p) => p === undefined)) return undefined;
  switch (name) {
    case 'bool':
    case 'int':
    case 'uint':
    case 'double':
    case 'string':
    case 'bytes':
    case 'dyn':
    case 'google.protobuf.Timestamp':
    case 'google.protobuf.Duration':
      return params.length ? undefined : name;
    case 'null':
      return 'null_type';
    case 'list':
      return `list(${params[0] ?? 'dyn'})`;
    case 'map':
      return `map(${params[0] ?? 'dyn'}, ${params[1] ?? 'dyn'})`;
    case 'optional':
      return `optional_type(${params[0] ?? 'dyn'})`;
    default:
      // Type parameters left open (`list<T>` of `[]`) are dyn once checked.
      return /^[A-Z]$/.test(name!) ? 'dyn' : undefined;
  }
}

function splitTypeArgs(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '<') depth++;
    else if (s[i] === '>') depth--;
    else if (s[i] === ',' && depth === 0) {
      parts.push(s.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(s.slice(start));
  return parts.map((p) => p.trim());
}

// ---- messages ----

/** `compilation failed: ` and cel-go's display of each error: position, message, source line, caret. */
function compilationFailed(src: string, issues: readonly Issue[]): string {
  return `compilation failed: ${issues.map((i) => displayIssue(src, i)).join('\n')}`;
}

function displayIssue(src: string, issue: Issue): string {
  const lineStart = src.lastIndexOf('\n', issue.at - 1) + 1;
  const lineEnd = src.indexOf('\n', lineStart);
  const lineText = src.slice(lineStart, lineEnd < 0 ? src.length : lineEnd);
  const line = src.slice(0, lineStart).split('\n').length;
  // Columns count code points; the caret line marks wide characters with full-width dots.
  const before = [...src.slice(lineStart, issue.at)];
  const under = [...src.slice(issue.at)][0];
  const dots = before.map((ch) => (ch.length > 1 || ch.charCodeAt(0) > 0x7f ? '\uff0e' : '.')).join('');
  const hat = under !== undefined && under !== '\n' && (under.length > 1 || under.charCodeAt(0) > 0x7f) ? '\uff3e' : '^';
  return `ERROR: <input>:${line}:${before.length + 1}: ${issue.message}\n | ${lineText.replace(/\t/g, ' ')}\n | ${dots}${hat}`;
}
