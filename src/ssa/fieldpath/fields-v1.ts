/**
 * FieldsV1, the JSON form of a field set in metadata.managedFields (upstream serialize.go): an object
 * keyed by path element text, `{}` for a member with nothing below it, and `".": {}` in a child that is
 * itself a member too. Keys come in path element order, members and children merged.
 */
import { FieldSet } from './field-set.ts';
import { goJsonKey } from './go-json-write.ts';
import { JsonIterator } from './go-json-read.ts';
import { comparePathElements, type PathElement } from './path-element.ts';
import { decodePathElement, pathElementText } from './path-element-text.ts';

// Calls back for each path element of the level, in serialized order, with the child set if any.
function eachEntry(set: FieldSet, entry: (pe: PathElement, isMember: boolean, child: FieldSet | undefined) => void): void {
  const members = set.memberElements();
  const children = set.childEntries();
  let m = 0;
  let c = 0;
  while (m < members.length || c < children.length) {
    const order =
      m === members.length ? 1 : c === children.length ? -1 : comparePathElements(members[m]!, children[c]![0]);
    if (order < 0) entry(members[m++]!, true, undefined);
    else if (order > 0) entry(children[c]![0], false, children[c++]![1]);
    else {
      entry(children[c]![0], true, children[c++]![1]);
      m++;
    }
  }
}

// Upstream writes the self marker only where the child has something below it.
function hasEntries(set: FieldSet): boolean {
  return set.memberElements().length > 0 || set.childEntries().length > 0;
}

function contentsText(set: FieldSet, includeSelf: boolean): string {
  let out = includeSelf && hasEntries(set) ? '".":{}' : '';
  eachEntry(set, (pe, isMember, child) => {
    if (out) out += ',';
    out += `${goJsonKey(pathElementText(pe))}:`;
    out += child ? `{${contentsText(child, isMember)}}` : '{}';
  });
  return out;
}

/** The JSON text upstream's Set.ToJSON writes, byte for byte. */
export function fieldSetToFieldsV1(set: FieldSet): string {
  return `{${contentsText(set, false)}}`;
}

// The walk of eachEntry written out, as this runs for every entry of every write.
function contentsObject(set: FieldSet, includeSelf: boolean): Record<string, unknown> {
  const members = set.memberElements();
  const children = set.childEntries();
  const out: Record<string, unknown> = {};
  if (includeSelf && (members.length > 0 || children.length > 0)) out['.'] = {};
  // Keys never look like array indexes (they start with a letter or are "."), so they keep this order.
  let m = 0;
  let c = 0;
  while (m < members.length || c < children.length) {
    const order = m === members.length ? 1 : c === children.length ? -1 : comparePathElements(members[m]!, children[c]![0]);
    if (order < 0) {
      out[pathElementText(members[m++]!)] = {};
      continue;
    }
    const [pe, child] = children[c++]!;
    // A child that is also a member gets the self marker.
    out[pathElementText(pe)] = contentsObject(child, order === 0);
    if (order === 0) m++;
  }
  return out;
}

/**
 * The same as a plain object, keys in the same order, as stored in metadata.managedFields[].fieldsV1.
 * JSON.stringify of it equals fieldSetToFieldsV1 except where a key holds \b or \f (Go writes \u0008
 * and \u000c).
 */
export function fieldSetToFieldsV1Object(set: FieldSet): Record<string, unknown> {
  return contentsObject(set, false);
}

// Upstream readIterV1: the children read at this level (null when none) and whether the path that
// led here is itself a member, which an empty object or a "." key makes it.
function readLevel(it: JsonIterator): [FieldSet | null, boolean] {
  let isMember = false;
  const members: PathElement[] = [];
  const children: [PathElement, FieldSet][] = [];
  it.readMapCB((key) => {
    if (key === '.') {
      isMember = true;
      it.skip();
      return;
    }
    let pe: PathElement | null;
    try {
      pe = decodePathElement(key);
    } catch (err) {
      return it.reportError('parsing key as path element', (err as Error).message);
    }
    if (pe === null) {
      // A kind of element this version does not know: dropped, as upstream drops it.
      it.skip();
      return;
    }
    const [grandchildren, childIsMember] = readLevel(it);
    if (childIsMember) members.push(pe);
    if (grandchildren) children.push([pe, grandchildren]);
  });
  if (members.length === 0 && children.length === 0) return [null, true];
  return [FieldSet.fromParts(members, children), isMember];
}

/** An object as JSON.parse makes them (anything else, a Date say, is left to JSON.stringify and the reader). */
function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** Keys with surrogates are left to the reader (which reads a lone one as U+FFFD). */
const SURROGATE = /[\ud800-\udfff]/;

/** Objects nested deeper than this are left to the reader (whose own limit is far deeper). */
const DIRECT_DEPTH = 64;

/**
 * readLevel over the parsed object itself, without writing it out as JSON and reading that back: the
 * same walk over the same keys in the same order (JSON.stringify writes them in Object.keys order),
 * so the same set, for FieldsV1 as this server writes it. Anything else (a value that is not a plain
 * object, a key that does not decode or is of an unknown kind, a "." that holds something, a key with
 * a surrogate, since the reader turns a lone one into U+FFFD, very deep nesting) answers undefined,
 * and the reader then goes over the whole text, for its own result or its exact error.
 */
function readObjectLevel(obj: Record<string, unknown>, depth: number): [FieldSet | null, boolean] | undefined {
  if (depth > DIRECT_DEPTH) return undefined;
  let isMember = false;
  const members: PathElement[] = [];
  const children: [PathElement, FieldSet][] = [];
  for (const key of Object.keys(obj)) {
    const value = obj[key];
    if (!isPlainObject(value)) return undefined;
    if (key === '.') {
      if (Object.keys(value).length > 0) return undefined;
      isMember = true;
      continue;
    }
    if (SURROGATE.test(key)) return undefined;
    let pe: PathElement | null;
    try {
      pe = decodePathElement(key);
    } catch {
      return undefined;
    }
    if (pe === null) return undefined;
    const read = readObjectLevel(value, depth + 1);
    if (read === undefined) return undefined;
    const [grandchildren, childIsMember] = read;
    if (childIsMember) members.push(pe);
    if (grandchildren) children.push([pe, grandchildren]);
  }
  if (members.length === 0 && children.length === 0) return [null, true];
  return [FieldSet.fromParts(members, children), isMember];
}

/**
 * Reads FieldsV1 given as the parsed object (what metadata.managedFields holds), as JSON text, or as
 * its bytes. Accepts and rejects what kube-apiserver 1.34 does, with its error text; an object is read
 * as its JSON.stringify text, so positions in error texts count bytes of that.
 */
export function fieldSetFromFieldsV1(raw: unknown): FieldSet {
  if (isPlainObject(raw)) {
    const read = readObjectLevel(raw, 0);
    if (read !== undefined) return read[0] ?? FieldSet.empty();
  }
  const bytes =
    raw instanceof Uint8Array ? raw : Buffer.from(typeof raw === 'string' ? raw : (JSON.stringify(raw) ?? ''), 'utf8');
  const [set] = readLevel(JsonIterator.ofReader(bytes));
  return set ?? FieldSet.empty();
}
