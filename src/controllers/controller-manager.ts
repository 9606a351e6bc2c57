import type { Logger } from 'pino';
import type { ApiSurface } from '../registry/api-surface.ts';
import type { Storage } from '../storage/storage.ts';
import { LeaderElector } from './leader-election.ts';
import { NamespaceController } from './namespace-controller.ts';

export interface Controllers {
  readonly elector?: LeaderElector;
  stop(): Promise<void>;
}

export interface ControllerOptions {
  readonly surface: ApiSurface;
  readonly storage: Storage;
  readonly logger: Logger;
  readonly leaderElect: boolean;
  readonly leaseDurationMs: number;
}

/** Runs the in-process controllers, in one replica at a time when leader election is on. */
export async function startControllers(options: ControllerOptions): Promise<Controllers> {
  const namespaceController = new NamespaceController(options.surface, options.storage, options.logger);
  const startAll = () => void namespaceController.start().catch((err) => options.logger.error({ err }, 'namespace controller failed to start'));
  const stopAll = () => namespaceController.stop();

  if (!options.leaderElect) {
    startAll();
    return { stop: async () => stopAll() };
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
    stop: async () => {
      await elector.stop();
      stopAll();
    },
  };
}
