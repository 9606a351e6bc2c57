import { existsSync } from 'node:fs';
import { chown, mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { writeFileAtomic } from '../../../auth/pki/pem-files.ts';
import { prepareDataDir } from '../../../data-dir.ts';
import { StartupError } from '../../../startup-error.ts';
import { binaryMajorVersion, findBinaries, type PostgresBinaries } from './binaries.ts';
import { acquireOwnerLock, liveOwner } from './owner-lock.ts';
import { postgresOsUser, type OsUser } from './os-user.ts';
import { readOrCreatePassword, readPassword } from './password.ts';
import { Postmaster, initdb, type PostmasterOptions } from './postmaster.ts';
import { runningPostmaster, stopOrphanedPostmaster } from './postmaster-pid.ts';
import { embeddedUrl, ensureRolePassword } from './role-password.ts';

export interface EmbeddedDatabase {
  readonly url: string;
  /** Stops PostgreSQL (when this process started it) and gives the data dir back. */
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  readonly dataDir: string;
  readonly port: number;
  readonly logger: Logger;
}

/** `<data-dir>/postgres`, the PostgreSQL cluster itself. */
export function clusterDir(dataDir: string): string {
  return path.resolve(dataDir, 'postgres');
}

async function checkMajorVersion(binaries: PostgresBinaries, pgdata: string): Promise<void> {
  const onDisk = (await readFile(path.join(pgdata, 'PG_VERSION'), 'utf8')).trim();
  const shipped = await binaryMajorVersion(binaries);
  if (onDisk !== shipped) {
    throw new StartupError(
      `${pgdata} holds a PostgreSQL ${onDisk} cluster, but this build ships PostgreSQL ${shipped}; ` +
        `dump it with PostgreSQL ${onDisk}'s pg_dump and restore it into a new data dir (docs/operations.md, "Upgrading PostgreSQL"), ` +
        `or run it with a PostgreSQL ${onDisk} server of your own through --database-url`,
    );
  }
}

/** A new cluster: initdb as the PostgreSQL OS user, with the password handed over in a file it can read. */
async function initialise(options: PostmasterOptions, dataDir: string, password: string, osUser: OsUser | undefined): Promise<void> {
  options.logger.info({ pgdata: options.pgdata }, 'initialising embedded PostgreSQL');
  const file = path.join(dataDir, `.initdb-password-${process.pid}`);
  await writeFileAtomic(file, `${password}\n`, 0o600);
  try {
    // The data dir is not writable by the PostgreSQL OS user: the cluster directory is made for it.
    await mkdir(options.pgdata, { recursive: true, mode: 0o700 });
    if (osUser) {
      await chown(options.pgdata, osUser.uid, osUser.gid);
      await chown(file, osUser.uid, osUser.gid);
    }
    await initdb(options, file);
  } catch (err) {
    // A half-made cluster would be taken for a real one at the next start.
    await rm(options.pgdata, { recursive: true, force: true });
    throw err;
  } finally {
    await rm(file, { force: true });
  }
}

/**
 * The zero-setup database: a PostgreSQL cluster in `<data-dir>/postgres`, made on first start, run by
 * this process and stopped by it. Only one server process may run it; one left running by a server
 * that was killed is stopped first.
 */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const { dataDir, port, logger } = options;
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const lock = await acquireOwnerLock(dataDir);
  if (!lock.acquired) {
    throw new StartupError(`the data dir ${path.resolve(dataDir)} is in use by another server process (pid ${lock.owner}); stop it, or give this one its own --data-dir`);
  }
  try {
    const pgdata = clusterDir(dataDir);
    const [binaries, osUser] = await Promise.all([findBinaries(), postgresOsUser()]);
    await prepareDataDir(dataDir, logger, osUser?.gid);
    const postmasterOptions: PostmasterOptions = { binaries, pgdata, port, osUser, logger };
    const password = await readOrCreatePassword(dataDir);
    if (existsSync(path.join(pgdata, 'PG_VERSION'))) {
      await checkMajorVersion(binaries, pgdata);
      await stopOrphanedPostmaster(pgdata, logger);
    } else {
      await initialise(postmasterOptions, dataDir, password, osUser);
    }
    const postmaster = await Postmaster.start(postmasterOptions);
    // However this process ends without stopping it (an uncaught error, process.exit on a second
    // signal), PostgreSQL is told to shut down. Only SIGKILL leaves it running: see stopOrphanedPostmaster.
    const onExit = () => postmaster.stopWithoutWaiting();
    process.on('exit', onExit);
    const stop = async () => {
      process.off('exit', onExit);
      await postmaster.stop();
    };
    try {
      await ensureRolePassword(port, password, pgdata, logger);
    } catch (err) {
      await stop();
      throw err;
    }
    logger.info({ port, postmasterPid: postmaster.pid }, 'embedded PostgreSQL started');
    return {
      url: embeddedUrl(port, password),
      stop: async () => {
        await stop();
        await lock.release();
      },
    };
  } catch (err) {
    await lock.release();
    throw err;
  }
}

/**
 * For the operator commands (`npm run migrate`, `npm run psql`): the embedded PostgreSQL of a running
 * server when there is one (its stop() leaves it running), else one started for the command.
 */
export async function openEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const owner = await liveOwner(options.dataDir);
  const running = owner !== undefined ? await runningPostmaster(clusterDir(options.dataDir)) : undefined;
  const password = await readPassword(options.dataDir);
  if (running && password) {
    return { url: embeddedUrl(running.port, password), stop: async () => undefined };
  }
  return startEmbeddedPostgres(options);
}
