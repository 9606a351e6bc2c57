import type pg from 'pg';
import { ObjectCounts } from '../flowcontrol/object-counts.ts';
import type { ApiSurface } from '../registry/api-surface.ts';
import type { Storage } from '../storage/storage.ts';
import { ApiserverMetrics } from './apiserver-metrics.ts';
import { InFlightMetrics } from './inflight-metrics.ts';
import { MetricsRegistry } from './metrics-registry.ts';
import { RequestMetrics } from './request-metrics.ts';
import { StorageStatistics, timeStorageRequests } from './storage-metrics.ts';

export interface ServerMetricsOptions {
  /** --show-hidden-metrics-for-version (checked by loadConfig): non-empty shows hidden metrics again. */
  readonly showHiddenMetricsForVersion: string;
  /** The pool the storage statistics are read with. */
  readonly pool: pg.Pool;
}

/**
 * Everything /metrics of one server shows, in that server's own registry: the request, watch and
 * storage metrics and the process's runtime metrics. Made at start-up before the storage is handed
 * to the API (its requests are timed from then on), then bound to the served API.
 */
export class ServerMetrics {
  readonly registry: MetricsRegistry;
  readonly apiserver: ApiserverMetrics;
  readonly inFlight: InFlightMetrics;
  /** Stored objects per served resource: the storage metrics show them, APF's work estimate reads them. */
  readonly objectCounts: ObjectCounts;
  readonly #statistics: StorageStatistics;
  #requests: RequestMetrics | undefined;

  constructor(options: ServerMetricsOptions) {
    this.registry = new MetricsRegistry({ showHidden: options.showHiddenMetricsForVersion !== '' });
    this.apiserver = new ApiserverMetrics(this.registry);
    this.inFlight = new InFlightMetrics(this.apiserver.currentInflightRequests, () => this.#requests);
    this.objectCounts = new ObjectCounts(options.pool);
    this.#statistics = new StorageStatistics(options.pool, this.apiserver, this.objectCounts);
  }

  /** Times the storage's requests to PostgreSQL from now on; returns the same storage. */
  timed<S extends Storage>(storage: S): S {
    timeStorageRequests(storage, this.apiserver);
    return storage;
  }

  /** The request metrics of the served API (made once); the storage statistics count its resources. */
  requests(surface: ApiSurface): RequestMetrics {
    this.#statistics.countServed(surface);
    return (this.#requests ??= new RequestMetrics(this.apiserver, surface));
  }

  close(): void {
    this.inFlight.stop();
    this.objectCounts.stop();
  }
}
