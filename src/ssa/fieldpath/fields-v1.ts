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

function contentsObject(set: FieldSet, includeSelf: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (includeSelf && hasEntries(set)) out['.'] = {};
  // Keys never look like array indexes (they start with a letter or are "."), so they keep this order.
  eachEntry(set, (pe, isMember, child) => {
    out[pathElementText(pe)] = child ? contentsObject(child, isMember) : {};
  });
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

/**
 * Reads FieldsV1 given as the parsed object (what metadata.managedFields holds), as JSON text, or as
 * its bytes. Accepts and rejects what kube-apiserver 1.34 does, with its error text; an object is read
 * as its JSON.stringify text, so positions in error texts count bytes of that.
 */
export function fieldSetFromFieldsV1(raw: unknown): FieldSet {
  const bytes =
    raw instanceof Uint8Array ? raw : Buffer.from(typeof raw === 'string' ? raw : (JSON.stringify(raw) ?? ''), 'utf8');
  const [set] = readLevel(JsonIterator.ofReader(bytes));
  return set ?? FieldSet.empty();
}
