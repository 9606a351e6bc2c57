import type pg from 'pg';
import type { ObjectCounts } from '../flowcontrol/object-counts.ts';
import type { ApiSurface } from '../registry/api-surface.ts';
import { StorageError, type ResourceRef, type Storage } from '../storage/storage.ts';
import type { ApiserverMetrics } from './apiserver-metrics.ts';
import type { CounterSeries, HistogramSeries } from './families.ts';

type Operation = 'get' | 'list' | 'create' | 'update' | 'delete';

interface OperationSeries {
  readonly duration: HistogramSeries;
  readonly requests: CounterSeries;
  readonly errors: CounterSeries;
}

/**
 * Storage errors that mean the request to the database failed; the others (not found, conflict, an
 * object that cannot be decoded …) are answers to a request that worked, as etcd's are.
 */
const FAILED_REQUEST = new Set<StorageError['code']>(['Unavailable', 'Timeout']);

/** The storage requests that are timed, and the operation each is reported as. */
const TIMED = { get: 'get', list: 'list', openList: 'list', create: 'create', update: 'update', delete: 'delete' } as const;

/**
 * Times the storage's requests to PostgreSQL as the etcd store times its calls
 * (etcd_request_duration_seconds, etcd_requests_total, etcd_request_errors_total), by operation,
 * group and resource: get, list (a page, or opening a streamed list: its first chunk), create,
 * update, delete (a write's time includes its wait to join a group commit). An answer such as "not
 * found" or "conflict" is not an error; a database that fails or does not answer is. Watches and
 * the version probes are left alone.
 *
 * The six methods are wrapped on the instance rather than behind a wrapper class: the storage
 * contract has optional capabilities (and gains more), which a wrapper would hide unless it knew
 * each of them.
 */
export function timeStorageRequests(storage: Storage, metrics: ApiserverMetrics): void {
  const cache = new Map<Operation, Map<string, Map<string, OperationSeries>>>();
  const seriesOf = (operation: Operation, ref: ResourceRef): OperationSeries => {
    let byGroup = cache.get(operation);
    if (!byGroup) cache.set(operation, (byGroup = new Map()));
    let byResource = byGroup.get(ref.group);
    if (!byResource) byGroup.set(ref.group, (byResource = new Map()));
    let series = byResource.get(ref.resource);
    if (!series) {
      series = {
        duration: metrics.postgresRequestDuration.series(operation, ref.group, ref.resource),
        requests: metrics.postgresRequests.series(operation, ref.group, ref.resource),
        errors: metrics.postgresRequestErrors.series(operation, ref.group, ref.resource),
      };
      byResource.set(ref.resource, series);
    }
    return series;
  };
  const methods = storage as unknown as Record<keyof typeof TIMED, (ref: ResourceRef, ...rest: unknown[]) => Promise<unknown>>;
  for (const [method, operation] of Object.entries(TIMED) as [keyof typeof TIMED, Operation][]) {
    const request = methods[method].bind(storage);
    methods[method] = (ref, ...rest) => {
      const started = performance.now();
      const series = seriesOf(operation, ref);
      return request(ref, ...rest).then(
        (value) => {
          observe(series, started);
          return value;
        },
        (err: unknown) => {
          observe(series, started);
          if (!(err instanceof StorageError) || FAILED_REQUEST.has(err.code)) series.errors.inc();
          throw err;
        },
      );
    };
  }
}

function observe(series: OperationSeries, started: number): void {
  series.duration.observe((performance.now() - started) / 1000);
  series.requests.inc();
}

/** How long a scrape waits for the database's size before it reports it as failed (-1). */
const STATS_TIMEOUT_MS = 5000;

/**
 * The storage statistics read when /metrics is scraped: objects per served resource
 * (apiserver_storage_objects, apiserver_resource_objects), from the object counts APF's work
 * estimate shares (one grouped count over the objects table); and the database's size
 * (apiserver_storage_size_bytes, and the deprecated apiserver_storage_db_total_size_in_bytes).
 * Upstream refreshes its counts every minute; a scrape reads them afresh, and scrapes that come
 * together share one read. A read that fails reports -1, as upstream does.
 */
export class StorageStatistics {
  readonly #pool: pg.Pool;
  readonly #metrics: ApiserverMetrics;
  readonly #objectCounts: ObjectCounts;
  #counting: Promise<void> | undefined;
  #sizing: Promise<void> | undefined;

  constructor(pool: pg.Pool, metrics: ApiserverMetrics, objectCounts: ObjectCounts) {
    this.#pool = pool;
    this.#metrics = metrics;
    this.#objectCounts = objectCounts;
    metrics.storageObjects.collect = () => this.#counts();
    metrics.resourceObjects.collect = () => this.#counts();
    metrics.storageSizeBytes.collect = () => this.#sizes();
    metrics.storageDbTotalSizeInBytes.collect = () => this.#sizes();
  }

  /** The served resources are counted (a resource with nothing stored counts 0). */
  countServed(surface: ApiSurface): void {
    this.#objectCounts.countServed(surface);
  }

  #counts(): Promise<void> {
    return (this.#counting ??= this.#readCounts().finally(() => (this.#counting = undefined)));
  }

  #sizes(): Promise<void> {
    return (this.#sizing ??= this.#readSizes().finally(() => (this.#sizing = undefined)));
  }

  async #readCounts(): Promise<void> {
    const served = await this.#objectCounts.refresh();
    const { storageObjects, resourceObjects } = this.#metrics;
    storageObjects.clear();
    resourceObjects.clear();
    for (const { group, resource, stats } of served) {
      const n = stats ? stats.count : -1;
      // The group-qualified resource, as upstream's GroupResource prints it: pods, deployments.apps.
      storageObjects.series(group ? `${resource}.${group}` : resource).set(n);
      resourceObjects.series(group, resource).set(n);
    }
  }

  async #readSizes(): Promise<void> {
    const { storageSizeBytes, storageDbTotalSizeInBytes } = this.#metrics;
    storageSizeBytes.clear();
    storageDbTotalSizeInBytes.clear();
    try {
      const res = await this.#pool.query<{ size: string; endpoint: string; cluster: string | null }>({
        text: `select pg_database_size(current_database()) as size,
                      coalesce(host(inet_server_addr()), 'local') || ':' || coalesce(inet_server_port(), 0) || '/' || current_database() as endpoint,
                      (select system_identifier::text from pg_control_system()) as cluster`,
        query_timeout: STATS_TIMEOUT_MS,
      } as pg.QueryConfig);
      const row = res.rows[0]!;
      storageSizeBytes.series(row.cluster ?? '').set(Number(row.size));
      storageDbTotalSizeInBytes.series(row.endpoint).set(Number(row.size));
    } catch {
      storageSizeBytes.series('').set(-1);
    }
  }
}
