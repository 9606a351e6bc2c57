/**
 * client-go's `util/jsonpath` as CRD printer columns use it: a template such as `{.status.replicas}`
 * parsed into nodes, evaluated against a decoded JSON object with missing keys allowed.
 *
 * Supported: fields (with `\.` escapes), `*` wildcards, recursive descent `..`, array indexes and
 * slices `[i]`, `[a:b:step]`, `[-1]`, dictionary keys `['k']`, unions `[0,2]`, filters
 * `[?(@.type=="Ready")]` (==, !=, <, >, <=, >= and existence), and literal text outside braces.
 * Not supported: `range`/`end` (they only matter for multi-line output, never for a column cell);
 * they fail to parse, as any unknown identifier does.
 */
import { goValue, goJson } from '../../api/go/values.ts';
import { isGoInt } from '../../api/go/number.ts';

interface Param { value: number; known: boolean; derived: boolean }

export type PathNode =
  | { kind: 'text'; text: string }
  | { kind: 'field'; name: string }
  | { kind: 'wildcard' }
  | { kind: 'recursive' }
  | { kind: 'array'; params: [Param, Param, Param] }
  | { kind: 'union'; branches: PathNode[][] }
  | { kind: 'filter'; left: PathNode[]; right: PathNode[]; operator: string }
  | { kind: 'int'; value: number }
  | { kind: 'float'; value: number }
  | { kind: 'bool'; value: boolean };

/** A parsed template: one node list per `{…}` action or stretch of literal text. */
export type PathTemplate = PathNode[][];

export class JsonPathError extends Error {}

const TERMINATORS = new Set(['', ' ', '.', ',', '[', ']', '$', '@', '{', '}']);
const SLICE = /^(-?\d*)(:-?\d*)?(:-?\d*)?$/;
const DICT_KEY = /^'([^']*)'$/;
const FILTER = /^([^!<>=]+)([!<>=]+)(.+?)$/;

function isAlphaNumeric(ch: string): boolean {
  return ch === '_' || /^[\p{L}\p{Nd}]$/u.test(ch);
}

/** Parses a template; throws JsonPathError with client-go's texts for what it rejects. */
export function parseJsonPath(template: string): PathTemplate {
  const out: PathTemplate = [];
  let pos = 0;
  while (pos < template.length) {
    const open = template.indexOf('{', pos);
    if (open < 0) {
      out.push([{ kind: 'text', text: template.slice(pos) }]);
      break;
    }
    if (open > pos) out.push([{ kind: 'text', text: template.slice(pos, open) }]);
    const action = new ActionParser(template, open + 1);
    out.push(action.parse());
    pos = action.pos;
  }
  return out;
}

/** Parses the inside of one `{…}`, leaving `pos` after its closing brace. */
class ActionParser {
  readonly nodes: PathNode[] = [];
  constructor(private readonly input: string, public pos: number) {}

  parse(): PathNode[] {
    for (;;) {
      const rest = this.input.slice(this.pos);
      if (rest.startsWith('}')) {
        this.pos++;
        return this.nodes;
      }
      if (rest.startsWith('[?(')) { this.filter(); continue; }
      if (rest.startsWith('..')) { this.recursive(); continue; }
      const ch = rest[0] ?? '';
      if (ch === '' || ch === '\n' || ch === '\r') throw new JsonPathError('unclosed action');
      if (ch === ' ' || ch === '@' || ch === '$') { this.pos++; continue; }
      if (ch === '[') { this.array(); continue; }
      if (ch === '"' || ch === "'") { this.quote(ch); continue; }
      if (ch === '.') { this.pos++; this.field(); continue; }
      if (ch === '+' || ch === '-' || /\d/.test(ch)) { this.number(); continue; }
      if (isAlphaNumeric(ch)) { this.identifier(); continue; }
      throw new JsonPathError(`unrecognized character in action: U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} '${ch}'`);
    }
  }

  private field(): void {
    let name = '';
    while (this.pos < this.input.length) {
      const ch = this.input[this.pos]!;
      // A backslash keeps the next character (e.g. `\.`) in the name.
      if (ch === '\\' && this.pos + 1 < this.input.length) {
        name += this.input[this.pos + 1];
        this.pos += 2;
        continue;
      }
      if (TERMINATORS.has(ch)) break;
      name += ch;
      this.pos++;
    }
    this.nodes.push(name === '*' ? { kind: 'wildcard' } : { kind: 'field', name });
  }

  private recursive(): void {
    if (this.nodes.at(-1)?.kind === 'recursive') throw new JsonPathError('invalid multiple recursive descent');
    this.pos += 2;
    this.nodes.push({ kind: 'recursive' });
    const next = this.input[this.pos] ?? '';
    if (next !== '' && isAlphaNumeric(next)) this.field();
  }

  private array(): void {
    const close = this.input.indexOf(']', this.pos);
    const newline = this.input.indexOf('\n', this.pos);
    if (close < 0 || (newline >= 0 && newline < close)) throw new JsonPathError('unterminated array');
    let text = this.input.slice(this.pos + 1, close);
    this.pos = close + 1;
    if (text === '*') text = ':';
    const parts = text.split(',');
    if (parts.length > 1) {
      this.nodes.push({ kind: 'union', branches: parts.map((p) => parseAction(`[${p.trim()}]`)) });
      return;
    }
    const key = DICT_KEY.exec(text);
    if (key) {
      // Upstream re-parses the key as `.key`, so a dotted key names nested fields.
      this.nodes.push(...parseAction(`.${key[1]}`));
      return;
    }
    const m = SLICE.exec(text);
    if (!m) throw new JsonPathError(`invalid array index ${text}`);
    const params: [Param, Param, Param] = [
      { value: 0, known: false, derived: false },
      { value: 0, known: false, derived: false },
      { value: 0, known: false, derived: false },
    ];
    for (let i = 0; i < 3; i++) {
      let v = m[i + 1] ?? '';
      if (v !== '') {
        if (i > 0) v = v.slice(1);
        if (i > 0 && v === '') continue;
        const n = Number.parseInt(v, 10);
        if (Number.isNaN(n)) throw new JsonPathError(`array index ${v} is not a number`);
        params[i] = { value: n, known: true, derived: false };
      } else if (i === 1) {
        // A single index `[n]` is the slice `[n:n+1]`.
        params[1] = { value: params[0].value + 1, known: true, derived: true };
      }
    }
    this.nodes.push({ kind: 'array', params });
  }

  private filter(): void {
    const start = this.pos + 3;
    let i = start;
    let begin = false;
    let end = false;
    let pair = '';
    for (;; i++) {
      const ch = this.input[i] ?? '';
      if (ch === '' || ch === '\n') throw new JsonPathError('unterminated filter');
      if (ch === '"' || ch === "'") {
        if (!begin) { begin = true; pair = ch; continue; }
        if (this.input[i - 1] !== '\\' && ch === pair) end = true;
      } else if (ch === ')' && begin === end) {
        break;
      }
    }
    if (this.input[i + 1] !== ']') throw new JsonPathError('unclosed array expect ]');
    const text = this.input.slice(start, i);
    this.pos = i + 2;
    const m = FILTER.exec(text);
    if (!m) this.nodes.push({ kind: 'filter', left: parseAction(text), right: [], operator: 'exists' });
    else this.nodes.push({ kind: 'filter', left: parseAction(m[1]!), right: parseAction(m[3]!), operator: m[2]! });
  }

  private quote(q: string): void {
    let i = this.pos + 1;
    for (;; i++) {
      const ch = this.input[i] ?? '';
      if (ch === '' || ch === '\n') throw new JsonPathError('unterminated quoted string');
      if (ch === '\\') { i++; continue; }
      if (ch === q) break;
    }
    const body = this.input.slice(this.pos + 1, i);
    this.pos = i + 1;
    this.nodes.push({ kind: 'text', text: unescape(body) });
  }

  private number(): void {
    let i = this.pos + 1;
    while (i < this.input.length && /[\d.eE+-]/.test(this.input[i]!)) i++;
    const text = this.input.slice(this.pos, i);
    this.pos = i;
    const isFloat = text.includes('.');
    const n = isFloat ? Number(text) : Number.parseInt(text, 10);
    if (Number.isNaN(n) || (!isFloat && !/^[+-]?\d+$/.test(text))) throw new JsonPathError(`cannot parse number ${text}`);
    this.nodes.push(isFloat ? { kind: 'float', value: n } : { kind: 'int', value: n });
  }

  private identifier(): void {
    let i = this.pos;
    while (i < this.input.length && isAlphaNumeric(this.input[i]!)) i++;
    const word = this.input.slice(this.pos, i);
    this.pos = i;
    if (word === 'true' || word === 'false') this.nodes.push({ kind: 'bool', value: word === 'true' });
    else throw new JsonPathError(`unrecognized identifier ${word}`);
  }
}

function unescape(s: string): string {
  const map: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"', "'": "'" };
  return s.replace(/\\(.)/g, (_m, c: string) => map[c] ?? c);
}

/** Parses a fragment as the inside of one action (as upstream's parseAction does). */
function parseAction(text: string): PathNode[] {
  const p = new ActionParser(`${text}}`, 0);
  const nodes = p.parse();
  if (p.pos !== text.length + 1) throw new JsonPathError('unclosed action');
  return nodes;
}

// ---- evaluation ----

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * client-go's FindResults with AllowMissingKeys(true): per template part, the values found.
 * Errors (indexing a non-array, out-of-range indexes, bad comparisons) throw JsonPathError.
 */
export function findResults(template: PathTemplate, data: unknown): unknown[][] {
  return template.map((nodes) => evalList([data], nodes));
}

function evalList(input: unknown[], nodes: PathNode[]): unknown[] {
  let cur = input;
  for (const node of nodes) cur = evalNode(cur, node);
  return cur;
}

function evalNode(input: unknown[], node: PathNode): unknown[] {
  switch (node.kind) {
    case 'text': return [node.text];
    case 'int': case 'float': case 'bool': return [node.value];
    case 'field': return input.flatMap((v) => (isMap(v) && Object.hasOwn(v, node.name) ? [v[node.name]] : []));
    case 'wildcard': return input.flatMap((v) => (isMap(v) ? Object.keys(v).sort().map((k) => v[k]) : Array.isArray(v) ? v : []));
    case 'recursive': return evalRecursive(input);
    case 'array': return input.flatMap((v) => evalArray(v, node.params));
    case 'union': return node.branches.flatMap((b) => evalList(input, b));
    case 'filter': return input.flatMap((v) => evalFilter(v, node));
  }
}

/** Every container at or under the inputs (a leaf is not itself a result). */
function evalRecursive(input: unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const v of input) {
    const children = isMap(v) ? Object.keys(v).sort().map((k) => v[k]) : Array.isArray(v) ? v : [];
    if (children.length === 0) continue;
    out.push(v, ...evalRecursive(children));
  }
  return out;
}

function evalArray(value: unknown, params: [Param, Param, Param]): unknown[] {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value)) throw new JsonPathError(`${typeName(value)} is not array or slice`);
  const len = value.length;
  let start = params[0].known ? params[0].value : 0;
  if (start < 0) start += len;
  let end = params[1].known ? params[1].value : len;
  if (end < 0 || (end === 0 && params[1].derived)) end += len;
  if (start === end) return [];
  if (start >= len || start < 0) throw new JsonPathError(`array index out of bounds: index ${start}, length ${len}`);
  if (end > len || end < 0) throw new JsonPathError(`array index out of bounds: index ${end - 1}, length ${len}`);
  if (start > end) throw new JsonPathError(`starting index ${start} is greater than ending index ${end}`);
  let step = 1;
  if (params[2].known) {
    if (params[2].value <= 0) throw new JsonPathError('step must be > 0');
    step = params[2].value;
  }
  const out: unknown[] = [];
  for (let i = start; i < end; i += step) out.push(value[i]);
  return out;
}

function evalFilter(value: unknown, node: Extract<PathNode, { kind: 'filter' }>): unknown[] {
  if (!Array.isArray(value)) throw new JsonPathError(`${goValue(value)} is not array or slice and cannot be filtered`);
  const out: unknown[] = [];
  for (const item of value) {
    const lefts = evalListSafe([item], node.left);
    if (node.operator === 'exists') {
      if (!(lefts instanceof Error) && lefts.length > 0) out.push(item);
      continue;
    }
    if (lefts instanceof Error) throw lefts;
    if (lefts.length === 0) continue;
    if (lefts.length > 1) throw new JsonPathError('can only compare one element at a time');
    const rights = evalList([item], node.right);
    if (rights.length === 0) continue;
    if (rights.length > 1) throw new JsonPathError('can only compare one element at a time');
    if (compare(lefts[0], rights[0], node.right[0], node.operator)) out.push(item);
  }
  return out;
}

function evalListSafe(input: unknown[], nodes: PathNode[]): unknown[] | Error {
  try {
    return evalList(input, nodes);
  } catch (e) {
    return e as Error;
  }
}

/** Go template kinds of a decoded JSON value, for text/template's comparison rules. */
function kindOf(v: unknown, literal?: PathNode): string {
  if (v === null || v === undefined) return 'invalid';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') {
    if (literal?.kind === 'int') return 'int';
    if (literal?.kind === 'float') return 'float';
    return isGoInt(v) ? 'int' : 'float';
  }
  return 'complex';
}

/** text/template's eq/ne/lt/le/gt/ge on two decoded values. */
function compare(left: unknown, right: unknown, rightNode: PathNode | undefined, op: string): boolean {
  const k1 = kindOf(left);
  const k2 = kindOf(right, rightNode);
  if (op === '==' || op === '!=') {
    if (k1 === 'complex' || k2 === 'complex') throw new JsonPathError('non-comparable type');
    let eq: boolean;
    if (k1 !== k2) {
      if (k1 !== 'invalid' && k2 !== 'invalid') throw new JsonPathError('incompatible types for comparison');
      eq = false;
    } else {
      eq = k1 === 'invalid' ? true : left === right;
    }
    return op === '==' ? eq : !eq;
  }
  if (!['<', '>', '<=', '>='].includes(op)) throw new JsonPathError(`unrecognized filter operator ${op}`);
  if (k1 === 'invalid' || k2 === 'invalid' || k1 === 'bool' || k1 === 'complex' || k2 === 'complex') throw new JsonPathError('invalid type for comparison');
  if (k1 !== k2) throw new JsonPathError('incompatible types for comparison');
  const a = left as number | string;
  const b = right as number | string;
  switch (op) {
    case '<': return a < b;
    case '>': return a > b;
    case '<=': return a <= b;
    default: return a >= b;
  }
}

function typeName(v: unknown): string {
  if (isMap(v)) return 'map[string]interface {}';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return isGoInt(v) ? 'int64' : 'float64';
  return 'interface {}';
}

/**
 * client-go's PrintResults of one value: maps and arrays as compact JSON (sorted keys), anything
 * else as fmt.Fprint prints it, with a JSON null as text/template's `<no value>`.
 */
export function printResult(value: unknown): string {
  if (value === null || value === undefined) return '<no value>';
  if (typeof value === 'object') return goJson(value);
  return goValue(value);
}
