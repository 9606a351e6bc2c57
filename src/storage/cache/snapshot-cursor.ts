import type { ListCursor } from '../storage.ts';

/** Items per next(): the response writer gets the list in pieces, as from the database's cursor. */
const CHUNK = 500;

/**
 * A whole list taken from a watch cache, handed out in chunks. The items are the cache's own strings
 * (references, not copies), taken at one version in one synchronous pass, so later changes to the
 * cache do not reach a list being written out.
 */
export class SnapshotCursor implements ListCursor {
  readonly resourceVersion: number;
  #items: readonly string[];
  #at = 0;

  constructor(resourceVersion: number, items: readonly string[]) {
    this.resourceVersion = resourceVersion;
    this.#items = items;
  }

  next(): Promise<string[]> {
    const chunk = this.#items.slice(this.#at, this.#at + CHUNK);
    this.#at += chunk.length;
    return Promise.resolve(chunk);
  }

  close(): Promise<void> {
    this.#items = [];
    this.#at = 0;
    return Promise.resolve();
  }
}
