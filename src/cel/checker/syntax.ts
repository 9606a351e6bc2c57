/**
 * Parsing with cel-js, reported as cel-go's ANTLR parser reports it. cel-js parses neither optional
 * list elements nor optional map entries (`[?x]`, `{?k: v}`), so their `?` is blanked before parsing
 * and the entries are remembered by position. cel-js's syntax errors are restated in ANTLR's words
 * for the usual mistakes: an expression that ends too early, a bracket left open, a stray token,
 * a character no token starts with, a reserved word.
 */
import type { Environment } from '@marcbachmann/cel-js';
import type { Issue } from '../errors.ts';
import type { Node } from './ast.ts';

/** What may start an expression, as ANTLR lists it. */
const EXPR_START = "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";

export interface Parsed {
  readonly ast: Node;
  /** Runs cel-js's type check over the AST (recording each node's checkedType). */
  readonly check: () => { valid: boolean; type?: string; error?: unknown };
  /** Offsets (in the source) of the elements and map keys written with a leading `?`. */
  readonly optionalEntries: ReadonlySet<number>;
}

export function parse(env: Environment, source: string): Parsed | Issue[] {
  const scanned = scan(source);
  const issues: Issue[] = [];
  let text = scanned.masked;
  // ANTLR's lexer skips a character no token starts with and goes on, so one stray character
  // yields its own error and whatever the rest then lacks; the rest is parsed without it here.
  for (let attempt = 0; attempt < 10; attempt++) {
    try {
      const parsed = env.parse(text);
      if (issues.length > 0) return issues;
      return { ast: parsed.ast as unknown as Node, check: () => parsed.check() as never, optionalEntries: scanned.optionalEntries };
    } catch (err) {
      const e = err as { summary?: string; message?: string; range?: { start: number } };
      const summary = e.summary ?? String(e.message).split('\n')[0]!;
      const at = e.range?.start ?? 0;
      const issue = syntaxIssue(summary, at, source, scanned);
      issues.push(issue);
      if (!issue.message.startsWith('Syntax error: token recognition error') || at >= text.length) return issues;
      text = `${text.slice(0, at)} ${text.slice(at + 1)}`;
    }
  }
  return issues;
}

interface Scanned {
  readonly masked: string;
  readonly optionalEntries: Set<number>;
  /** Brackets still open at the end: `list`, `map`, `index` or `call`. */
  readonly open: readonly string[];
  /** The last token: `expr` for an operand, otherwise the punctuation itself. */
  readonly last: string;
}

const IDENT_START = /[A-Za-z_]/;
const IDENT_PART = /[A-Za-z0-9_]/;

/** Walks the source past strings and comments, tracking brackets, blanking optional-entry markers. */
function scan(src: string): Scanned {
  const out = src.split('');
  const open: string[] = [];
  const optionalEntries = new Set<number>();
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
    // `[?x]` in a list literal and `{?k: v}` in a map are optional entries; `a[?k]` is an optional index.
    if (c === '?' && (last === '[' || last === '{' || last === ',') && (open.at(-1) === 'list' || open.at(-1) === 'map')) {
      out[i] = ' ';
      let j = i + 1;
      while (j < src.length && /\s/.test(src[j]!)) j++;
      optionalEntries.add(j);
    }
    if (c === '[') open.push(last === 'expr' ? 'index' : 'list');
    else if (c === '{') open.push('map');
    else if (c === '(') open.push('call');
    else if (c === ')' || c === ']' || c === '}') open.pop();
    if (!/\s/.test(c)) last = c === ')' || c === ']' || c === '}' ? 'expr' : c;
    i++;
  }
  return { masked: out.join(''), optionalEntries, open, last };
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

/** The token that starts at `at`, as ANTLR would print it. */
function tokenAt(src: string, at: number): { text: string; end: number } {
  if (at >= src.length) return { text: '<EOF>', end: at };
  const rest = src.slice(at);
  const m =
    /^(?:[rR]?[bB]?[rR]?(?:"""[\s\S]*?"""|'''[\s\S]*?'''|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')|[A-Za-z_][A-Za-z0-9_]*|0[xX][0-9a-fA-F]+[uU]?|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?[uU]?|==|!=|<=|>=|&&|\|\||[-+*/%<>!?:.,()[\]{}])/.exec(rest);
  const text = m ? m[0] : rest[0]!;
  return { text, end: at + text.length };
}

/** Whether a token can begin an expression. */
function startsExpression(tok: string): boolean {
  return tok !== '<EOF>' && (/^[A-Za-z_0-9"'.]/.test(tok) || ['[', '{', '(', '-', '!'].includes(tok));
}

function nextTokenStart(src: string, from: number): number {
  let i = from;
  for (;;) {
    while (i < src.length && /\s/.test(src[i]!)) i++;
    if (src.startsWith('//', i)) {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    return i;
  }
}

function syntaxIssue(summary: string, at: number, src: string, scanned: Scanned): Issue {
  // cel-js checks a macro's iteration variable while parsing; cel-go's macro expanders word it so.
  const macroVar = /^(\w+)\(var, .*\) invalid predicate iteration variable$/.exec(summary);
  if (macroVar) return { at, message: macroVar[1] === 'map' || macroVar[1] === 'filter' ? 'argument is not an identifier' : 'argument must be a simple name' };
  const reserved = /^Reserved identifier: (.*)$/.exec(summary);
  if (reserved) return { at, message: `reserved identifier: ${reserved[1]}` };
  const closing: Record<string, string> = { RPAREN: ')', RBRACKET: ']', RBRACE: '}' };
  const expected = /^Expected (RPAREN|RBRACKET|RBRACE|COLON|IDENTIFIER), got (\w+)$/.exec(summary);
  if (expected && expected[2] === 'EOF' && closing[expected[1]!]) return { at, message: `Syntax error: missing '${closing[expected[1]!]}' at '<EOF>'` };
  if (/^Unexpected character: (?!')/.test(summary) || /^(?:Unterminated|Newlines not allowed|Invalid|Octal|\\)/.test(summary)) {
    return { at, message: `Syntax error: token recognition error at: '${src.slice(at, at + 1)}'` };
  }
  if (summary === 'Unexpected token: EOF' && at >= src.length) {
    if (scanned.last === ',') {
      const top = scanned.open.at(-1);
      if (top === 'list') return { at, message: "Syntax error: missing ']' at '<EOF>'" };
      if (top === 'map') return { at, message: "Syntax error: missing '}' at '<EOF>'" };
    }
    return { at, message: `Syntax error: mismatched input '<EOF>' expecting ${EXPR_START}` };
  }
  const tok = tokenAt(src, at);
  if (/^Unexpected character: '/.test(summary)) {
    // A complete expression followed by more: one stray token is "extraneous", more are "mismatched".
    const after = tokenAt(src, nextTokenStart(src, tok.end));
    return { at, message: `Syntax error: ${after.text === '<EOF>' ? 'extraneous' : 'mismatched'} input '${tok.text}' expecting <EOF>` };
  }
  if (/^Unexpected token: /.test(summary) || (expected && !closing[expected[1]!])) {
    const after = tokenAt(src, nextTokenStart(src, tok.end));
    const kind = startsExpression(after.text) ? 'extraneous' : 'mismatched';
    return { at, message: `Syntax error: ${kind} input '${tok.text}' expecting ${EXPR_START}` };
  }
  if (expected) return { at, message: `Syntax error: mismatched input '${tok.text}' expecting '${closing[expected[1]!]}'` };
  return { at, message: `Syntax error: ${summary}` };
}
