import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { StartupError } from '../../../startup-error.ts';

const run = promisify(execFile);

export interface OsUser {
  readonly uid: number;
  readonly gid: number;
}

export const POSTGRES_OS_USER = 'postgres';

async function lookup(name: string): Promise<OsUser | undefined> {
  try {
    const [uid, gid] = await Promise.all([run('id', ['-u', name]), run('id', ['-g', name])]);
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  } catch {
    return undefined;
  }
}

export function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/**
 * PostgreSQL refuses to run as root. Started as root, the server runs the embedded PostgreSQL as the
 * system user `postgres`, creating it (no home, no login shell) when the machine has none.
 * Undefined when not root: PostgreSQL then runs as the server's own user.
 */
export async function postgresOsUser(): Promise<OsUser | undefined> {
  if (!isRoot()) return undefined;
  const existing = await lookup(POSTGRES_OS_USER);
  if (existing) return existing;
  try {
    await run('groupadd', ['--system', POSTGRES_OS_USER]).catch(() => undefined);
    await run('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', '-g', POSTGRES_OS_USER, POSTGRES_OS_USER]);
  } catch (err) {
    throw new StartupError(`running as root, the embedded PostgreSQL needs a system user "${POSTGRES_OS_USER}" and creating it failed: ${(err as Error).message}`);
  }
  const created = await lookup(POSTGRES_OS_USER);
  if (!created) throw new StartupError(`created the system user "${POSTGRES_OS_USER}" but cannot look it up`);
  return created;
}
