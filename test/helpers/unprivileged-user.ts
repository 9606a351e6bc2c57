import { execFileSync } from 'node:child_process';
import { chown } from 'node:fs/promises';

export interface OsUser {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
}

/**
 * PostgreSQL and PgBouncer refuse to run as root. As root, tests run them as the `postgres` OS user
 * (the PostgreSQL the tests need brings it); otherwise as ourselves (undefined: nothing to switch).
 */
export function unprivilegedUser(): OsUser | undefined {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  try {
    return { name: 'postgres', uid: id('-u'), gid: id('-g') };
  } catch {
    throw new Error('running as root, but there is no "postgres" OS user to run PostgreSQL or PgBouncer as');
  }
}

/** Hands files the test made over to the user that runs the server (no-op when not root). */
export async function handOver(user: OsUser | undefined, ...paths: string[]): Promise<void> {
  if (!user) return;
  for (const p of paths) await chown(p, user.uid, user.gid);
}
