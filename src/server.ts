import { readFile } from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import pino, { type Logger } from 'pino';
import { seedBootstrapNamespaces } from '../seeds/bootstrap-namespaces.ts';
import { admissionPluginNames, startAdmission } from './admission/index.ts';
import { featureGateSet } from './api/request-context.ts';
import { BearerTokenAuthenticator } from './auth/authn/bearer-token-authenticator.ts';
import { X509Authenticator } from './auth/authn/x509-authenticator.ts';
import type { Authorizer } from './auth/authz/authorizer.ts';
import {
  alwaysAllowAuthorizer,
  alwaysDenyAuthorizer,
  privilegedGroupAuthorizer,
  publicInfoAuthorizer,
} from './auth/authz/builtin-authorizers.ts';
import { writeAdminKubeconfig } from './auth/kubeconfig.ts';
import { ensurePki } from './auth/pki/ensure-pki.ts';
import type { Config } from './config.ts';
import { prepareDataDir } from './data-dir.ts';
import { startControllers, type Controllers } from './controllers/controller-manager.ts';
import { buildApp } from './http/app.ts';
import { drainServer } from './http/drain-server.ts';
import { ShutdownGate } from './http/shutdown-gate.ts';
import { pingCheck, type HealthCheck } from './http/health/health-checks.ts';
import type { HealthEndpoint } from './http/routes/health-routes.ts';
import { builtinKinds } from './kinds/index.ts';
import { ApiSurface } from './registry/api-surface.ts';
import { Informer } from './registry/informer.ts';
import { ResourceStore } from './registry/resource-store.ts';
import { NO_ADMISSION } from './admission/chain.ts';
import { namespaces } from './kinds/namespace.ts';
import { enabledKinds } from './registry/runtime-config.ts';
import { Compactor } from './storage/postgres/compactor.ts';
import { migrateUp, openDatabase, pendingMigrations, type Database } from './storage/postgres/database.ts';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './storage/postgres/embedded/embedded-postgres.ts';
import { PostgresStorage } from './storage/postgres/postgres-storage.ts';
import { StartupError } from './startup-error.ts';
import { Closers } from './closers.ts';
import { withSafeErrorLogs } from './logging/safe-error-log.ts';

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  readonly kubeconfigPath: string;
  readonly storage: PostgresStorage;
  readonly surface: ApiSurface;
  readonly logger: Logger;
  /** The HTTPS server (its connections, for tests and diagnostics). */
  readonly httpServer: https.Server;
  /** The in-process controllers (and their leader elector when --leader-elect is on). */
  readonly controllers: Controllers;
  /**
   * Graceful stop, as kube-apiserver terminates: readyz fails at once; after
   * --shutdown-delay-duration new requests are refused and watches end; requests in flight finish;
   * then the controllers, the storage and the database (the embedded one last) stop.
   */
  stop(): Promise<void>;
}

function featureGates(entries: readonly string[]): Map<string, boolean> {
  const gates = new Map<string, boolean>([
    ['APIResponseCompression', true],
    ['WatchList', true],
  ]);
  for (const entry of entries) {
    const [name, value] = entry.split('=');
    if (!gates.has(name)) throw new Error(`--feature-gates: unrecognized feature gate: ${name}`);
    if (value !== 'true' && value !== 'false') throw new Error(`--feature-gates: invalid value of ${name}=${value}, err: must be true or false`);
    gates.set(name, value === 'true');
  }
  return gates;
}

function authorizersFor(modes: readonly string[]): Authorizer[] {
  const chain: Authorizer[] = [privilegedGroupAuthorizer, publicInfoAuthorizer];
  for (const mode of modes) chain.push(mode === 'AlwaysAllow' ? alwaysAllowAuthorizer : alwaysDenyAuthorizer);
  return chain;
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

async function bringUp(config: Config, logger: Logger, closers: Closers): Promise<RunningServer> {
  const gates = featureGates(config.featureGates);
  const kinds = enabledKinds(builtinKinds, config.runtimeConfig);

  let embedded: EmbeddedDatabase | undefined;
  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    embedded = await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPostgresPort, logger });
    closers.add('embedded-postgres', () => embedded!.stop());
    databaseUrl = embedded.url;
  } else {
    await prepareDataDir(config.dataDir, logger);
  }
  const database: Database = await openDatabase({
    url: databaseUrl,
    listenUrl: config.databaseListenUrl,
    caFile: config.databaseCaFile,
    maxConnections: config.databaseMaxConnections,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    logger,
  });
  closers.add('database', () => database.close());
  if (config.autoMigrate) {
    const result = await migrateUp(database.db);
    for (const r of result.results ?? []) logger.info({ migration: r.migrationName, status: r.status }, 'migration');
  } else {
    const pending = await pendingMigrations(database.db);
    if (pending.length > 0) {
      throw new StartupError(`the database schema has pending migrations (${pending.join(', ')}); run "npm run migrate -- up" or start with --auto-migrate=true`);
    }
  }

  const storage = new PostgresStorage({ database, logger });
  closers.add('storage', () => storage.close());
  await storage.start();
  // The shared namespace view: admission and the namespace controller read it. Reading namespaces
  // needs no admission, and the admission chain exists before the API surface does.
  const namespaceStore = new ResourceStore(namespaces, storage, NO_ADMISSION);
  const namespaceView = new Informer(namespaceStore, { logger });
  await namespaceView.start();
  closers.add('namespace-informer', () => namespaceView.stop());
  const admission = await startAdmission(admissionPluginNames(config.enableAdmissionPlugins, config.disableAdmissionPlugins), { namespaces: namespaceStore, namespaceView });
  closers.add('admission', () => admission.stop());
  logger.info({ plugins: admission.chain.names }, 'admission plugins');
  const surface = new ApiSurface(kinds, storage, admission.chain);
  const seeded = await seedBootstrapNamespaces(storage);
  if (seeded.length > 0) logger.info({ namespaces: seeded }, 'created bootstrap namespaces');

  const compactor = new Compactor({ pool: database.pool, logger, windowMs: config.historyWindowMs, intervalMs: config.compactionIntervalMs });
  compactor.start();
  closers.add('compactor', () => compactor.stop());

  const pki = await ensurePki({ dir: path.join(config.dataDir, 'pki'), bindAddress: config.bindAddress, extraNames: config.tlsExtraSans });
  for (const change of pki.changes) logger.info(change, 'pki');
  const cert = config.tlsCertFile ? await readFile(config.tlsCertFile, 'utf8') : pki.servingCert.pem;
  const key = config.tlsPrivateKeyFile ? await readFile(config.tlsPrivateKeyFile, 'utf8') : pki.servingKey.pem;
  const clientCa = config.clientCaFile ? await readFile(config.clientCaFile, 'utf8') : pki.caCert.pem;

  let shuttingDown = false;
  const startedAt = Date.now();
  // Checks that pass once start-up got this far; they are listed so operators see what ran.
  const passing = (name: string): HealthCheck => ({ name, check: () => undefined });
  const startHooks = [passing('poststarthook/start-watch-hub'), passing('poststarthook/bootstrap-namespaces')];
  // A database that does not answer fails the check within the timeout instead of holding the probe.
  const databaseCheck: HealthCheck = { name: 'postgres', check: () => storage.ping(config.databaseHealthcheckTimeoutMs) };
  const liveDatabaseCheck: HealthCheck = {
    name: 'postgres',
    check: async () => {
      if (Date.now() - startedAt < config.livezGracePeriodMs) return;
      await storage.ping(config.databaseHealthcheckTimeoutMs);
    },
  };
  const shutdownCheck: HealthCheck = {
    name: 'shutdown',
    check: () => {
      if (shuttingDown) throw new Error('process is shutting down');
    },
  };
  const checks: Record<HealthEndpoint, HealthCheck[]> = {
    livez: [pingCheck, passing('log'), liveDatabaseCheck, ...startHooks],
    readyz: [pingCheck, passing('log'), databaseCheck, ...startHooks, shutdownCheck],
    healthz: [pingCheck, passing('log'), databaseCheck, ...startHooks],
  };

  let serverAddress = '';
  const shutdownGate = new ShutdownGate({ sendRetryAfter: config.shutdownSendRetryAfter });
  const app = buildApp({
    shutdownGate,
    maxInFlight: { nonMutating: config.maxRequestsInflight, mutating: config.maxMutatingRequestsInflight },
    surface,
    // Bearer tokens: no token source yet (token files, service accounts and OIDC come with RBAC), so
    // every token is invalid credentials (401) rather than an anonymous request.
    authenticators: [new X509Authenticator(), new BearerTokenAuthenticator([])],
    authorizers: authorizersFor(config.authorizationMode),
    health: { forEndpoint: (e) => checks[e] },
    settings: {
      maxRequestBodyBytes: config.maxRequestBodyBytes,
      watchBookmarkIntervalMs: config.watchBookmarkIntervalMs,
      minRequestTimeoutSeconds: config.minRequestTimeout,
      requestTimeoutMs: config.requestTimeoutMs,
      featureGates: featureGateSet(gates),
    },
    logger,
    compression: gates.get('APIResponseCompression') === true,
    serverAddress: () => serverAddress,
  });

  const server = https.createServer({ cert, key, ca: clientCa, requestCert: true, rejectUnauthorized: false }, app.callback());
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      const where = `${config.bindAddress}:${config.securePort}`;
      if (err.code === 'EADDRINUSE') reject(new StartupError(`cannot serve on ${where}: the port is already in use; stop what holds it or choose another with --secure-port`));
      else if (err.code === 'EACCES') reject(new StartupError(`cannot serve on ${where}: permission denied (ports below 1024 need privileges)`));
      else if (err.code === 'EADDRNOTAVAIL') reject(new StartupError(`cannot serve on ${where}: no such address on this machine (--bind-address)`));
      else reject(err);
    });
    server.listen(config.securePort, config.bindAddress, () => resolve());
  });
  // Only for a start-up that fails from here on; a graceful stop drains the server first.
  closers.add('https', () => {
    if (server.listening) server.close();
    server.closeAllConnections();
  });
  const port = (server.address() as AddressInfo).port;
  const host = config.bindAddress === '0.0.0.0' || config.bindAddress === '::' ? '127.0.0.1' : config.bindAddress;
  const url = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  serverAddress = `${host}:${port}`;

  const kubeconfigPath = path.join(config.dataDir, 'admin.kubeconfig');
  await writeAdminKubeconfig(kubeconfigPath, { server: url, caPem: pki.caCert.pem, certPem: pki.adminCert.pem, keyPem: pki.adminKey.pem });

  const controllers: Controllers = await startControllers({ surface, namespaceView, logger, leaderElect: config.leaderElect, leaseDurationMs: config.leaderElectLeaseDurationMs, eventTtlMs: config.eventTtlMs });
  logger.info({ url, kubeconfig: kubeconfigPath }, 'serving');

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      shuttingDown = true;
      if (config.shutdownDelayDurationMs > 0) await new Promise((r) => setTimeout(r, config.shutdownDelayDurationMs));
      await controllers.stop();
      await drainServer({ server, gate: shutdownGate, sendRetryAfter: config.shutdownSendRetryAfter, timeoutMs: config.shutdownTimeoutMs, logger });
      // The rest in reverse order of start: compactor, watches and storage, the pool, the embedded PostgreSQL.
      await closers.closeAll();
      logger.info('stopped');
    })());

  return { url, port, kubeconfigPath, storage, surface, logger, httpServer: server, controllers, stop };
}
