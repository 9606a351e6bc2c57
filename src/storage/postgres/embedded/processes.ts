import { readFile } from 'node:fs/promises';

/** Whether a process with this id exists (EPERM: it does, owned by another user). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The command line of a process, where the system tells (Linux's /proc); undefined elsewhere or when
 * it is gone. Used to tell a live owner from an unrelated process that reuses a recorded pid.
 */
export async function commandLine(pid: number): Promise<string | undefined> {
  try {
    return (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').join(' ').trim();
  } catch {
    return undefined;
  }
}

/** Resolves once `pid` has exited, or with false after `timeoutMs` (for processes that are not our children). */
export async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isRunning(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}
