import { mkdtemp, readFile, rm } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '../test/helpers/database.ts';
import { startServerProcess } from '../test/helpers/server-process.ts';
import { startTestServer } from '../test/helpers/server.ts';

export interface BenchServer {
  readonly mode: 'child' | 'inprocess';
  readonly url: string;
  /** The server's process id (this process's when in-process), for CPU accounting. */
  readonly pid: number | undefined;
  /** The server's database (the bench reads it raw for the get and list comparisons). */
  readonly databaseUrl: string;
  /** The CA, the admin client certificate and the server's serving certificate (HTTP/2 clients, the bare HTTPS baseline). */
  readonly tls: Tls;
  /** A keep-alive agent presenting the admin client certificate; destroyed by stop(). */
  agent(options?: https.AgentOptions): https.Agent;
  /** A keep-alive agent without a client certificate (system:anonymous); destroyed by stop(). */
  anonymousAgent(options?: https.AgentOptions): https.Agent;
  stop(): Promise<void>;
}

export interface Tls {
  ca: string;
  cert: string;
  key: string;
  servingCert: string;
  servingKey: string;
}

export async function readAdminTls(dataDir: string): Promise<Tls> {
  const pki = path.join(dataDir, 'pki');
  const files = ['ca.crt', 'admin.crt', 'admin.key', 'apiserver.crt', 'apiserver.key'];
  const [ca, cert, key, servingCert, servingKey] = await Promise.all(files.map((f) => readFile(path.join(pki, f), 'utf8')));
  return { ca, cert, key, servingCert, servingKey };
}

function agentFactory(tls: Tls) {
  const agents: https.Agent[] = [];
  return {
    tls,
    agent: (options: https.AgentOptions = {}) => {
      const a = new https.Agent({ ca: tls.ca, cert: tls.cert, key: tls.key, keepAlive: true, ...options });
      agents.push(a);
      return a;
    },
    anonymousAgent: (options: https.AgentOptions = {}) => {
      const a = new https.Agent({ ca: tls.ca, keepAlive: true, ...options });
      agents.push(a);
      return a;
    },
    destroyAll: () => {
      for (const a of agents) a.destroy();
    },
  };
}

/**
 * The real server on a fresh database. 'child' runs the compiled server as its own process (as `npm start`
 * does), so the server's event loop does not share a thread with the load generator; 'inprocess' uses
 * the test harness's in-process server (log level silent). `flags` are server flags (the soak's
 * scenarios start servers with the limits they exercise).
 */
export async function startBenchServer(mode: 'child' | 'inprocess', flags: string[] = []): Promise<BenchServer> {
  if (mode === 'inprocess') {
    const ts = await startTestServer(flags);
    const agents = agentFactory(await readAdminTls(ts.dataDir));
    return {
      mode,
      url: ts.url,
      pid: undefined,
      databaseUrl: ts.db.url,
      tls: agents.tls,
      agent: agents.agent,
      anonymousAgent: agents.anonymousAgent,
      stop: async () => {
        agents.destroyAll();
        await ts.stop();
      },
    };
  }

  const db: TestDatabase = await createTestDatabase('pgkube_bench');
  const dataDir = await mkdtemp(path.join(tmpdir(), 'pgkube-bench-'));
  const cleanup = async () => {
    await db.drop().catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true });
  };
  let proc;
  try {
    // The helper logs at info so it can see "serving"; the server logs nothing per request at info.
    // BENCH_CPU_PROFILE=<dir>: the server writes a V8 CPU profile there when it stops (to find what a figure costs).
    const profileDir = process.env.BENCH_CPU_PROFILE;
    // BENCH_WORKERS=<n>: the server runs n worker processes; unset, --workers is left empty, the
    // server's default (as npm start runs it). The CPU figures count the primary and its workers.
    const workers = [`--workers=${process.env.BENCH_WORKERS ?? ''}`];
    proc = await startServerProcess(db.url, dataDir, [...workers, ...flags], { compiled: true, ...(profileDir ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] } : {}) });
  } catch (err) {
    await cleanup();
    throw err;
  }
  const agents = agentFactory(await readAdminTls(dataDir));
  const running = proc;
  return {
    mode,
    url: running.url,
    pid: running.child.pid,
    databaseUrl: db.url,
    tls: agents.tls,
    agent: agents.agent,
    anonymousAgent: agents.anonymousAgent,
    stop: async () => {
      agents.destroyAll();
      await running.stop();
      await cleanup();
    },
  };
}
