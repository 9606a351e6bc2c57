/**
 * The audit log file, rotated as kube-apiserver's (gopkg.in/natefinch/lumberjack.v2) rotates it: a
 * write that would take the file past its size limit first moves it aside as
 * `<name>-<UTC time 2006-01-02T15-04-05.000><ext>` and starts a new one with the old one's mode;
 * afterwards, in the background, backups beyond `maxBackups` (newest kept) and older than `maxAge`
 * days (by the time in their name) are removed and the rest gzipped to `<backup>.gz` when asked.
 * Writes are synchronous: an event is in the file (the page cache) before the request goes on.
 */
import { closeSync, fstatSync, mkdirSync, openSync, renameSync, statSync, writeSync, constants as fsConstants } from 'node:fs';
import { chmod, readdir, rm, stat } from 'node:fs/promises';
import { createReadStream, createWriteStream } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';

export const MEGABYTE = 1024 * 1024;
/** lumberjack's default when MaxSize is 0. */
export const DEFAULT_MAX_SIZE_BYTES = 100 * MEGABYTE;
const COMPRESS_SUFFIX = '.gz';
const BACKUP_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2})-(\d{2})-(\d{2})\.(\d{3})$/;

export interface RotatingFileOptions {
  readonly filename: string;
  /** The size past which the file is rotated, in bytes; 0 means lumberjack's 100 MB. */
  readonly maxSizeBytes: number;
  /** Backups kept (0: all). */
  readonly maxBackups: number;
  /** Days a backup is kept, by the time in its name (0: no limit). */
  readonly maxAgeDays: number;
  /** gzip backups. */
  readonly compress: boolean;
  /** Where background failures (pruning, compression) go. */
  readonly onError?: (err: unknown) => void;
  /** The clock (tests). */
  readonly now?: () => Date;
}

/** `2006-01-02T15-04-05.000` in UTC. */
export function backupTimestamp(date: Date): string {
  return date.toISOString().slice(0, 23).replace(/:/g, '-');
}

/** The backup name for the file at this moment: `<dir>/<prefix>-<time><ext>`. */
export function backupName(filename: string, date: Date): string {
  const dir = path.dirname(filename);
  const base = path.basename(filename);
  const ext = path.extname(base);
  return path.join(dir, `${base.slice(0, base.length - ext.length)}-${backupTimestamp(date)}${ext}`);
}

function parseBackupTime(text: string): number | undefined {
  const m = BACKUP_TIME.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, ms] = m.map(Number) as number[];
  const t = Date.UTC(y!, mo! - 1, d!, h!, mi!, s!, ms!);
  const check = new Date(t);
  // time.Parse refuses impossible dates (2024-02-31).
  if (check.getUTCMonth() !== mo! - 1 || check.getUTCDate() !== d! || h! > 23 || mi! > 59 || s! > 59) return undefined;
  return t;
}

export class RotatingFile {
  readonly #o: RotatingFileOptions;
  readonly #max: number;
  #fd: number | undefined;
  #size = 0;
  #milling: Promise<void> | undefined;
  #millAgain = false;

  constructor(options: RotatingFileOptions) {
    this.#o = options;
    this.#max = options.maxSizeBytes > 0 ? options.maxSizeBytes : DEFAULT_MAX_SIZE_BYTES;
  }

  get filename(): string {
    return this.#o.filename;
  }

  /** The directory (0700) and the file (0600), as kube-apiserver makes sure of them at start. */
  ensure(): void {
    mkdirSync(path.dirname(this.#o.filename), { recursive: true, mode: 0o700 });
    closeSync(openSync(this.#o.filename, fsConstants.O_CREAT | fsConstants.O_APPEND | fsConstants.O_RDWR, 0o600));
  }

  /** Appends `text`, rotating first when it would not fit; throws what the file system throws. */
  write(text: string | Buffer): void {
    const data = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
    if (data.length > this.#max) throw new Error(`write length ${data.length} exceeds maximum file size ${this.#max}`);
    if (this.#fd === undefined) this.#openExistingOrNew(data.length);
    if (this.#size + data.length > this.#max) this.#rotate();
    let written = 0;
    while (written < data.length) written += writeSync(this.#fd!, data, written, data.length - written);
    this.#size += written;
  }

  /** Moves the current file aside now (lumberjack's Rotate). */
  rotate(): void {
    this.#rotate();
  }

  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }

  /** Resolves when the background pruning and compression started so far are done (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.#milling) await this.#milling;
  }

  #openExistingOrNew(writeLength: number): void {
    this.#mill();
    let size: number;
    try {
      size = statSync(this.#o.filename).size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        this.#openNew();
        return;
      }
      throw new Error(`error getting log file info: ${(err as Error).message}`);
    }
    if (size + writeLength >= this.#max) {
      this.#rotate();
      return;
    }
    try {
      this.#fd = openSync(this.#o.filename, fsConstants.O_APPEND | fsConstants.O_WRONLY, 0o644);
      this.#size = size;
    } catch {
      this.#openNew();
    }
  }

  #rotate(): void {
    this.close();
    this.#openNew();
    this.#mill();
  }

  #openNew(): void {
    const name = this.#o.filename;
    mkdirSync(path.dirname(name), { recursive: true, mode: 0o755 });
    let mode = 0o600;
    try {
      const info = statSync(name);
      mode = info.mode & 0o7777;
      renameSync(name, backupName(name, this.#now()));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`can't rename log file: ${(err as Error).message}`);
    }
    const fd = openSync(name, fsConstants.O_CREAT | fsConstants.O_WRONLY | fsConstants.O_TRUNC, mode);
    // The mode given applies only when the file is created (and through the umask): as lumberjack, keep the old one's.
    if ((fstatSync(fd).mode & 0o7777) !== mode) void chmod(name, mode).catch(() => undefined);
    this.#fd = fd;
    this.#size = 0;
  }

  #now(): Date {
    return this.#o.now ? this.#o.now() : new Date();
  }

  /** Starts pruning and compression in the background; one run at a time, one more queued at most. */
  #mill(): void {
    const o = this.#o;
    if (o.maxBackups === 0 && o.maxAgeDays === 0 && !o.compress) return;
    if (this.#milling) {
      this.#millAgain = true;
      return;
    }
    const run = async (): Promise<void> => {
      do {
        this.#millAgain = false;
        try {
          await this.#millOnce();
        } catch (err) {
          o.onError?.(err);
        }
      } while (this.#millAgain);
      this.#milling = undefined;
    };
    this.#milling = run();
  }

  /** The backups, newest first (by the time in their names). */
  async backups(): Promise<{ name: string; time: number }[]> {
    const dir = path.dirname(this.#o.filename);
    const base = path.basename(this.#o.filename);
    const ext = path.extname(base);
    const prefix = `${base.slice(0, base.length - ext.length)}-`;
    const found: { name: string; time: number }[] = [];
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (entry.isDirectory() || !entry.name.startsWith(prefix)) continue;
      for (const suffix of [ext, ext + COMPRESS_SUFFIX]) {
        if (!entry.name.endsWith(suffix)) continue;
        const time = parseBackupTime(entry.name.slice(prefix.length, entry.name.length - suffix.length));
        if (time !== undefined) {
          found.push({ name: entry.name, time });
          break;
        }
      }
    }
    return found.sort((a, b) => b.time - a.time);
  }

  async #millOnce(): Promise<void> {
    const o = this.#o;
    const dir = path.dirname(o.filename);
    let files = await this.backups();
    const remove: string[] = [];
    if (o.maxBackups > 0 && o.maxBackups < files.length) {
      // A backup and its compressed copy count once.
      const preserved = new Set<string>();
      const remaining: typeof files = [];
      for (const f of files) {
        preserved.add(f.name.endsWith(COMPRESS_SUFFIX) ? f.name.slice(0, -COMPRESS_SUFFIX.length) : f.name);
        if (preserved.size > o.maxBackups) remove.push(f.name);
        else remaining.push(f);
      }
      files = remaining;
    }
    if (o.maxAgeDays > 0) {
      const cutoff = this.#now().getTime() - o.maxAgeDays * 24 * 3_600_000;
      const remaining: typeof files = [];
      for (const f of files) {
        if (f.time < cutoff) remove.push(f.name);
        else remaining.push(f);
      }
      files = remaining;
    }
    let firstError: unknown;
    for (const name of remove) {
      await rm(path.join(dir, name), { force: true }).catch((err: unknown) => (firstError ??= err));
    }
    if (o.compress) {
      for (const f of files) {
        if (f.name.endsWith(COMPRESS_SUFFIX)) continue;
        await compressFile(path.join(dir, f.name)).catch((err: unknown) => (firstError ??= err));
      }
    }
    if (firstError) throw firstError;
  }
}

/** gzips `src` to `src.gz` (same mode), then removes `src`; a failed copy leaves no `.gz` behind. */
async function compressFile(src: string): Promise<void> {
  const dst = src + COMPRESS_SUFFIX;
  const info = await stat(src);
  try {
    await pipeline(createReadStream(src), createGzip(), createWriteStream(dst, { mode: info.mode & 0o7777 }));
  } catch (err) {
    await rm(dst, { force: true });
    throw new Error(`failed to compress log file: ${(err as Error).message}`);
  }
  await rm(src);
}
