import type pg from 'pg';
import type { ApiSurface } from '../registry/api-surface.ts';
import { storageRefOf } from '../registry/storage-view.ts';
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

/** How long a scrape waits for the storage statistics before it reports them as failed (-1). */
const STATS_TIMEOUT_MS = 5000;

/**
 * The storage statistics read when /metrics is scraped: objects per served resource
 * (apiserver_storage_objects, apiserver_resource_objects), counted exactly by one grouped count over
 * the objects table's primary key; and the database's size (apiserver_storage_size_bytes, and the
 * deprecated apiserver_storage_db_total_size_in_bytes). Upstream refreshes its counts every minute;
 * here they are read per scrape (scrapes are that rare), and scrapes that come together share one
 * read. A read that fails reports -1, as upstream does.
 */
export class StorageStatistics {
  readonly #pool: pg.Pool;
  readonly #metrics: ApiserverMetrics;
  #surface: ApiSurface | undefined;
  #counting: Promise<void> | undefined;
  #sizing: Promise<void> | undefined;

  constructor(pool: pg.Pool, metrics: ApiserverMetrics) {
    this.#pool = pool;
    this.#metrics = metrics;
    metrics.storageObjects.collect = () => this.#counts();
    metrics.resourceObjects.collect = () => this.#counts();
    metrics.storageSizeBytes.collect = () => this.#sizes();
    metrics.storageDbTotalSizeInBytes.collect = () => this.#sizes();
  }

  /** The served resources are counted (a resource with nothing stored counts 0). */
  countServed(surface: ApiSurface): void {
    this.#surface = surface;
  }

  #counts(): Promise<void> {
    return (this.#counting ??= this.#readCounts().finally(() => (this.#counting = undefined)));
  }

  #sizes(): Promise<void> {
    return (this.#sizing ??= this.#readSizes().finally(() => (this.#sizing = undefined)));
  }

  async #readCounts(): Promise<void> {
    // Each served resource once (several versions share it), with where its objects are stored.
    const served = new Map<string, { group: string; resource: string; stored: string }>();
    for (const kind of this.#surface?.kinds ?? []) {
      // Kinds computed when read (ComponentStatus) or answered without storing (reviews) have no count upstream either.
      if (kind.computed || kind.respond) continue;
      const stored = storageRefOf(kind);
      served.set(`${kind.plural}/${kind.group}`, { group: kind.group, resource: kind.plural, stored: `${stored.resource}/${stored.group}` });
    }
    let counts: Map<string, number> | undefined;
    try {
      const res = await this.#pool.query<{ api_group: string; resource: string; n: string }>({
        text: 'select api_group, resource, count(*) as n from objects group by api_group, resource',
        query_timeout: STATS_TIMEOUT_MS,
      } as pg.QueryConfig);
      counts = new Map(res.rows.map((r) => [`${r.resource}/${r.api_group}`, Number(r.n)]));
    } catch {
      counts = undefined;
    }
    const { storageObjects, resourceObjects } = this.#metrics;
    storageObjects.clear();
    resourceObjects.clear();
    for (const { group, resource, stored } of served.values()) {
      // events.k8s.io Events are core Events in storage: both resources count them, as upstream's two stores do.
      const n = counts ? (counts.get(stored) ?? 0) : -1;
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
