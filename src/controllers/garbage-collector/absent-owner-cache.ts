import { referenceKey, type ObjectReference } from './graph.ts';

/**
 * Owners known not to exist (upstream's absentOwnerCache): a dependent naming one needs no lookup to
 * be found dangling. Bounded, least recently used first out, as upstream's 500-entry LRU.
 */
export class AbsentOwnerCache {
  readonly #max: number;
  readonly #entries = new Map<string, true>();

  constructor(max = 500) {
    this.#max = max;
  }

  add(ref: ObjectReference): void {
    const key = referenceKey(ref);
    this.#entries.delete(key);
    this.#entries.set(key, true);
    if (this.#entries.size > this.#max) this.#entries.delete(this.#entries.keys().next().value as string);
  }

  has(ref: ObjectReference): boolean {
    const key = referenceKey(ref);
    if (!this.#entries.has(key)) return false;
    // A hit makes the entry the most recently used.
    this.#entries.delete(key);
    this.#entries.set(key, true);
    return true;
  }

  get size(): number {
    return this.#entries.size;
  }
}
