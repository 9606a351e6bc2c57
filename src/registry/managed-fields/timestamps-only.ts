/**
 * Upstream's IgnoreManagedFieldsTimestampsTransformer: a write whose only change is the time of
 * managedFields entries (re-applying a value the server normalizes, say `1000m` stored as `1`,
 * moves the applier's time although nothing else changes) keeps the stored entries, so that it is
 * no write at all rather than a new resourceVersion and a watch event.
 */
import { isDeepStrictEqual } from 'node:util';

type Entry = Record<string, unknown>;

/** `next`'s managedFields differ from `old`'s in times only: the entries `next` should keep, else undefined. */
export function storedEntriesIfOnlyTimesMoved(next: unknown, old: unknown): unknown[] | undefined {
  if (!Array.isArray(next) || !Array.isArray(old) || next.length !== old.length || next.length === 0) return undefined;
  for (let i = 0; i < next.length; i++) {
    const a = next[i] as Entry;
    const b = old[i] as Entry;
    if (a === b) continue;
    if (!a || !b || typeof a !== 'object' || typeof b !== 'object') return undefined;
    const { time: _a, ...restA } = a;
    const { time: _b, ...restB } = b;
    if (!isDeepStrictEqual(restA, restB)) return undefined;
  }
  return old;
}
