import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { StartupError } from '../../../startup-error.ts';
import { commandLine, isRunning, waitForExit } from './processes.ts';

/** What PostgreSQL writes into `<pgdata>/postmaster.pid` while it runs (first lines: pid, data dir, start time, port). */
export interface PostmasterPid {
  readonly pid: number;
  readonly port: number;
}

export async function readPostmasterPid(pgdata: string): Promise<PostmasterPid | undefined> {
  let text: string;
  try {
    text = await readFile(path.join(pgdata, 'postmaster.pid'), 'utf8');
  } catch {
    return undefined;
  }
  const lines = text.split('\n');
  const pid = Number(lines[0]);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  return { pid, port: Number(lines[3]) };
}

/** The recorded postmaster, when it is still running (and, where the system tells, is a postgres). */
export async function runningPostmaster(pgdata: string): Promise<PostmasterPid | undefined> {
  const recorded = await readPostmasterPid(pgdata);
  if (!recorded || recorded.pid === process.pid || !isRunning(recorded.pid)) return undefined;
  const cmd = await commandLine(recorded.pid);
  if (cmd !== undefined && !/postgres/.test(cmd)) return undefined;
  return recorded;
}

/**
 * A postmaster left running by a server that died without stopping it (SIGKILL, the OOM killer):
 * nobody owns it any more, and it holds the port and the data directory. Stop it the way PostgreSQL
 * is stopped cleanly (SIGINT, a fast shutdown: sessions end, a checkpoint is written), then SIGQUIT
 * if it does not go. A stale pid file whose process is gone, or belongs to something else now, is
 * removed so that PostgreSQL does not refuse to start over it.
 */
export async function stopOrphanedPostmaster(pgdata: string, logger: Logger): Promise<void> {
  const recorded = await readPostmasterPid(pgdata);
  if (!recorded) return;
  const running = await runningPostmaster(pgdata);
  if (!running) {
    if (recorded.pid !== process.pid && isRunning(recorded.pid)) {
      // The pid was reused by an unrelated process: PostgreSQL would take it for a live postmaster.
      await rm(path.join(pgdata, 'postmaster.pid'), { force: true });
    }
    return;
  }
  logger.warn({ postmasterPid: running.pid, port: running.port }, 'stopping an embedded PostgreSQL left running by a server that did not stop it');
  process.kill(running.pid, 'SIGINT');
  if (await waitForExit(running.pid, 20_000)) return;
  process.kill(running.pid, 'SIGQUIT');
  if (await waitForExit(running.pid, 10_000)) return;
  throw new StartupError(`an embedded PostgreSQL (pid ${running.pid}) from an earlier run holds ${pgdata} and does not stop; stop it and start again`);
}
