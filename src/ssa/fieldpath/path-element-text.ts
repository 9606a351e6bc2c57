/**
 * The text of a path element as a FieldsV1 key (upstream serialize-pe.go): `f:<name>`,
 * `k:{"name":"c","port":80}`, `v:"value"`, `i:3`.
 */
import { goQuote } from '../../api/go/quote.ts';
import { BoundedCache } from '../bounded-cache.ts';
import { goJsonKey, goJsonValue } from './go-json-write.ts';
import { JsonIterator } from './go-json-read.ts';
import { sortKeyFields } from './key-fields.ts';
import type { JsonValue, PathElement } from './path-element.ts';

export function pathElementText(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `f:${pe.name}`;
    case 'key':
      return `k:{${pe.fields.map(([name, v]) => `${goJsonKey(name)}:${goJsonValue(v)}`).join(',')}}`;
    case 'value':
      return `v:${goJsonValue(pe.value)}`;
    case 'index':
      return `i:${pe.index}`;
  }
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

// strconv.Atoi: an optional sign and decimal digits, within int64.
function atoi(text: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw new Error(`strconv.Atoi: parsing ${goQuote(text)}: invalid syntax`);
  const n = BigInt(text[0] === '+' ? text.slice(1) : text);
  if (n < INT64_MIN || n > INT64_MAX) throw new Error(`strconv.Atoi: parsing ${goQuote(text)}: value out of range`);
  return Number(n);
}

/**
 * Upstream DeserializePathElement: the element, or null for a type letter it does not know (FieldsV1
 * readers drop those, leaving room for future kinds). Throws with upstream's message otherwise.
 *
 * As in kube-apiserver 1.34 (structured-merge-diff v6.3), the JSON in a `k:` or `v:` element is read up
 * to the end of its value and anything after it is ignored; later releases reject trailing data.
 */
export function decodePathElement(text: string): PathElement | null {
  // Upstream works on bytes: the text needs two, of which the second must be the colon. (Two UTF-16
  // units are at least two bytes, so only a shorter text needs counting.)
  if (text.length < 2 && Buffer.byteLength(text, 'utf8') < 2) throw new Error('key must be 2 characters long:');
  if (text.charCodeAt(0) >= 0x80 || text[1] !== ':') throw new Error(`missing colon: ${text}`);
  const rest = text.slice(2);
  switch (text[0]) {
    case 'f':
      return { kind: 'field', name: rest };
    case 'v':
    case 'k': {
      let pe = jsonElements.get(text);
      if (pe === undefined) jsonElements.set(text, (pe = decodeJsonElement(text[0], rest)));
      return pe;
    }
    case 'i':
      return { kind: 'index', index: atoi(rest) };
    default:
      return null;
  }
}

/**
 * `k:` and `v:` elements by their text: reading their JSON is most of the work of decoding FieldsV1,
 * and the same items (containers, ports, env vars by name) come by in every entry of every object of
 * a kind. Decoding is a pure function of the text and path elements are never changed once made
 * (sets share them freely), so one element can stand for every decoding of its text. Failures throw
 * every time, uncached.
 */
const jsonElements = new BoundedCache<PathElement>(4096, 1024 * 1024);

function decodeJsonElement(kind: 'k' | 'v', rest: string): PathElement {
  if (kind === 'v') return { kind: 'value', value: JsonIterator.ofBytes(Buffer.from(rest, 'utf8')).read() };
  const it = JsonIterator.ofBytes(Buffer.from(rest, 'utf8'));
  const fields: [string, JsonValue][] = [];
  it.readObjectCB((name) => fields.push([name, it.read()]));
  return { kind: 'key', fields: sortKeyFields(fields) };
}

/** The inverse of pathElementText; throws with upstream's message on malformed or unknown text. */
export function parsePathElement(text: string): PathElement {
  const pe = decodePathElement(text);
  if (pe === null) throw new Error('unknown path element type');
  return pe;
}
