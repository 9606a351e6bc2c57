/**
 * Where event lines go (`--audit-log-path`: a rotated file, or `-` for standard output) and how
 * (`--audit-log-mode`):
 *
 * - `blocking` (kube-apiserver's default for the log): each event is written before the request
 *   goes on; a failed write is logged and the request carries on.
 * - `blocking-strict`: the same, but a request whose first event (RequestReceived) cannot be
 *   written is refused with 500.
 * - `batch`: events are queued (up to `--audit-log-batch-buffer-size`) and written off the request
 *   path, several per write; when the queue is full new events are dropped and counted.
 */
import type { Logger } from 'pino';
import type { RotatingFile } from './log-file.ts';

export type AuditMode = 'batch' | 'blocking' | 'blocking-strict';
export const AUDIT_MODES: readonly AuditMode[] = ['batch', 'blocking', 'blocking-strict'];

/** The text a sink writes to: the rotating file, or standard output. */
export interface LineWriter {
  write(text: string): void;
  close(): void;
  settled?(): Promise<void>;
}

export function stdoutWriter(): LineWriter {
  return {
    // Synchronous for files, TTYs and (on Linux) pipes.
    write: (text) => void process.stdout.write(text),
    close: () => undefined,
  };
}

export function fileWriter(file: RotatingFile): LineWriter {
  return { write: (text) => file.write(text), close: () => file.close(), settled: () => file.settled() };
}

export interface Sink {
  /** Takes one line; false when it could not be taken (written, or queued in batch mode). */
  process(line: string): boolean;
  /** Writes what is queued and closes the writer. */
  close(): Promise<void>;
}

/** A failure logged at most once a minute, with the number met since the last one logged. */
function throttledLog(logger: Logger, message: string): (err?: unknown) => void {
  let last = 0;
  let missed = 0;
  return (err) => {
    const now = Date.now();
    if (now - last < 60_000) {
      missed++;
      return;
    }
    logger.error({ err, suppressed: missed }, message);
    last = now;
    missed = 0;
  };
}

export function blockingSink(writer: LineWriter, logger: Logger): Sink {
  const failed = throttledLog(logger, 'audit log: writing an event failed');
  return {
    process(line) {
      try {
        writer.write(line);
        return true;
      } catch (err) {
        failed(err);
        return false;
      }
    },
    async close() {
      await writer.settled?.();
      writer.close();
    },
  };
}

/** Lines joined into one write at most this long (beyond, a line is written on its own). */
const BATCH_BYTES = 256 * 1024;

export function batchSink(writer: LineWriter, logger: Logger, bufferSize: number): Sink {
  const failed = throttledLog(logger, 'audit log: writing events failed');
  const dropped = throttledLog(logger, 'audit log: the event buffer is full, events are dropped (audit buffer queue blocked)');
  let queue: string[] = [];
  let scheduled = false;
  let closed = false;

  const flush = (): void => {
    scheduled = false;
    const lines = queue;
    queue = [];
    let chunk = '';
    for (const line of lines) {
      if (chunk.length > 0 && chunk.length + line.length > BATCH_BYTES) {
        write(chunk);
        chunk = '';
      }
      chunk += line;
    }
    if (chunk.length > 0) write(chunk);
  };
  const write = (text: string): void => {
    try {
      writer.write(text);
    } catch (err) {
      // A chunk too large for the file's limit as a whole may still fit line by line.
      if (text.indexOf('\n') < text.length - 1) {
        for (const line of text.split(/(?<=\n)/)) {
          try {
            writer.write(line);
          } catch (lineErr) {
            failed(lineErr);
          }
        }
      } else {
        failed(err);
      }
    }
  };
  return {
    process(line) {
      if (closed || queue.length >= bufferSize) {
        dropped();
        // Upstream's buffered backend reports success even then: a full buffer never fails requests.
        return true;
      }
      queue.push(line);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
      return true;
    },
    async close() {
      closed = true;
      flush();
      await writer.settled?.();
      writer.close();
    },
  };
}
