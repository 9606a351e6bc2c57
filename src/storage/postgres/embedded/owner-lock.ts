import { open, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { StartupError } from '../../../startup-error.ts';
import { commandLine, isRunning } from './processes.ts';

/** `<data-dir>/postgres.owner`: the pid of the server process that runs the embedded PostgreSQL. */
export function ownerFile(dataDir: string): string {
  return path.join(dataDir, 'postgres.owner');
}

/** The live server process that owns the embedded PostgreSQL of this data dir, if any. */
export async function liveOwner(dataDir: string): Promise<number | undefined> {
  let pid: number;
  try {
    pid = Number((await readFile(ownerFile(dataDir), 'utf8')).trim());
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || !isRunning(pid)) return undefined;
  // A container restarts with the same small pids: a recorded pid that is not a node process now is stale.
  const cmd = await commandLine(pid);
  if (cmd !== undefined && !/node/.test(cmd)) return undefined;
  return pid;
}

export type OwnerLock = { readonly acquired: true; release(): Promise<void> } | { readonly acquired: false; readonly owner: number };

/**
 * Claims the embedded PostgreSQL of a data dir for this process. Only one server process may run it:
 * a second one (or the migrate command while a server runs) learns who holds it. A lock left by a
 * process that is gone is taken over.
 */
export async function acquireOwnerLock(dataDir: string): Promise<OwnerLock> {
  const file = ownerFile(dataDir);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const handle = await open(file, 'wx', 0o600);
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      return { acquired: true, release: () => rm(file, { force: true }) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const owner = await liveOwner(dataDir);
    if (owner !== undefined) return { acquired: false, owner };
    await rm(file, { force: true });
  }
  throw new StartupError(`cannot claim ${file}: it keeps changing (is another server starting on this data dir?)`);
}
