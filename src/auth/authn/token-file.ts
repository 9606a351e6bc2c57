/**
 * `--token-auth-file`: static bearer tokens from a CSV file, read once at start (the list cannot
 * change without a restart), as kube-apiserver's tokenfile authenticator reads it:
 *
 *   token,user name,user uid[,"group1,group2,…"]
 *
 * The CSV rules are Go's encoding/csv defaults: fields may be quoted (`""` is a quote inside a quoted
 * field, and a quoted field may span lines), blank lines are skipped, there are no comment lines,
 * spaces are kept, `\r\n` counts as `\n`, and a stray quote is a parse error. Records may have any
 * number of fields from 3 on.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { UserInfo } from '../user.ts';
import { audienceAgnostic, type TokenVerifier } from './bearer-token-authenticator.ts';

/** One CSV record and the line it starts on (for messages). */
export interface CsvRecord {
  readonly line: number;
  readonly fields: string[];
}

/** A CSV syntax error, worded as Go's csv.ParseError words it. */
export class CsvParseError extends Error {}

/** Splits CSV text into records under encoding/csv's default rules (see the file comment). */
export function parseCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  const src = text.replace(/\r\n/g, '\n');
  let i = 0;
  let line = 1;
  while (i < src.length) {
    // A blank line is no record.
    if (src[i] === '\n') {
      i++;
      line++;
      continue;
    }
    const startLine = line;
    const fields: string[] = [];
    for (;;) {
      let field = '';
      if (src[i] === '"') {
        // Quoted field: runs to the quote that is not doubled, across line ends.
        const column = columnOf(src, i);
        i++;
        for (;;) {
          if (i >= src.length) throw parseError(startLine, line, column, 'extraneous or missing " in quoted-field');
          const c = src[i]!;
          if (c === '"') {
            if (src[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (c === '\n') line++;
          field += c;
          i++;
        }
        if (i < src.length && src[i] !== ',' && src[i] !== '\n') {
          // Go names the closing quote's column.
          throw parseError(startLine, line, columnOf(src, i - 1), 'extraneous or missing " in quoted-field');
        }
      } else {
        while (i < src.length && src[i] !== ',' && src[i] !== '\n') {
          if (src[i] === '"') throw parseError(startLine, line, columnOf(src, i), 'bare " in non-quoted-field');
          field += src[i];
          i++;
        }
      }
      fields.push(field);
      if (i < src.length && src[i] === ',') {
        i++;
        continue;
      }
      // End of line or of the text ends the record.
      if (i < src.length) {
        i++;
        line++;
      }
      break;
    }
    records.push({ line: startLine, fields });
  }
  return records;
}

/** The 1-based column of position `i` on its line (characters, where Go counts bytes). */
function columnOf(src: string, i: number): number {
  return i - src.lastIndexOf('\n', i - 1);
}

function parseError(startLine: number, line: number, column: number, what: string): CsvParseError {
  const where = `parse error on line ${line}, column ${column}: ${what}`;
  return new CsvParseError(startLine === line ? where : `record on line ${startLine}; ${where}`);
}

/** The users of a token file, keyed by the SHA-256 of their tokens. */
export interface StaticTokens {
  readonly byDigest: ReadonlyMap<string, { readonly digest: Buffer; readonly user: UserInfo }>;
}

function digestOf(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/**
 * Reads the records of a token file. As upstream: fewer than 3 columns is an error, a record with
 * an empty token is skipped with a warning, a token seen twice keeps its last record (with a
 * warning), groups are the 4th column split at commas. Unlike upstream, an empty user name is an
 * error (upstream would authenticate a nameless user), empty group names are dropped, and columns
 * after the 4th are groups too (the protocol says "further columns are group names").
 */
export function parseTokenFile(text: string, file: string, logger?: Logger): StaticTokens {
  let records: CsvRecord[];
  try {
    records = parseCsv(text);
  } catch (err) {
    throw new Error(`--token-auth-file: ${file}: ${(err as Error).message}`);
  }
  const byDigest = new Map<string, { digest: Buffer; user: UserInfo }>();
  let recordNumber = 0;
  for (const { line, fields } of records) {
    if (fields.length < 3) {
      throw new Error(`--token-auth-file: token file '${file}' must have at least 3 columns (token, user name, user uid), found ${fields.length} on line ${line}`);
    }
    recordNumber++;
    const [token, name, uid] = fields as [string, string, string];
    if (token === '') {
      logger?.warn({ file, record: recordNumber, line }, 'empty token in the token file; record skipped');
      continue;
    }
    if (name === '') throw new Error(`--token-auth-file: token file '${file}' has an empty user name on line ${line}`);
    const groups = fields
      .slice(3)
      .flatMap((column) => column.split(','))
      .filter((g) => g !== '');
    const user: UserInfo = Object.freeze({ name, ...(uid !== '' ? { uid } : {}), groups: Object.freeze(groups) });
    const digest = digestOf(token);
    const key = digest.toString('hex');
    // Never the token itself in the log: the record number says which one.
    if (byDigest.has(key)) logger?.warn({ file, record: recordNumber, line }, 'duplicate token in the token file; the later record wins');
    byDigest.set(key, { digest, user });
  }
  return { byDigest };
}

/** Reads and parses the file; any failure is an Error that stops the server's start. */
export async function loadTokenFile(file: string, logger?: Logger): Promise<StaticTokens> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new Error(`--token-auth-file: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return parseTokenFile(text, file, logger);
}

/**
 * The user a static token names, or null. The token is looked up by its SHA-256 (which says nothing
 * about the token to a timing observer) and the digests are then compared in constant time.
 */
export function staticTokenUser(tokens: StaticTokens, token: string): UserInfo | null {
  const digest = digestOf(token);
  const found = tokens.byDigest.get(digest.toString('hex'));
  if (!found || !timingSafeEqual(found.digest, digest)) return null;
  return found.user;
}

/** The file's tokens as a bearer token source; they carry no audience, so they are for the API's own (audienceAgnostic). */
export async function tokenFileVerifier(file: string, apiAudiences: readonly string[], logger?: Logger): Promise<TokenVerifier> {
  const tokens = await loadTokenFile(file, logger);
  logger?.info({ file, tokens: tokens.byDigest.size }, 'static tokens read');
  return audienceAgnostic({ name: 'token-file', verifyUser: (token: string) => staticTokenUser(tokens, token) }, apiAudiences);
}
