import type { HistogramDefinition, MetricDefinition } from './stability.ts';

/**
 * The metrics this server exposes, with kube-apiserver 1.34's names, labels, help texts, stability
 * levels and buckets (apiserver's endpoints/metrics and storage/etcd3/metrics), so that dashboards
 * and alerts written for Kubernetes read them as they are. The PostgreSQL ones are named for what
 * they measure; each says which etcd metric it stands in for.
 */

/** upstream's requestLatencies buckets, also etcd_request_duration_seconds' (SLO-oriented, 5 ms to 60 s). */
const LATENCY_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

function exponentialBuckets(start: number, factor: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => start * factor ** i);
}

export const REQUEST_TOTAL: MetricDefinition = {
  name: 'apiserver_request_total',
  help: 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
  stabilityLevel: 'STABLE',
  labelNames: ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component', 'code'],
};

export const REQUEST_DURATION_SECONDS: HistogramDefinition = {
  name: 'apiserver_request_duration_seconds',
  help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
  stabilityLevel: 'STABLE',
  labelNames: ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
  buckets: LATENCY_BUCKETS,
};

export const RESPONSE_SIZES: HistogramDefinition = {
  name: 'apiserver_response_sizes',
  help: 'Response size distribution in bytes for each group, version, verb, resource, subresource, scope and component.',
  stabilityLevel: 'STABLE',
  labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
  // 1 KB to 1 GB.
  buckets: exponentialBuckets(1000, 10, 7),
};

export const LONGRUNNING_REQUESTS: MetricDefinition = {
  name: 'apiserver_longrunning_requests',
  help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.',
  stabilityLevel: 'STABLE',
  labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
};

export const CURRENT_INFLIGHT_REQUESTS: MetricDefinition = {
  name: 'apiserver_current_inflight_requests',
  help: 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
  stabilityLevel: 'STABLE',
  labelNames: ['request_kind'],
};

export const REQUESTED_DEPRECATED_APIS: MetricDefinition = {
  name: 'apiserver_requested_deprecated_apis',
  help: 'Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.',
  stabilityLevel: 'STABLE',
  labelNames: ['group', 'version', 'resource', 'subresource', 'removed_release'],
};

export const WATCH_EVENTS_TOTAL: MetricDefinition = {
  name: 'apiserver_watch_events_total',
  help: 'Number of events sent in watch clients',
  stabilityLevel: 'ALPHA',
  labelNames: ['group', 'version', 'resource'],
};

export const WATCH_EVENTS_SIZES: HistogramDefinition = {
  name: 'apiserver_watch_events_sizes',
  help: 'Watch event size distribution in bytes',
  stabilityLevel: 'ALPHA',
  labelNames: ['group', 'version', 'resource'],
  // 1 KiB to 128 KiB.
  buckets: exponentialBuckets(1024, 2, 8),
};

export const REQUEST_ABORTS_TOTAL: MetricDefinition = {
  name: 'apiserver_request_aborts_total',
  help: 'Number of requests which apiserver aborted possibly due to a timeout, for each group, version, verb, resource, subresource and scope',
  stabilityLevel: 'ALPHA',
  labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope'],
};

export const STORAGE_OBJECTS: MetricDefinition = {
  name: 'apiserver_storage_objects',
  help: '[DEPRECATED, consider using apiserver_resource_objects instead] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.',
  stabilityLevel: 'STABLE',
  labelNames: ['resource'],
};

export const RESOURCE_OBJECTS: MetricDefinition = {
  name: 'apiserver_resource_objects',
  help: 'Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.',
  stabilityLevel: 'ALPHA',
  labelNames: ['group', 'resource'],
};

export const STORAGE_SIZE_BYTES: MetricDefinition = {
  name: 'apiserver_storage_size_bytes',
  help: 'Size of the storage database file physically allocated in bytes.',
  stabilityLevel: 'STABLE',
  labelNames: ['storage_cluster_id'],
};

/** Deprecated in 1.28 for apiserver_storage_size_bytes, so hidden in 1.34 unless shown again. */
export const STORAGE_DB_TOTAL_SIZE_IN_BYTES: MetricDefinition = {
  name: 'apiserver_storage_db_total_size_in_bytes',
  help: 'Total size of the storage database file physically allocated in bytes.',
  stabilityLevel: 'ALPHA',
  deprecatedVersion: '1.28.0',
  labelNames: ['endpoint'],
};

/** etcd_request_duration_seconds, for the PostgreSQL this server stores in. */
export const POSTGRES_REQUEST_DURATION_SECONDS: HistogramDefinition = {
  name: 'apiserver_storage_postgres_request_duration_seconds',
  help: 'PostgreSQL request latency in seconds for each operation and object type (what etcd_request_duration_seconds measures on an etcd-backed apiserver).',
  stabilityLevel: 'ALPHA',
  labelNames: ['operation', 'group', 'resource'],
  buckets: LATENCY_BUCKETS,
};

/** etcd_requests_total, for PostgreSQL. */
export const POSTGRES_REQUESTS_TOTAL: MetricDefinition = {
  name: 'apiserver_storage_postgres_requests_total',
  help: 'PostgreSQL request counts for each operation and object type (what etcd_requests_total counts on an etcd-backed apiserver).',
  stabilityLevel: 'ALPHA',
  labelNames: ['operation', 'group', 'resource'],
};

/** etcd_request_errors_total, for PostgreSQL. */
export const POSTGRES_REQUEST_ERRORS_TOTAL: MetricDefinition = {
  name: 'apiserver_storage_postgres_request_errors_total',
  help: 'PostgreSQL failed request counts for each operation and object type (what etcd_request_errors_total counts on an etcd-backed apiserver).',
  stabilityLevel: 'ALPHA',
  labelNames: ['operation', 'group', 'resource'],
};
