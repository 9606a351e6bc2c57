import { mkdtemp, readFile, rm } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../../src/config.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { createTestDatabase, dropInBackground, migratedTemplate, serverDatabaseEnv, templateDatabase, type TestDatabase } from './database.ts';
import { createNamespace, type Api } from './fixtures.ts';
import { seedServiceAccountKey } from './service-account-key.ts';
import { client } from './http.ts';

export interface TestServer {
  readonly server: RunningServer;
  readonly url: string;
  readonly kubeconfig: string;
  readonly dataDir: string;
  readonly db: TestDatabase;
  /** An https agent that presents the admin client certificate. */
  readonly adminAgent: https.Agent;
  /** An https agent with no client certificate (anonymous). */
  readonly anonymousAgent: https.Agent;
  readonly ca: string;
  stop(): Promise<void>;
}

export interface TestServerOptions {
  /** A database to serve (it is dropped by stop()); default a fresh one. */
  readonly database?: TestDatabase;
  /** The logger the server gets (default: silent, or TEST_LOG_LEVEL). */
  readonly logger?: pino.Logger;
  /**
   * Let the server generate its service account signing key (RSA 2048, slow and of random length
   * to make) instead of finding one made earlier in the data dir, as on a restart. The generating
   * path has its own test (test/auth/service-account-tokens.test.ts).
   */
  readonly generateServiceAccountKey?: boolean;
}

/**
 * Test servers share the machine's PostgreSQL (max_connections 100) with the other test files running
 * beside them: a smaller pool than the default 20 unless the test names its own, or three files'
 * servers filling their pools at start-up (controllers, informers) exhaust it.
 */
const TEST_POOL_SIZE = 8;
function poolFlag(flags: readonly string[]): string[] {
  return flags.some((f) => f.startsWith('--database-max-connections')) ? [] : [`--database-max-connections=${TEST_POOL_SIZE}`];
}

/**
 * Set by scripts/test.mjs for one run of the suite, which drops the run's template at its end (see
 * bootstrappedTemplate).
 */
const RUN = process.env.PGKUBE_TEST_RUN;
let bootstrapped: Promise<string> | undefined;

/**
 * Within a run of `npm test`: a database holding what a server's first start leaves (the schema, and
 * the ~170 objects it bootstraps: RBAC policy, APF configuration, APIServices, namespaces), made once
 * per run by the first test that needs it. Test servers start on a copy and find those objects, as
 * on a restart, instead of creating them: about 0.3 s of CPU and 0.7 s less per test server. Made
 * per run, so that it always holds what the tree's code bootstraps. Outside a run (a file run with
 * `node --test`), undefined: servers start on the migrated template and bootstrap.
 */
function bootstrappedTemplate(): Promise<string> | undefined {
  if (!RUN) return undefined;
  return (bootstrapped ??= (async () => {
    const from = await migratedTemplate();
    return templateDatabase(
      `pgkube_boot_${RUN}`,
      async (url) => {
        const dataDir = await mkdtemp(path.join(tmpdir(), 'pgkube-test-'));
        try {
          await seedServiceAccountKey(dataDir);
          // Without leader election: a Lease the template kept would keep the test servers' controllers
          // waiting for it to expire (one taken just as the server stops is never handed back).
          const flags = ['--secure-port=0', `--data-dir=${dataDir}`, '--log-level=silent', '--database-max-connections=4', '--leader-elect=false'];
          const config = loadConfig(flags, { DATABASE_URL: url });
          const server = await startServer(config, pino({ level: 'silent' }));
          await server.stop();
        } finally {
          await rm(dataDir, { recursive: true, force: true });
        }
      },
      from,
    );
  })().catch((err) => {
    bootstrapped = undefined;
    throw err;
  }));
}

/** Starts the whole server in-process on a free port, against a fresh database and data dir. */
export async function startTestServer(extraFlags: string[] = [], options: TestServerOptions = {}): Promise<TestServer> {
  const db = options.database ?? (await createTestDatabase(undefined, { migrated: true, template: await bootstrappedTemplate() }));
  const dataDir = await mkdtemp(path.join(tmpdir(), 'pgkube-test-'));
  if (!options.generateServiceAccountKey) await seedServiceAccountKey(dataDir);
  let server: RunningServer;
  try {
    // Inside the try: a flag refused here also cleans up the database and the data dir.
    const config = loadConfig(
      ['--secure-port=0', `--data-dir=${dataDir}`, '--log-level=silent', '--leader-elect-lease-duration=3s', ...poolFlag(extraFlags), ...extraFlags],
      serverDatabaseEnv(db),
    );
    server = await startServer(config, options.logger ?? pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }));
  } catch (err) {
    if (options.database) await db.drop().catch(() => undefined);
    else dropInBackground(db);
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
  const pki = path.join(dataDir, 'pki');
  const [ca, cert, key] = await Promise.all(['ca.crt', 'admin.crt', 'admin.key'].map((f) => readFile(path.join(pki, f), 'utf8')));
  const adminAgent = new https.Agent({ ca, cert, key, keepAlive: true });
  const anonymousAgent = new https.Agent({ ca, keepAlive: true });
  return {
    server,
    url: server.url,
    kubeconfig: server.kubeconfigPath,
    dataDir,
    db,
    adminAgent,
    anonymousAgent,
    ca,
    stop: async () => {
      adminAgent.destroy();
      anonymousAgent.destroy();
      await server.stop();
      // A database of our own is dropped without waiting (see dropInBackground); a given one as before.
      if (options.database) await db.drop();
      else dropInBackground(db);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** What a test file served by one server reads: set once its `before` hook ran. */
export interface ServedFile {
  readonly srv: TestServer;
  /** The admin client. */
  readonly api: Api;
  /** A client without credentials. */
  readonly anon: Api;
  /** A namespace made for this file. */
  readonly ns: string;
}

/**
 * Starts one server for the tests of a file (before them) and stops it after them; the returned
 * object's fields are filled in by the `before` hook, which then runs `setup` (the file's own
 * preparation). Extra flags go to the server.
 *
 * @example
 * const t = serveFile();
 * test('…', async () => { await t.api.get(`/api/v1/namespaces/${t.ns}/configmaps`); });
 */
export function serveFile(extraFlags: string[] = [], setup?: (served: ServedFile) => Promise<void> | void, options: TestServerOptions = {}): ServedFile {
  const served = {} as { -readonly [K in keyof ServedFile]: ServedFile[K] };
  // One hook does it all: a file's own before hook is not guaranteed to run after this one.
  before(async () => {
    served.srv = await startTestServer(extraFlags, options);
    served.api = client(served.srv.url, served.srv.adminAgent);
    served.anon = client(served.srv.url, served.srv.anonymousAgent);
    served.ns = await createNamespace(served.api);
    await setup?.(served);
  });
  after(async () => {
    await served.srv?.stop();
  });
  return served;
}
