import { collectDefaultMetrics, Registry } from 'prom-client';

let registry: Registry | undefined;

/**
 * The process and Node runtime metrics (process_cpu_seconds_total, process_resident_memory_bytes,
 * nodejs_eventloop_lag_seconds, nodejs_heap_size_used_bytes, nodejs_gc_duration_seconds …), the
 * counterpart of the process_* and go_* metrics of a Go component. They describe the process, so
 * one registry serves every server in it (tests start several): prom-client's collectors install
 * event-loop and GC observers that would otherwise pile up, one set per server. Not prom-client's
 * global registry, which other code in the process might fill.
 */
export function processRegistry(): Registry {
  if (!registry) {
    registry = new Registry();
    collectDefaultMetrics({ register: registry });
  }
  return registry;
}
