import type https from 'node:https';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import type { BenchConfig } from './config.ts';
import { expect } from './http.ts';
import { encodeOps, WRITE_BATCH_SQL, createOp, seqName } from './objects.ts';
import type { EtcdPeer } from './etcd/peer.ts';
import type { BenchServer } from './server.ts';

/** What every measure gets: settings, the running server, and raw connections beside it. */
export interface BenchContext {
  readonly cfg: BenchConfig;
  readonly server: BenchServer;
  /** Keep-alive agent (admin client cert) for the request-response measures. */
  readonly agent: https.Agent;
  /** Raw connections to the server's own database (reads, seeding). */
  readonly serverDb: pg.Pool;
  /** A second database with the same schema and no server on it: raw writes and NOTIFY go here, so the
   * server's watch hub neither sees them nor competes with them. */
  readonly rawDbUrl: string;
  /** etcd beside the server (`--peer etcd`). */
  readonly peer?: EtcdPeer;
  /** Counts a comparison process's CPU (the bare HTTPS baseline) as a peer's, not as other load. */
  trackPeerCpu(pid: number): void;
  url(path: string): URL;
  /** Logs progress and starts a CPU-accounting phase of that name. */
  step(phase: string, detail: string, ops?: number): void;
}

const started = performance.now();

export function logLine(message: string): void {
  process.stderr.write(`[bench ${((performance.now() - started) / 1000).toFixed(1).padStart(6)}s] ${message}\n`);
}

/** Creates a namespace through the API (creates are refused in a namespace that does not exist). */
export async function ensureNamespace(ctx: BenchContext, name: string): Promise<void> {
  const body = JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  await expect(201, ctx.url('/api/v1/namespaces'), ctx.agent, 'POST', body);
}

/**
 * Stores `count` ConfigMaps straight through kube_write_batch (the server's own write function) in
 * batches: fast set-up for the read measures; what a read costs does not depend on how rows got there.
 */
export async function seedConfigMaps(pool: pg.Pool, namespace: string, prefix: string, count: number, bytes: number): Promise<string[]> {
  const names = Array.from({ length: count }, (_, i) => seqName(prefix, i));
  for (let i = 0; i < count; i += 500) {
    const ops = names.slice(i, i + 500).map((n) => createOp(namespace, n, bytes));
    const res = await pool.query(WRITE_BATCH_SQL, [encodeOps(ops)]);
    const bad = res.rows.find((r: { outcome: string }) => r.outcome !== 'ok');
    if (bad) throw new Error(`seeding ${namespace}: ${bad.outcome}`);
  }
  return names;
}

export function newPool(connectionString: string, max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString, max });
  pool.on('error', () => undefined);
  return pool;
}
