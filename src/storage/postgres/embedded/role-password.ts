import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from 'pino';
import { StartupError } from '../../../startup-error.ts';
import { LEGACY_PASSWORD } from './password.ts';

export function embeddedUrl(port: number, password: string): string {
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
}

async function canLogIn(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return true;
  } catch (err) {
    // 28P01 invalid_password; anything else (not started, refused) is not about the password.
    if ((err as { code?: string }).code === '28P01') return false;
    throw err;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** pg_hba lines of the form initdb writes with --auth=password (a cleartext password) → scram-sha-256. */
async function requireScramInHba(pgdata: string): Promise<boolean> {
  const file = path.join(pgdata, 'pg_hba.conf');
  const before = await readFile(file, 'utf8');
  const after = before
    .split('\n')
    .map((line) => (/^\s*(local|host)\b/.test(line) ? line.replace(/\bpassword\s*$/, 'scram-sha-256') : line))
    .join('\n');
  if (after === before) return false;
  await writeFile(file, after);
  return true;
}

/**
 * Makes sure the superuser logs in with `password`. Data dirs made by earlier versions of this server
 * used the well-known password "postgres" (and cleartext password auth): the first start of this
 * version replaces it with the generated one and switches pg_hba to scram-sha-256.
 */
export async function ensureRolePassword(port: number, password: string, pgdata: string, logger: Logger): Promise<void> {
  if (await canLogIn(embeddedUrl(port, password))) return;
  if (!(await canLogIn(embeddedUrl(port, LEGACY_PASSWORD)))) {
    throw new StartupError(
      `the embedded PostgreSQL in ${pgdata} does not accept the password in the data dir's postgres.password; ` +
        'restore that file from a backup, or set the role password by hand',
    );
  }
  const client = new pg.Client({ connectionString: embeddedUrl(port, LEGACY_PASSWORD) });
  await client.connect();
  try {
    // DDL takes no parameters; the generated password holds URL-safe base64 characters only.
    await client.query(`alter role postgres password '${password.replace(/'/g, "''")}'`);
    if (await requireScramInHba(pgdata)) await client.query('select pg_reload_conf()');
  } finally {
    await client.end();
  }
  logger.info('replaced the well-known password of the embedded PostgreSQL with a generated one (kept in postgres.password)');
}
