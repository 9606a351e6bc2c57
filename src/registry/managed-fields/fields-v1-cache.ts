/**
 * FieldsV1 read and written through caches. Every write decodes the fieldsV1 of every stored entry
 * and encodes every entry again, though most entries are the same from one write to the next (a
 * manager's fields change only when it writes, or when another takes fields over), and objects of
 * one shape carry the same fieldsV1 (ConfigMaps with the same keys, Pods of one template). Stored
 * objects come out of storage freshly parsed for every request, so nothing keyed by object identity
 * would survive from one request to the next: the decoding is keyed by the text.
 */
import { FieldSet, fieldSetFromFieldsV1, fieldSetToFieldsV1Object } from '../../ssa/fieldpath/index.ts';
import { BoundedCache } from '../../ssa/bounded-cache.ts';

/**
 * Field sets by the JSON text of their fieldsV1. Safe because decoding depends on nothing but that
 * text (an object is read as its JSON.stringify text in any case) and the sets handed out are
 * frozen, so no caller can change what the next one gets. Failures are not cached: they are
 * decoded again and throw again, with the same message. Bounded by entries and by the total
 * length of the texts: an entry (text, set and template below) takes about 12 bytes per character
 * of text, some 20 KB for a Pod's 1.6 KB fieldsV1, so the cache holds at most about 25 MB.
 */
const decoded = new BoundedCache<FieldSet>(1024, 2 * 1024 * 1024);

/** fieldSetFromFieldsV1 of an entry's fieldsV1 (the parsed object, or JSON text), through the cache. */
export function decodeFieldsV1(raw: unknown): FieldSet {
  if (raw instanceof Uint8Array) return fieldSetFromFieldsV1(raw);
  const text = typeof raw === 'string' ? raw : (JSON.stringify(raw) ?? '');
  let set = decoded.get(text);
  // Given the parsed object, the decoder can walk it rather than read the text (same result).
  if (set === undefined) decoded.set(text, (set = fieldSetFromFieldsV1(raw).freeze()));
  return set;
}

type Tree = { [key: string]: Tree };

/**
 * The fieldsV1 object of each frozen set encoded so far, kept as a template that is copied for
 * every entry (a copy is several times cheaper than building the object from the set). Safe because
 * a frozen set never changes, and the template itself never leaves this module: every caller gets
 * its own copy, which it may change as it likes. Weak, so a template lives as long as its set (at
 * most as long as the decode cache keeps the set, unless a caller holds on to it).
 */
const templates = new WeakMap<FieldSet, Tree>();

/** fieldSetToFieldsV1Object(set), a new object each time. */
export function encodeFieldsV1(set: FieldSet): Record<string, unknown> {
  const template = templates.get(set);
  if (template !== undefined) return copyTree(template);
  const object = fieldSetToFieldsV1Object(set);
  if (set.isFrozen()) templates.set(set, copyTree(object as Tree));
  return object;
}

/**
 * A copy of a fieldsV1 object: objects all the way down, with the same keys in the same order. No
 * key is "__proto__" (every key is "." or starts with a path element's type letter and a colon),
 * so plain assignment makes every key an own property, as the original has it.
 */
function copyTree(tree: Tree): Tree {
  const out: Tree = {};
  for (const key of Object.keys(tree)) out[key] = copyTree(tree[key]!);
  return out;
}
