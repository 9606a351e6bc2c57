import cluster, { type Worker } from 'node:cluster';
import path from 'node:path';
import type { Logger } from 'pino';
import { ensurePki } from '../../auth/pki/ensure-pki.ts';
import { ensureGeneratedSigningKey } from '../../auth/serviceaccount/keys.ts';
import { Closers } from '../../closers.ts';
import type { Config } from '../../config.ts';
import { StartupError, describeError } from '../../startup-error.ts';
import { onStopSignals } from '../../stop-signals.ts';
import { openDatabase } from '../../storage/postgres/database.ts';
import { migrateOrRefuse, reachDatabase } from '../open-storage.ts';
import { poolPerWorker } from './pool-split.ts';
import { WORKER_ENV, isServingMessage, type WorkerSettings } from './worker.ts';

/** Restart delays of a worker that keeps dying: 1 s, 2 s, 4 s, … up to 30 s. */
const FIRST_RESTART_DELAY_MS = 1000;
const MAX_RESTART_DELAY_MS = 30_000;
/** A worker that served this long before dying starts again from the first delay. */
const STABLE_AFTER_MS = 30_000;

/**
 * --workers > 1: this process does the one-time work (the data dir, the embedded PostgreSQL, the
 * migrations, the PKI and the service account key), then forks the workers, which share the port
 * (node:cluster, round robin) and run the whole server each. It never serves a request itself.
 * A worker that dies is restarted; one that fails to start before all served fails the start. On
 * SIGTERM/SIGINT the workers stop gracefully first, the embedded PostgreSQL last.
 */
export async function runPrimary(config: Config, logger: Logger): Promise<void> {
  const closers = new Closers(logger);
  const live = new Set<Worker>();
  const restartTimers = new Set<NodeJS.Timeout>();
  let allGone: (() => void) | undefined;
  let exitCode = 0;
  let stopping: Promise<void> | undefined;
  // A signal during the one-time work is acted on once it is done (as a single process does).
  let stopRequested = false;
  let canStop = false;

  const stop = (code: number): Promise<void> =>
    (stopping ??= (async () => {
      exitCode = Math.max(exitCode, code);
      for (const timer of restartTimers) clearTimeout(timer);
      // Each worker stops as a single server does on SIGTERM (stop-signals.ts): drains, then exits.
      for (const worker of live) worker.process.kill('SIGTERM');
      if (live.size > 0) await new Promise<void>((resolve) => (allGone = resolve));
      await closers.closeAll();
      logger.info('stopped');
      process.exit(exitCode);
    })());
  onStopSignals({
    logger,
    graceful: () => {
      stopRequested = true;
      if (canStop) void stop(0);
    },
    immediate: () => {
      for (const worker of live) worker.process.kill('SIGKILL');
      process.exit(1);
    },
  });

  let databaseUrl: string;
  try {
    databaseUrl = await oneTimeWork(config, logger, closers);
  } catch (err) {
    if (err instanceof StartupError) logger.fatal(`cannot start: ${err.message}`);
    else logger.fatal({ err }, `cannot start: ${describeError(err)}`);
    await stop(1);
    return;
  }
  canStop = true;
  if (stopRequested) return stop(0);

  cluster.schedulingPolicy = cluster.SCHED_RR;
  // The workers run this very entry (process.argv[1], with its flags); under `npm start` that is
  // dist/src/main.js directly, so source maps are asked for on the command line.
  const execArgv = process.execArgv.includes('--enable-source-maps') ? process.execArgv : [...process.execArgv, '--enable-source-maps'];
  cluster.setupPrimary({ execArgv });
  const pool = poolPerWorker(config.databaseMaxConnections, config.workers);
  const failures = new Map<number, number>();
  let started = false;

  const fork = (index: number): Promise<{ url: string; pid: number | undefined }> => {
    const settings: WorkerSettings = { index, databaseUrl, pool };
    const worker = cluster.fork({ [WORKER_ENV]: JSON.stringify(settings) });
    live.add(worker);
    let servingSince: number | undefined;
    return new Promise((resolve, reject) => {
      worker.on('message', (message: unknown) => {
        if (!isServingMessage(message)) return;
        servingSince = Date.now();
        resolve({ url: message.url, pid: worker.process.pid });
      });
      worker.on('exit', (code, signal) => {
        live.delete(worker);
        const pid = worker.process.pid;
        if (stopping) {
          if (code !== 0) {
            logger.error({ worker: index, workerPid: pid, code, signal }, 'worker did not stop cleanly');
            exitCode = 1;
          }
          if (live.size === 0) allGone?.();
          return;
        }
        if (!started) {
          // Its own log said why (a port in use, an unreadable file…): the start fails as a single process's would.
          reject(new StartupError(`worker ${index} (pid ${pid}) exited with ${signal ?? `code ${code}`} before serving`));
          return;
        }
        const stable = servingSince !== undefined && Date.now() - servingSince >= STABLE_AFTER_MS;
        const n = stable ? 0 : (failures.get(index) ?? 0);
        failures.set(index, n + 1);
        const delayMs = Math.min(FIRST_RESTART_DELAY_MS * 2 ** n, MAX_RESTART_DELAY_MS);
        logger.warn({ worker: index, workerPid: pid, code, signal, restartInMs: delayMs }, 'worker exited unexpectedly; restarting it');
        const timer = setTimeout(() => {
          restartTimers.delete(timer);
          if (stopping) return;
          fork(index).then(
            (served) => logger.info({ worker: index, workerPid: served.pid, url: served.url }, 'worker restarted'),
            () => undefined, // its exit is handled (and logged) above
          );
        }, delayMs);
        restartTimers.add(timer);
      });
    });
  };

  logger.info({ workers: config.workers, poolPerWorker: pool, maxConnections: config.databaseMaxConnections }, 'starting worker processes');
  try {
    const served = await Promise.all(Array.from({ length: config.workers }, (_, i) => fork(i)));
    started = true;
    logger.info({ url: served[0].url, workers: served.map((w) => w.pid) }, 'workers serving');
  } catch (err) {
    logger.fatal(`cannot start: ${describeError(err)}`);
    await stop(1);
  }
}

/**
 * What a single server does at start-up once per data dir and database, done before any worker
 * exists so that they never race for it. Returns the database URL the workers use.
 */
async function oneTimeWork(config: Config, logger: Logger, closers: Closers): Promise<string> {
  const url = await reachDatabase(config, logger, closers);
  // One connection for the migrations, closed before the workers open theirs (see pool-split.ts).
  const database = await openDatabase({
    url,
    caFile: config.databaseCaFile,
    maxConnections: 1,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    logger,
  });
  try {
    await migrateOrRefuse(config, database, logger);
  } finally {
    await database.close();
  }
  const pki = await ensurePki({ dir: path.join(config.dataDir, 'pki'), bindAddress: config.bindAddress, extraNames: config.tlsExtraSans });
  for (const change of pki.changes) logger.info(change, 'pki');
  if (!config.serviceAccountSigningKeyFile) await ensureGeneratedSigningKey(config.dataDir);
  return url;
}
