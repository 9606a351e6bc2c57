import { readFile } from 'node:fs/promises';
import type { Http2SecureServer } from 'node:http2';
import path from 'node:path';
import pino, { type Logger } from 'pino';
import { setUpAuth } from './auth/setup.ts';
import { writeAdminKubeconfig } from './auth/kubeconfig.ts';
import { ensurePki } from './auth/pki/ensure-pki.ts';
import { parseFeatureGates } from './features/feature-gates.ts';
import type { Config } from './config.ts';
import { startControllers, type Controllers } from './controllers/controller-manager.ts';
import { buildApp } from './http/app.ts';
import { startFlowControl, type FlowControl } from './flowcontrol/start-flow-control.ts';
import type { FeatureGates } from './api/request-context.ts';
import { ServerMetrics } from './metrics/server-metrics.ts';
import { setUpAudit } from './audit/options.ts';
import { drainServer } from './http/drain-server.ts';
import { ShutdownGate } from './http/shutdown-gate.ts';
import { ApiSurface } from './registry/api-surface.ts';
import { Compactor } from './storage/postgres/compactor.ts';
import type { Database } from './storage/postgres/database.ts';
import type { PostgresStorage } from './storage/postgres/postgres-storage.ts';
import { buildApi } from './startup/build-api.ts';
import { startCrdServing } from './crd/serving/crd-serving.ts';
import { healthChecks } from './startup/health.ts';
import { listen } from './startup/listen.ts';
import { openStorage } from './startup/open-storage.ts';
import { withWatchCache } from './startup/watch-cache.ts';
import type { CachedStorage } from './storage/cache/cached-storage.ts';
import { Closers } from './closers.ts';
import { withSafeErrorLogs } from './logging/safe-error-log.ts';

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  readonly kubeconfigPath: string;
  readonly storage: PostgresStorage;
  /** The watch cache in front of the API's reads (absent with --watch-cache=false). */
  readonly watchCache?: CachedStorage;
  readonly surface: ApiSurface;
  readonly logger: Logger;
  /** The TLS server of HTTP/2 and HTTP/1.1 (its connections, for tests and diagnostics). */
  readonly httpServer: Http2SecureServer;
  /** The in-process controllers (and their leader elector when --leader-elect is on). */
  readonly controllers: Controllers;
  /**
   * Graceful stop, as kube-apiserver terminates: readyz fails at once; after
   * --shutdown-delay-duration new requests are refused and watches end; requests in flight finish;
   * then the controllers, the storage and the database (the embedded one last) stop.
   */
  stop(): Promise<void>;
}

/** Brings the whole server up from a Config; see main.ts for flags. */
export async function startServer(config: Config, baseLogger: Logger = pino({ level: config.logLevel })): Promise<RunningServer> {
  // Every component logs through this one: database errors lose the fields that quote request data.
  const logger = withSafeErrorLogs(baseLogger);
  const closers = new Closers(logger);
  try {
    return await bringUp(config, logger, closers);
  } catch (err) {
    await closers.closeAll();
    throw err;
  }
}

/**
 * The start-up steps in order; each registers what stops it in `closers`, so that a failed start
 * and a stop undo them in reverse.
 */
async function bringUp(config: Config, logger: Logger, closers: Closers): Promise<RunningServer> {
  // First of all: a bad --feature-gates stops the start with upstream's words.
  const { gates, warnings: gateWarnings } = parseFeatureGates(config.featureGates);
  for (const warning of gateWarnings) logger.warn(warning);
  logger.debug({ featureGates: gates.toString() }, 'feature gates');
  // Then a bad audit policy stops the start before anything else is up; the log closes last.
  const audit = await setUpAudit(config, logger);
  closers.add('audit log', () => audit.close());
  const { database, storage } = await openStorage(config, logger, closers);
  // This server's own metrics registry; the API works on the storage with its requests timed.
  const metrics = new ServerMetrics({ showHiddenMetricsForVersion: config.showHiddenMetricsForVersion, pool: database.pool });
  closers.add('metrics', () => metrics.close());
  const served = withWatchCache(config, metrics.timed(storage), database, logger, closers);
  const { surface, namespaceView } = await buildApi(config, served.storage, logger, closers);
  // Custom resources of the stored CRDs are served before the server listens, and follow every CRD change.
  await startCrdServing({ surface, logger, closers });
  startCompactor(config, database, logger, closers);
  const pki = await ensurePki({ dir: path.join(config.dataDir, 'pki'), bindAddress: config.bindAddress, extraNames: config.tlsExtraSans });
  for (const change of pki.changes) logger.info(change, 'pki');
  const tls = {
    cert: config.tlsCertFile ? await readFile(config.tlsCertFile, 'utf8') : pki.servingCert.pem,
    key: config.tlsPrivateKeyFile ? await readFile(config.tlsPrivateKeyFile, 'utf8') : pki.servingKey.pem,
    clientCa: config.clientCaFile ? await readFile(config.clientCaFile, 'utf8') : pki.caCert.pem,
  };

  const auth = await setUpAuth({ config, surface, logger, closers });
  const flowControl = await startPriorityAndFairness(config, { surface, logger, closers, metrics, storage, gates });

  let shuttingDown = false;
  const checks = healthChecks(config, storage, () => shuttingDown);
  let serverAddress = '';
  const shutdownGate = new ShutdownGate({ sendRetryAfter: config.shutdownSendRetryAfter });
  const app = buildApp({
    shutdownGate,
    maxInFlight: { nonMutating: config.maxRequestsInflight, mutating: config.maxMutatingRequestsInflight },
    ...(flowControl ? { flowControl } : {}),
    surface,
    auth,
    health: { forEndpoint: (e) => checks[e] },
    settings: {
      maxRequestBodyBytes: config.maxRequestBodyBytes,
      watchBookmarkIntervalMs: config.watchBookmarkIntervalMs,
      minRequestTimeoutSeconds: config.minRequestTimeout,
      requestTimeoutMs: config.requestTimeoutMs,
      featureGates: gates,
      auth: auth.services,
    },
    logger,
    compression: gates.enabled('APIResponseCompression'),
    goawayChance: config.goawayChance,
    serverAddress: () => serverAddress,
    ...(audit.auditor ? { auditor: audit.auditor } : {}),
    metrics,
  });
  const { server, connections, port, url, address } = await listen(config, tls, app.callback(), closers);
  serverAddress = address;

  const kubeconfigPath = path.join(config.dataDir, 'admin.kubeconfig');
  await writeAdminKubeconfig(kubeconfigPath, { server: url, caPem: pki.caCert.pem, certPem: pki.adminCert.pem, keyPem: pki.adminKey.pem });

  const controllers: Controllers = await startControllers({ surface, namespaceView, logger, leaderElect: config.leaderElect, leaseDurationMs: config.leaderElectLeaseDurationMs, eventTtlMs: config.eventTtlMs, controllers: config.controllers });
  logger.info({ url, kubeconfig: kubeconfigPath }, 'serving');

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      shuttingDown = true;
      if (config.shutdownDelayDurationMs > 0) await new Promise((r) => setTimeout(r, config.shutdownDelayDurationMs));
      await controllers.stop();
      await drainServer({ server, connections, gate: shutdownGate, sendRetryAfter: config.shutdownSendRetryAfter, timeoutMs: config.shutdownTimeoutMs, logger });
      // The rest in reverse order of start: compactor, admission and informers, watches and storage, the pool, the embedded PostgreSQL.
      await closers.closeAll();
      logger.info('stopped');
    })());

  return { url, port, kubeconfigPath, storage, ...(served.cache ? { watchCache: served.cache } : {}), surface, logger, httpServer: server, controllers, stop };
}

/**
 * Start-up step: API priority and fairness (unless --enable-priority-and-fairness=false), on the
 * server's whole in-flight allowance, with its configuration read before the first request.
 */
async function startPriorityAndFairness(
  config: Config,
  deps: { surface: ApiSurface; logger: Logger; closers: Closers; metrics: ServerMetrics; storage: PostgresStorage; gates: FeatureGates },
): Promise<FlowControl | undefined> {
  if (!config.enablePriorityAndFairness) return undefined;
  return startFlowControl({
    surface: deps.surface,
    logger: deps.logger,
    closers: deps.closers,
    serverConcurrencyLimit: config.maxRequestsInflight + config.maxMutatingRequestsInflight,
    requestTimeoutMs: config.requestTimeoutMs,
    registry: deps.metrics.registry,
    objectCounts: deps.metrics.objectCounts,
    watchers: deps.storage.hub,
    featureGates: deps.gates,
  });
}

/** Start-up step: history older than --history-window is compacted every --compaction-interval. */
function startCompactor(config: Config, database: Database, logger: Logger, closers: Closers): void {
  const compactor = new Compactor({ pool: database.pool, logger, windowMs: config.historyWindowMs, intervalMs: config.compactionIntervalMs });
  compactor.start();
  closers.add('compactor', () => compactor.stop());
}
