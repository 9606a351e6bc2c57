/**
 * A small bounded map for memoizing pure functions of strings on the managed-fields path (manager
 * identifiers, times, field sets, path elements), so that what every write parses or builds again and
 * again (the same few managers, the same second, the same shapes of objects) is worked out once.
 *
 * Two generations: entries go into the young one; when it is full it becomes the old one and the
 * previous old one is dropped whole. An entry found in the old generation moves back into the young
 * one, so whatever is still in use survives, nearly as in a least-recently-used cache, with no
 * per-entry bookkeeping and nothing to scan on eviction. Bounded by entries and, optionally, by the
 * total length of the keys (each generation gets half of either), so that a stream of distinct inputs
 * costs memory only up to the bound. Values must be immutable (every caller shares them) and not
 * undefined.
 */
export class BoundedCache<V extends NonNullable<unknown> | null> {
  #young = new Map<string, V>();
  #old = new Map<string, V>();
  #youngChars = 0;
  readonly #maxEntries: number;
  readonly #maxKeyChars: number;

  constructor(maxEntries: number, maxKeyChars = Number.POSITIVE_INFINITY) {
    this.#maxEntries = Math.max(1, Math.floor(maxEntries / 2));
    this.#maxKeyChars = maxKeyChars / 2;
  }

  /** The value for `key`, or undefined when there is none. */
  get(key: string): V | undefined {
    const value = this.#young.get(key);
    if (value !== undefined) return value;
    const old = this.#old.get(key);
    if (old !== undefined) this.#add(key, old);
    return old;
  }

  set(key: string, value: V): void {
    // A key too long for a generation is not worth keeping.
    if (key.length > this.#maxKeyChars) return;
    this.#add(key, value);
  }

  #add(key: string, value: V): void {
    if (this.#young.size >= this.#maxEntries || this.#youngChars + key.length > this.#maxKeyChars) {
      this.#old = this.#young;
      this.#young = new Map();
      this.#youngChars = 0;
    }
    this.#young.set(key, value);
    this.#youngChars += key.length;
  }
}
