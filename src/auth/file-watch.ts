/**
 * Calls back when a configuration file may have changed: fs.watch on its directory (so that editors
 * and Kubernetes' ConfigMap volumes, which replace the file, are seen) with a short settle time, and a
 * timer as well, as upstream re-reads its files every minute whatever the watch says.
 */
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';

/** Several events arrive for one save; wait for them to settle before reading. */
const SETTLE_MS = 100;

export interface FileWatchOptions {
  readonly file: string;
  readonly intervalMs: number;
  readonly logger: Logger;
  readonly onChange: () => void;
}

/** Starts watching; returns the function that stops it. */
export function watchFile(opts: FileWatchOptions): () => void {
  const base = path.basename(opts.file);
  let settle: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(path.dirname(opts.file), (_event, name) => {
      if (name !== null && name !== base) return;
      clearTimeout(settle);
      settle = setTimeout(opts.onChange, SETTLE_MS);
    });
    watcher.on('error', (err) => opts.logger.error({ file: opts.file, err: err.message }, 'watching the file failed; reading it on the timer only'));
  } catch (err) {
    opts.logger.warn({ file: opts.file, err: (err as Error).message }, 'cannot watch the file; reading it on the timer only');
  }
  const timer = setInterval(opts.onChange, opts.intervalMs);
  timer.unref();
  return () => {
    watcher?.close();
    clearInterval(timer);
    clearTimeout(settle);
  };
}

/**
 * Wraps a reload so that one runs at a time: a call while one runs marks it to run once more when
 * that one ends, so a change seen meanwhile is read, and calls never pile up.
 */
export function oneAtATime(run: () => Promise<void>): () => Promise<void> {
  let running = false;
  let again = false;
  return async () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        await run();
      } while (again);
    } finally {
      running = false;
    }
  };
}
