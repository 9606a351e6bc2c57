import { StorageError } from '../storage.ts';

/** SQLSTATEs and socket errors that mean "the database cannot be reached", not "the request was wrong". */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
  '3D000', // the database itself is gone
]);

function isUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) return true;
  return /Connection terminated|connection timeout|Client has encountered a connection error/i.test(err.message);
}

/**
 * Runs a database call and turns connection failures into StorageError Unavailable, so callers
 * can answer 503 (clients retry those) instead of an internal error.
 */
export async function orUnavailable<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (isUnavailable(err)) throw new StorageError('Unavailable', `the storage is unavailable: ${(err as Error).message}`);
    throw err;
  }
}
