import * as d from './definitions.ts';
import type { CounterFamily, GaugeFamily, HistogramFamily } from './families.ts';
import type { MetricsRegistry } from './metrics-registry.ts';

/** The API server's metric families in one server's registry (see definitions.ts for what each is). */
export class ApiserverMetrics {
  readonly requestTotal: CounterFamily;
  readonly requestDuration: HistogramFamily;
  readonly responseSizes: HistogramFamily;
  readonly longRunningRequests: GaugeFamily;
  readonly currentInflightRequests: GaugeFamily;
  readonly requestedDeprecatedApis: GaugeFamily;
  readonly watchEventsTotal: CounterFamily;
  readonly watchEventsSizes: HistogramFamily;
  readonly requestAborts: CounterFamily;
  readonly storageObjects: GaugeFamily;
  readonly resourceObjects: GaugeFamily;
  readonly storageSizeBytes: GaugeFamily;
  readonly storageDbTotalSizeInBytes: GaugeFamily;
  readonly postgresRequestDuration: HistogramFamily;
  readonly postgresRequests: CounterFamily;
  readonly postgresRequestErrors: CounterFamily;

  constructor(registry: MetricsRegistry) {
    this.requestedDeprecatedApis = registry.gauge(d.REQUESTED_DEPRECATED_APIS);
    this.requestTotal = registry.counter(d.REQUEST_TOTAL);
    this.longRunningRequests = registry.gauge(d.LONGRUNNING_REQUESTS);
    this.requestDuration = registry.histogram(d.REQUEST_DURATION_SECONDS);
    this.responseSizes = registry.histogram(d.RESPONSE_SIZES);
    this.watchEventsTotal = registry.counter(d.WATCH_EVENTS_TOTAL);
    this.watchEventsSizes = registry.histogram(d.WATCH_EVENTS_SIZES);
    this.currentInflightRequests = registry.gauge(d.CURRENT_INFLIGHT_REQUESTS);
    this.requestAborts = registry.counter(d.REQUEST_ABORTS_TOTAL);
    this.postgresRequestDuration = registry.histogram(d.POSTGRES_REQUEST_DURATION_SECONDS);
    this.postgresRequests = registry.counter(d.POSTGRES_REQUESTS_TOTAL);
    this.postgresRequestErrors = registry.counter(d.POSTGRES_REQUEST_ERRORS_TOTAL);
    this.storageObjects = registry.gauge(d.STORAGE_OBJECTS);
    this.resourceObjects = registry.gauge(d.RESOURCE_OBJECTS);
    this.storageDbTotalSizeInBytes = registry.gauge(d.STORAGE_DB_TOTAL_SIZE_IN_BYTES);
    this.storageSizeBytes = registry.gauge(d.STORAGE_SIZE_BYTES);
  }
}
