/**
 * Start-up of API priority and fairness: the dispatcher fed by informers on the FlowSchema and
 * PriorityLevelConfiguration objects (a change reaches the classifier and the levels within the
 * same tick, never through a query per request), the periodic borrowing adjustment, the work
 * estimate's inputs, and the filter's options. Resolves once both informers have their first list.
 */
import type { Logger } from 'pino';
import type { FeatureGates } from '../api/request-context.ts';
import type { Closers } from '../closers.ts';
import { FlowcontrolMetrics } from '../metrics/flowcontrol-metrics.ts';
import type { MetricsRegistry } from '../metrics/metrics-registry.ts';
import type { ApiSurface } from '../registry/api-surface.ts';
import { Informer } from '../registry/informer.ts';
import { StartupError } from '../startup-error.ts';
import { ApfController } from './apf-controller.ts';
import type { ApfFilterOptions } from './apf-filter.ts';
import { readFlowSchema, readPriorityLevel } from './config-objects.ts';
import type { ObjectCounts } from './object-counts.ts';
import { WorkInputs, type WatcherCounter } from './work-inputs.ts';
import { workEstimatorConfig } from './work-estimator.ts';

const GROUP = 'flowcontrol.apiserver.k8s.io';

export interface FlowControlDeps {
  readonly surface: ApiSurface;
  readonly logger: Logger;
  readonly closers: Closers;
  /** --max-requests-inflight + --max-mutating-requests-inflight. */
  readonly serverConcurrencyLimit: number;
  readonly requestTimeoutMs: number;
  readonly registry: MetricsRegistry;
  readonly objectCounts: ObjectCounts;
  readonly watchers: WatcherCounter;
  readonly featureGates: FeatureGates;
}

/** What the request path needs (the filter's options, less the in-flight observer app.ts adds). */
export type FlowControl = Omit<ApfFilterOptions, 'inFlight'>;

export async function startFlowControl(deps: FlowControlDeps): Promise<FlowControl> {
  const metrics = new FlowcontrolMetrics(deps.registry);
  const controller = new ApfController({ serverConcurrencyLimit: deps.serverConcurrencyLimit, logger: deps.logger, metrics });
  const informer = (resource: string) => {
    const store = deps.surface.findStore(GROUP, resource);
    if (!store) throw new StartupError(`--enable-priority-and-fairness needs the ${resource}.${GROUP} API, which --runtime-config turns off`);
    const inf = new Informer(store, { logger: deps.logger });
    deps.closers.add(`apf-${resource}-informer`, () => inf.stop());
    return inf;
  };
  const levels = informer('prioritylevelconfigurations');
  const schemas = informer('flowschemas');

  // Every change digests the whole configuration again, once per burst of changes (a start-up
  // list, a bootstrap pass): within the tick, well inside upstream's "within a second".
  let scheduled = false;
  const digest = () => {
    scheduled = false;
    controller.setConfiguration(levels.list().map(readPriorityLevel), schemas.list().map(readFlowSchema));
  };
  const changed = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(digest);
  };
  for (const inf of [levels, schemas]) inf.on({ added: changed, updated: changed, deleted: changed });
  await Promise.all([levels.start(), schemas.start()]);
  digest();
  controller.start();
  deps.closers.add('apf-borrowing', () => controller.stop());

  const work = new WorkInputs({ objectCounts: deps.objectCounts, watchers: deps.watchers, surface: deps.surface, config: workEstimatorConfig(deps.featureGates) });
  work.start();
  deps.closers.add('apf-work-inputs', () => work.stop());

  return {
    controller,
    metrics,
    requestTimeoutMs: deps.requestTimeoutMs,
    estimate: (info, query, maxSeats) => work.estimate(info, query, maxSeats),
  };
}
