/**
 * The uniqueness invariants of `x-kubernetes-list-type` lists (upstream's
 * listtype.ValidateListSetsAndMaps): a `set` holds no value twice, a `map` list holds objects (or
 * null) with no two items of equal keys. A duplicate is reported once, at its second appearance, as
 * `Duplicate value: <item>` (for maps, the item's keys: `{"name":"a"}`; `{}` when a key is missing).
 *
 * On updates upstream ratchets this: the new object is checked only when the old one passed.
 */
import type { FieldError } from '../../api/errors.ts';
import * as field from '../../registry/validation/field.ts';
import type { FieldPath, PathLike } from '../../registry/validation/field.ts';
import { propertyOf, type Structural } from './structural.ts';
import { isJsonObject, type JsonObject } from './json.ts';
import { rootPath } from './field-errors.ts';

/** The set and map-list problems of `obj` (an object) under `s`; `root` is its path. */
export function validateListSetsAndMaps(root: PathLike | undefined, s: Structural | undefined, obj: unknown): FieldError[] {
  if (!s || !isJsonObject(obj)) return [];
  const errs: FieldError[] = [];
  walkObject(rootPath(root), s, obj, errs);
  return errs;
}

function walkObject(p: FieldPath, s: Structural, obj: JsonObject, errs: FieldError[]): void {
  const ap = s.additionalProperties?.structural;
  if (ap) for (const k of Object.keys(obj)) walkValue(p.key(k), ap, obj[k], errs);
  if (s.properties) {
    for (const k of Object.keys(obj)) {
      const sub = propertyOf(s, k);
      if (sub) walkValue(p.child(k), sub, obj[k], errs);
    }
  }
}

function walkValue(p: FieldPath, s: Structural, v: unknown, errs: FieldError[]): void {
  if (Array.isArray(v)) walkArray(p, s, v, errs);
  else if (isJsonObject(v)) walkObject(p, s, v, errs);
}

function walkArray(p: FieldPath, s: Structural, arr: unknown[], errs: FieldError[]): void {
  if (s.xListType === 'set') {
    for (const i of duplicateIndexes(arr)) errs.push(field.duplicate(p.index(i), arr[i]));
  } else if (s.xListType === 'map') {
    errs.push(...mapListErrors(p, s, arr));
  }
  if (s.items) for (let i = 0; i < arr.length; i++) walkValue(p.index(i), s.items, arr[i], errs);
}

/** A scalar or compound value's identity (compounds by their JSON, as upstream marshals them). */
function identity(v: unknown): string {
  if (typeof v === 'object' && v !== null) return `j${stableJson(v)}`;
  if (v === UNSPECIFIED) return 'u';
  return `${typeof v}:${String(v)}`;
}

/** JSON with object keys sorted (Go's json.Marshal of a map). */
function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (isJsonObject(v)) {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson(v[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

const UNSPECIFIED = Symbol('unspecified key');

/** The index of each value's second appearance (later ones are not reported again). */
function duplicateIndexes(values: readonly unknown[]): number[] {
  if (values.length <= 1) return [];
  const seen = new Map<string, number>();
  const out: number[] = [];
  for (let i = 0; i < values.length; i++) {
    const id = identity(values[i]);
    const times = seen.get(id) ?? 0;
    if (times === 1) out.push(i);
    seen.set(id, times + 1);
  }
  return out;
}

function mapListErrors(p: FieldPath, s: Structural, arr: unknown[]): FieldError[] {
  for (let i = 0; i < arr.length; i++) {
    const x = arr[i];
    if (x !== null && !isJsonObject(x)) return [field.invalid(p.index(i), x, 'must be an object for an array of list-type map')];
  }
  if (arr.length <= 1) return [];
  const keyFields = s.xListMapKeys ?? [];
  if (keyFields.length === 1) {
    const k = keyFields[0]!;
    const keys = arr.map((x) => (isJsonObject(x) && Object.hasOwn(x, k) ? x[k] : UNSPECIFIED));
    return duplicateIndexes(keys).map((i) => field.duplicate(p.index(i), keys[i] === UNSPECIFIED ? {} : { [k]: keys[i] }));
  }
  const keys = arr.map((x) => {
    const key: JsonObject = {};
    if (isJsonObject(x)) for (const k of keyFields) if (Object.hasOwn(x, k)) key[k] = x[k];
    return key;
  });
  return duplicateIndexes(keys).map((i) => field.duplicate(p.index(i), keys[i]));
}
