import cluster from 'node:cluster';
import type { Config } from '../../config.ts';

/** The environment variable through which the primary hands a worker its share (JSON). */
export const WORKER_ENV = 'PGKUBE_WORKER';

/** What the primary decided once for all workers (see primary.ts). */
export interface WorkerSettings {
  /** 0…N-1; a restarted worker keeps the index of the one it replaces. */
  readonly index: number;
  /** --database-url, or the embedded PostgreSQL the primary started. */
  readonly databaseUrl: string;
  /** This worker's pool (its LISTEN connection comes on top; see pool-split.ts). */
  readonly pool: number;
}

/** The message a worker sends its primary once it serves. */
export interface ServingMessage {
  readonly type: 'pgkube-worker-serving';
  readonly url: string;
}

export function isServingMessage(message: unknown): message is ServingMessage {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'pgkube-worker-serving';
}

/**
 * In a worker process: the flags it was started with (the primary's own), changed in place (the
 * Config keeps what loadConfig recorded about it) to the worker's share: the database the primary
 * reached, the pool split, the schema already migrated by the primary, and leader election always
 * on, so that the controllers run in one worker only.
 */
export function applyWorkerSettings(config: Config): WorkerSettings {
  const text = process.env[WORKER_ENV];
  if (!cluster.isWorker || !text) throw new Error(`a worker process needs ${WORKER_ENV} from its primary`);
  const settings = JSON.parse(text) as WorkerSettings;
  config.databaseUrl = settings.databaseUrl;
  config.databaseMaxConnections = settings.pool;
  config.autoMigrate = false;
  config.leaderElect = true;
  return settings;
}

/** Tells the primary that this worker serves. */
export function reportServing(url: string): void {
  const message: ServingMessage = { type: 'pgkube-worker-serving', url };
  process.send?.(message);
}
