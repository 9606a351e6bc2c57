import type { Logger } from 'pino';
import type { ApiSurface } from '../registry/api-surface.ts';
import type { Informer } from '../registry/informer.ts';
import { EventTtlController } from './event-ttl-controller.ts';
import { LeaderElector } from './leader-election.ts';
import { NamespaceController } from './namespace-controller.ts';

export interface Controllers {
  readonly elector?: LeaderElector;
  readonly eventTtl?: EventTtlController;
  stop(): Promise<void>;
}

export interface ControllerOptions {
  readonly surface: ApiSurface;
  /** The shared namespace informer. */
  readonly namespaceView: Informer;
  readonly logger: Logger;
  readonly leaderElect: boolean;
  readonly leaseDurationMs: number;
  /** How long events are kept after they were last touched. */
  readonly eventTtlMs: number;
}

/** Runs the in-process controllers, in one replica at a time when leader election is on. */
export async function startControllers(options: ControllerOptions): Promise<Controllers> {
  const namespaceController = new NamespaceController(options.surface, options.namespaceView, options.logger);
  // Events expire only while core/v1 Events are served (their store is the one events live in).
  const coreEvents = options.surface.findStore('', 'events');
  const eventTtl = coreEvents ? new EventTtlController(coreEvents, options.eventTtlMs, options.logger) : undefined;
  const startAll = () => {
    namespaceController.start();
    eventTtl?.start();
  };
  const stopAll = () => {
    namespaceController.stop();
    eventTtl?.stop();
  };

  if (!options.leaderElect) {
    startAll();
    return { eventTtl, stop: async () => stopAll() };
  }
  const elector = new LeaderElector({
    leases: options.surface.storeFor('coordination.k8s.io', 'leases'),
    namespace: 'kube-system',
    name: 'pgkube-controller-manager',
    leaseDurationMs: options.leaseDurationMs,
    logger: options.logger,
    onStartedLeading: startAll,
    onStoppedLeading: stopAll,
  });
  elector.start();
  return {
    elector,
    eventTtl,
    stop: async () => {
      await elector.stop();
      stopAll();
    },
  };
}
