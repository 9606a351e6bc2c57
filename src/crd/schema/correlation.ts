/**
 * Old and new values of an update paired field by field (upstream's common.CorrelatedObject,
 * k8s.io/apiserver/pkg/cel/common/equality.go), for validation ratcheting: an error in a part of an
 * object the update left as it was is not reported.
 *
 * - object fields pair by name, when both values have the field and the schema specifies it
 *   (a property, or an additionalProperties schema);
 * - list items pair only in `x-kubernetes-list-type: map` lists, by their keys (the first old item
 *   with the same keys); sets and atomic lists do not pair their items;
 * - two values are "unchanged" when deeply equal through that pairing: an object with a field the
 *   schema does not specify, or a map list with an unpaired item, is never unchanged, and a list
 *   that does not pair its items compares as a whole.
 *
 * Nodes are created lazily and cache their comparison, so a walk compares each part once.
 */
import { propertyOf, type Structural } from './structural.ts';
import { deepEqualJson, isJsonObject } from './json.ts';

export class CorrelatedObject {
  private equal: boolean | undefined;
  private children: Map<string | number, CorrelatedObject | null> | undefined;
  private mapList: MapList | undefined;

  constructor(
    readonly value: unknown,
    readonly oldValue: unknown,
    readonly schema: Structural,
  ) {}

  /** The pairing of field `field`, or undefined when it has none. */
  key(field: string): CorrelatedObject | undefined {
    const cached = this.children?.get(field);
    if (cached !== undefined) return cached ?? undefined;
    const child = this.computeKey(field);
    (this.children ??= new Map()).set(field, child ?? null);
    return child;
  }

  private computeKey(field: string): CorrelatedObject | undefined {
    const v = this.value;
    const o = this.oldValue;
    if (!isJsonObject(v) || !isJsonObject(o) || !Object.hasOwn(v, field) || !Object.hasOwn(o, field)) return undefined;
    const schema = propertyOf(this.schema, field) ?? this.schema.additionalProperties?.structural;
    if (!schema) return undefined;
    return new CorrelatedObject(v[field], o[field], schema);
  }

  /** The pairing of item `i`, or undefined when it has none. */
  index(i: number): CorrelatedObject | undefined {
    const cached = this.children?.get(i);
    if (cached !== undefined) return cached ?? undefined;
    const child = this.computeIndex(i);
    (this.children ??= new Map()).set(i, child ?? null);
    return child;
  }

  private computeIndex(i: number): CorrelatedObject | undefined {
    const v = this.value;
    if (!Array.isArray(v) || i >= v.length) return undefined;
    const old = this.oldItemFor(v[i]);
    if (old === undefined || old === null) return undefined;
    const items = this.schema.items;
    if (!items) return undefined;
    return new CorrelatedObject(v[i], old, items);
  }

  private oldItemFor(item: unknown): unknown {
    if (!Array.isArray(this.oldValue) || this.schema.xListType !== 'map') return undefined;
    this.mapList ??= new MapList(this.schema, this.oldValue);
    return this.mapList.get(item);
  }

  /** Whether new and old are equal through the pairing (cached). */
  unchanged(): boolean {
    if (this.equal === undefined) this.equal = this.computeUnchanged();
    return this.equal;
  }

  private computeUnchanged(): boolean {
    const v = this.value;
    const o = this.oldValue;
    if (v === null && o === null) return true;
    if (v === null || o === null || v === undefined || o === undefined) return false;
    const vArray = Array.isArray(v);
    const oArray = Array.isArray(o);
    if (vArray !== oArray || isJsonObject(v) !== isJsonObject(o)) return false;
    if (vArray) {
      const oldList = o as unknown[];
      const newList = v as unknown[];
      if (oldList.length !== newList.length) return false;
      for (let i = 0; i < newList.length; i++) {
        const child = this.index(i);
        if (!child) return this.mapList === undefined ? deepEqualJson(oldList, newList) : false;
        if (!child.unchanged()) return false;
      }
      return true;
    }
    if (isJsonObject(v)) {
      const keys = Object.keys(v);
      if (keys.length !== Object.keys(o as object).length) return false;
      for (const k of keys) {
        const child = this.key(k);
        if (!child || !child.unchanged()) return false;
      }
      return true;
    }
    return deepEqualJson(o, v);
  }
}

/** Old items of a map list by their keys, indexed lazily (upstream's mapListImpl). */
class MapList {
  private readonly keyed = new Map<unknown, unknown>();
  private readonly keys: readonly string[];
  /** The old items not yet indexed start here. */
  private next = 0;

  constructor(
    schema: Structural,
    private readonly items: unknown[],
  ) {
    this.keys = schema.type === 'array' && schema.xListMapKeys ? schema.xListMapKeys : [];
  }

  get(item: unknown): unknown {
    if (this.keys.length === 0 || !isJsonObject(item)) return undefined;
    const key = this.compositeKey(item);
    if (key === undefined) return undefined;
    if (this.keyed.has(key)) return this.keyed.get(key);
    while (this.next < this.items.length) {
      const candidate = this.items[this.next++];
      if (!isJsonObject(candidate)) continue;
      const candidateKey = this.compositeKey(candidate);
      if (candidateKey === undefined) continue;
      if (!this.keyed.has(candidateKey)) this.keyed.set(candidateKey, candidate);
      if (candidateKey === key) return candidate;
    }
    return undefined;
  }

  /** The item's key values as one comparable value; undefined when a key is missing or not a scalar. */
  private compositeKey(obj: Record<string, unknown>): unknown {
    if (this.keys.length === 1) {
      const v = obj[this.keys[0]!];
      if (!Object.hasOwn(obj, this.keys[0]!)) return undefined;
      return typeof v === 'boolean' || typeof v === 'number' || typeof v === 'string' ? `${typeof v}:${String(v)}` : undefined;
    }
    let out = '';
    for (const k of this.keys) {
      if (!Object.hasOwn(obj, k)) return undefined;
      const v = obj[k];
      if (typeof v === 'string') out += `\u0000${JSON.stringify(v)}`;
      else if (typeof v === 'boolean' || typeof v === 'number') out += `\u0000${String(v)}`;
      else return undefined;
    }
    return out;
  }
}
