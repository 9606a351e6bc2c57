import { StorageError } from '../storage.ts';

/**
 * PostgreSQL refusing a value it was sent, rather than failing to run: SQLSTATE class 22 (data
 * exception: `invalid input syntax for type json` for an escaped lone surrogate, `unsupported
 * Unicode escape sequence` for `\u0000`) and class 54 (program limit exceeded: nesting past the
 * parser's stack, a value past jsonb's size limit). Such an error is raised while the statement
 * runs, so its transaction has rolled back and nothing of it was written: the writes of a failed
 * batch may be sent again, and one that fails on its own is the fault of its own data.
 */
export function isDataRefusal(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('54'));
}

/**
 * The client's answer for a write PostgreSQL refused (400 through the registry), in the client's
 * terms: the database's own message names its internals and may quote the request's data.
 */
export function refusedWrite(err: unknown): StorageError {
  const code = (err as { code?: string }).code ?? '';
  let why: string;
  if (code === '54001') why = 'it is nested too deeply';
  else if (code.startsWith('54')) why = 'it is too large';
  else if (code === '22P05') why = 'strings containing the NUL character (\\u0000) cannot be stored';
  else why = 'it contains a value that is not valid JSON text (for example an unpaired UTF-16 surrogate)';
  return new StorageError('Unstorable', code === '22P05' ? why : `the object cannot be stored: ${why}`);
}
