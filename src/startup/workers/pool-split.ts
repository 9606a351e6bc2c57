/**
 * How --workers and --database-max-connections fit together. Pure arithmetic, so that config.ts
 * can refuse a bad pair at start and the primary can hand each worker its share.
 *
 * Each worker is a full server: a pg pool of `pool` connections plus one dedicated LISTEN
 * connection for its watch hub (see storage/postgres/watch-hub.ts). With N > 1 workers,
 *   per worker  = floor(max / N) connections  = (floor(max / N) - 1) pooled + 1 LISTEN
 *   all workers = N * floor(max / N)          <= max
 * (the remainder, max mod N, stays unused; the primary holds no connection once the workers run:
 * its migration connection is closed before the first fork). A single process (N = 1) keeps
 * today's meaning of the flag: the pool is --database-max-connections and LISTEN comes on top.
 */

/** A worker needs one pooled connection besides its LISTEN connection. */
export const MIN_CONNECTIONS_PER_WORKER = 2;

/**
 * The default --workers leaves each worker at least this many connections (3 pooled + LISTEN), so
 * that a many-core machine with the default --database-max-connections=20 gets 5 workers with
 * usable pools rather than 10 workers with a pool of one.
 */
const DEFAULT_CONNECTIONS_PER_WORKER = 4;

/** The pool size of each worker (its LISTEN connection not counted). */
export function poolPerWorker(maxConnections: number, workers: number): number {
  if (workers <= 1) return maxConnections;
  return Math.floor(maxConnections / workers) - 1;
}

/** The database connections all workers hold at most, LISTEN connections included. */
export function totalConnections(maxConnections: number, workers: number): number {
  if (workers <= 1) return maxConnections + 1;
  return workers * (poolPerWorker(maxConnections, workers) + 1);
}

/**
 * --workers left empty: one per core but one, as far as the connections allow, and at least one.
 * The core left over is PostgreSQL's (the embedded one, or one on the same machine): on 2 cores the
 * benchmark measured 2 workers against 1 at 622 vs 1,003 creates/s (2,068 vs 1,148 µs of server CPU
 * and 689 vs 254 µs of PostgreSQL CPU per create: half-size group commits, every change read by two
 * hubs) and equal gets/s, so a worker per core only pays where cores are to spare.
 */
export function defaultWorkers(cores: number, maxConnections: number): number {
  return Math.max(1, Math.min(cores - 1, Math.floor(maxConnections / DEFAULT_CONNECTIONS_PER_WORKER)));
}

/**
 * The --workers value as given ('' for the default), resolved and checked; a problem is returned
 * as the text of the start-up error.
 */
export function resolveWorkers(text: string, cores: number, maxConnections: number): { workers: number } | { problem: string } {
  if (text === '') return { workers: defaultWorkers(cores, maxConnections) };
  if (!/^\d+$/.test(text) || Number(text) < 1) return { problem: `invalid value "${text}" for --workers: must be an integer of at least 1` };
  const workers = Number(text);
  if (workers > 1 && poolPerWorker(maxConnections, workers) < MIN_CONNECTIONS_PER_WORKER - 1) {
    return {
      problem: `--database-max-connections=${maxConnections} is too small for --workers=${workers}: each worker needs ${MIN_CONNECTIONS_PER_WORKER} connections (one pooled, one to LISTEN), so at least ${workers * MIN_CONNECTIONS_PER_WORKER}`,
    };
  }
  return { workers };
}
