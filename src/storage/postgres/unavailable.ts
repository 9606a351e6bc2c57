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
  // pg-pool's "timeout exceeded when trying to connect": no free connection within --database-connect-timeout.
  return /Connection terminated|connection timeout|Client has encountered a connection error|timeout exceeded when trying to connect/i.test(err.message);
}

/** pg's client-side query_timeout (--database-statement-timeout): the statement went out, no answer came. */
function isStatementTimeout(err: unknown): boolean {
  return err instanceof Error && err.message === 'Query read timeout';
}

/**
 * Runs a database call and turns connection failures into StorageError Unavailable, so callers
 * can answer 503 (clients retry those) instead of an internal error, and an unanswered statement
 * into StorageError Timeout (504: a write may still be applied, so it is not one to retry blindly).
 */
export async function orUnavailable<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (isStatementTimeout(err)) throw new StorageError('Timeout', 'the database did not answer within the statement timeout');
    if (isUnavailable(err)) throw new StorageError('Unavailable', `the storage is unavailable: ${(err as Error).message}`);
    throw err;
  }
}
