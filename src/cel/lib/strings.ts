/**
 * cel-go's strings extension at version 2, what Kubernetes 1.34 enables: charAt, indexOf,
 * lastIndexOf, lowerAscii, upperAscii, replace, split, substring, trim, join, strings.quote and
 * format. Indexes count code points; `reverse` is version 3 and so absent. Costs are those
 * Kubernetes' cost estimator charges (it takes precedence over cel-go's defaults).
 */
import { evalError } from '../errors.ts';
import { actualSize, type CelValue } from '../values.ts';
import { ceilCost, global, member, STRING_TRAVERSAL, type Overload } from './overload.ts';
import { formatString } from './string-format.ts';
import { traversalCost } from './traversal.ts';

const outOfRange = (i: bigint | number) => evalError(`index out of range: ${i}`);

function charAt(s: string, i: bigint): string {
  const runes = [...s];
  if (i < 0n || i > BigInt(runes.length)) throw outOfRange(i);
  return i === BigInt(runes.length) ? '' : runes[Number(i)]!;
}

function findRunes(runes: readonly string[], sub: readonly string[], at: number): boolean {
  for (let j = 0; j < sub.length; j++) if (runes[at + j] !== sub[j]) return false;
  return true;
}

function indexOf(s: string, sub: string, offset: bigint): bigint {
  if (sub === '') return offset;
  const runes = [...s];
  const subRunes = [...sub];
  if (offset < 0n) throw outOfRange(offset);
  if (offset >= BigInt(runes.length)) return -1n;
  for (let i = Number(offset); i < runes.length - (subRunes.length - 1); i++) if (findRunes(runes, subRunes, i)) return BigInt(i);
  return -1n;
}

function lastIndexOf(s: string, sub: string, offset?: bigint): bigint {
  const runes = [...s];
  if (offset === undefined) {
    if (sub === '') return BigInt(runes.length);
    // cel-go compares byte lengths here.
    if (Buffer.byteLength(s) < Buffer.byteLength(sub)) return -1n;
    offset = BigInt(runes.length - 1);
  }
  if (sub === '') return offset;
  const subRunes = [...sub];
  if (offset < 0n) throw outOfRange(offset);
  if (offset >= BigInt(runes.length)) return -1n;
  let off = Number(offset);
  if (off > runes.length - subRunes.length) off = runes.length - subRunes.length;
  for (let i = off; i >= 0; i--) if (findRunes(runes, subRunes, i)) return BigInt(i);
  return -1n;
}

/** Changes ASCII letters only, as lowerASCII/upperASCII do. */
function mapAscii(s: string, upper: boolean): string {
  return upper ? s.replace(/[a-z]+/g, (m) => m.toUpperCase()) : s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

/** Go's strings.Replace(s, old, new, n): n < 0 means all; an empty old matches before every code point and at the end. */
function replace(s: string, old: string, rep: string, n: bigint): string {
  if (n === 0n || old === rep) return s;
  if (old === '') {
    const runes = [...s];
    let out = '';
    let done = 0n;
    for (let i = 0; i <= runes.length; i++) {
      if (n < 0n || done < n) {
        out += rep;
        done++;
      }
      if (i < runes.length) out += runes[i];
    }
    return out;
  }
  if (n < 0n) return s.split(old).join(rep);
  let out = '';
  let pos = 0;
  for (let done = 0n; done < n; done++) {
    const at = s.indexOf(old, pos);
    if (at < 0) break;
    out += s.slice(pos, at) + rep;
    pos = at + old.length;
  }
  return out + s.slice(pos);
}

/** Go's strings.SplitN: n == 0 gives nothing, n < 0 everything; an empty separator splits code points. */
function split(s: string, sep: string, n: bigint): string[] {
  if (n === 0n) return [];
  if (sep === '') {
    const runes = [...s];
    if (n < 0n || n >= BigInt(runes.length)) return runes;
    const k = Number(n);
    return [...runes.slice(0, k - 1), runes.slice(k - 1).join('')];
  }
  const parts = s.split(sep);
  if (n < 0n || BigInt(parts.length) <= n) return parts;
  const k = Number(n);
  return [...parts.slice(0, k - 1), parts.slice(k - 1).join(sep)];
}

function substring(s: string, start: bigint, end?: bigint): string {
  const runes = [...s];
  const len = BigInt(runes.length);
  if (end === undefined) {
    if (start < 0n || start > len) throw outOfRange(start);
    return runes.slice(Number(start)).join('');
  }
  if (start > end) throw evalError(`invalid substring range. start: ${start}, end: ${end}`);
  if (start < 0n || start > len) throw outOfRange(start);
  if (end < 0n || end > len) throw outOfRange(end);
  return runes.slice(Number(start), Number(end)).join('');
}

/** unicode.IsSpace, which Go's strings.TrimSpace trims (JavaScript's trim differs at U+0085 and U+FEFF). */
const SPACE = '\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const TRIM = new RegExp(`^[${SPACE}]+|[${SPACE}]+$`, 'g');

function join(list: readonly CelValue[], sep: string): string {
  let out = '';
  for (let i = 0; i < list.length; i++) {
    const el = list[i]!;
    if (typeof el !== 'string') throw evalError(`join: invalid input: ${String(el)}`);
    if (i > 0) out += sep;
    out += el;
  }
  return out;
}

const QUOTE_ESCAPES: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v', '\\': '\\\\', '"': '\\"' };

/** strings.quote: double quotes, C escapes for control characters, everything else as it is. */
function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    out += QUOTE_ESCAPES[ch] ?? (cp >= 0xd800 && cp <= 0xdfff ? '\ufffd' : ch);
  }
  return `${out}"`;
}

const first = (args: readonly CelValue[]) => ceilCost(actualSize(args[0]!), STRING_TRAVERSAL);
const firstTwice = (args: readonly CelValue[]) => ceilCost(actualSize(args[0]!), 2 * STRING_TRAVERSAL);
const traversal = (args: readonly CelValue[]) => traversalCost(args[0]!);

export const stringsOverloads: readonly Overload[] = [
  member('string_char_at_int', 'charAt', ['string', 'int'], 'string', ([s, i]) => charAt(s as string, i as bigint)),
  member('string_index_of_string', 'indexOf', ['string', 'string'], 'int', ([s, sub]) => indexOf(s as string, sub as string, 0n), { cost: traversal }),
  member('string_index_of_string_int', 'indexOf', ['string', 'string', 'int'], 'int', ([s, sub, off]) => indexOf(s as string, sub as string, off as bigint), { cost: traversal }),
  member('string_last_index_of_string', 'lastIndexOf', ['string', 'string'], 'int', ([s, sub]) => lastIndexOf(s as string, sub as string), { cost: traversal }),
  member('string_last_index_of_string_int', 'lastIndexOf', ['string', 'string', 'int'], 'int', ([s, sub, off]) => lastIndexOf(s as string, sub as string, off as bigint), { cost: traversal }),
  member('string_lower_ascii', 'lowerAscii', ['string'], 'string', ([s]) => mapAscii(s as string, false), { cost: first }),
  member('string_upper_ascii', 'upperAscii', ['string'], 'string', ([s]) => mapAscii(s as string, true), { cost: first }),
  member('string_replace_string_string', 'replace', ['string', 'string', 'string'], 'string', ([s, o, n]) => replace(s as string, o as string, n as string, -1n), { cost: firstTwice }),
  member('string_replace_string_string_int', 'replace', ['string', 'string', 'string', 'int'], 'string', ([s, o, n, k]) => replace(s as string, o as string, n as string, k as bigint), { cost: firstTwice }),
  member('string_split_string', 'split', ['string', 'string'], 'list<string>', ([s, sep]) => split(s as string, sep as string, -1n), { cost: firstTwice }),
  member('string_split_string_int', 'split', ['string', 'string', 'int'], 'list<string>', ([s, sep, n]) => split(s as string, sep as string, n as bigint), { cost: firstTwice }),
  member('string_substring_int', 'substring', ['string', 'int'], 'string', ([s, a]) => substring(s as string, a as bigint), { cost: first }),
  member('string_substring_int_int', 'substring', ['string', 'int', 'int'], 'string', ([s, a, b]) => substring(s as string, a as bigint, b as bigint), { cost: first }),
  member('string_trim', 'trim', ['string'], 'string', ([s]) => (s as string).replace(TRIM, ''), { cost: first }),
  member('list_join', 'join', ['list<string>'], 'string', ([l]) => join(l as readonly CelValue[], ''), { cost: (_, r) => ceilCost(actualSize(r), 2 * STRING_TRAVERSAL) }),
  member('list_join_string', 'join', ['list<string>', 'string'], 'string', ([l, sep]) => join(l as readonly CelValue[], sep as string), { cost: (_, r) => ceilCost(actualSize(r), 2 * STRING_TRAVERSAL) }),
  global('strings_quote', 'strings.quote', ['string'], 'string', ([s]) => quote(s as string), { cost: first }),
  member('string_format', 'format', ['string', 'list<dyn>'], 'string', ([f, args]) => formatString(f as string, args as readonly CelValue[]), { cost: first }),
];
