import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export const KEY_FILE_MODE = 0o600;
export const CERT_FILE_MODE = 0o644;

/** The file's text, or null when it does not exist. */
export async function readIfExists(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/**
 * Writes through a temporary file and a rename, so a reader (or a crash) never sees half a
 * file; the mode is set before any content is written.
 */
export async function writeFileAtomic(path: string, content: string, mode: number): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temp, content, { mode, flag: 'wx' });
    await chmod(temp, mode); // writeFile's mode passes through the umask; make it exact
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

/** Tightens a key file left readable by others (copied in by hand, say) to 0600. */
export async function restrictKeyFile(path: string): Promise<void> {
  const { mode } = await stat(path);
  if ((mode & 0o077) !== 0) await chmod(path, KEY_FILE_MODE);
}

export interface LockOptions {
  /** Give up after this long (ms). */
  readonly timeout?: number;
  /** A lock file older than this (ms) is left from a crashed process and is taken over. */
  readonly stale?: number;
}

/**
 * Runs `fn` holding `<dir>/.lock`, so that server processes starting together on one data
 * directory do not each create a different CA.
 */
export async function withDirectoryLock<T>(dir: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const { timeout = 30_000, stale = 60_000 } = options;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const lockPath = `${dir}/.lock`;
  const deadline = Date.now() + timeout;
  for (;;) {
    try {
      const handle = await open(lockPath, 'wx', 0o600);
      await handle.writeFile(String(process.pid));
      await handle.close();
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const age = await stat(lockPath).then((s) => Date.now() - s.mtimeMs, () => 0);
      if (age > stale) {
        await rm(lockPath, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lockPath}; remove it if no server is starting`);
      await sleep(50);
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lockPath, { force: true });
  }
}
