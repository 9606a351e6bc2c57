/**
 * At most this many bootstrap objects are written at once: enough for the storage's group commit to
 * write them together, few enough that a starting server holds only a handful of its pool's
 * connections (many servers may start at once against one PostgreSQL).
 */
export const SEED_CONCURRENCY = 4;

/** `fn` over `items`, at most `limit` at a time; the results in the order of `items`. */
export async function mapConcurrently<T, R>(items: readonly T[], fn: (item: T) => Promise<R>, limit = SEED_CONCURRENCY): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
