/**
 * A reason the server cannot start that the operator can act on (a port in use, a locked or
 * incompatible data directory). main prints its message alone, without a stack trace.
 */
export class StartupError extends Error {
  override name = 'StartupError';
}

/** One line for any thrown value: the message of an Error, the text of anything else. */
export function describeError(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  if (err === undefined || err === null) return 'unknown error';
  return typeof err === 'string' ? err : JSON.stringify(err);
}
