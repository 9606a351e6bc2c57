/**
 * What a converting storage view served for a stored text, for a mapping whose output depends on the
 * stored text alone (a custom resource version whose conversion is strategy None: apiVersion set,
 * then the version schema's pruning and defaults). Listing the same objects again then costs a map
 * lookup per item instead of a parse, a conversion, a decode and a serialisation: kube-apiserver's
 * watch cache likewise keeps custom resources decoded, so its lists do not decode them again.
 *
 * Bounded by the characters it holds (stored and served text): past the bound the oldest entries go
 * first. A stored text that changed is a different key, so an entry is never stale; entries of
 * objects that changed or went are simply never asked for again and age out. When the watch cache
 * holds the stored texts, the keys are those very strings, shared rather than copied.
 */
export class ServedTextMemo {
  readonly #max: number;
  readonly #served = new Map<string, string>();
  #size = 0;

  /** `maxChars`: stored and served text held together, at most. */
  constructor(maxChars: number) {
    this.#max = maxChars;
  }

  get(stored: string): string | undefined {
    return this.#served.get(stored);
  }

  set(stored: string, served: string): void {
    const size = stored.length + served.length;
    // An object bigger than a fair share of the memo would only push out many others.
    if (size > this.#max / 16 || this.#served.has(stored)) return;
    this.#served.set(stored, served);
    this.#size += size;
    for (const [oldStored, oldServed] of this.#served) {
      if (this.#size <= this.#max) break;
      this.#served.delete(oldStored);
      this.#size -= oldStored.length + oldServed.length;
    }
  }

  /** Characters held (tests). */
  get size(): number {
    return this.#size;
  }

  /** Entries held (tests). */
  get entries(): number {
    return this.#served.size;
  }
}
