import type { Config } from '../config.ts';
import { pingCheck, type HealthCheck } from '../http/health/health-checks.ts';
import type { HealthEndpoint } from '../http/routes/health-routes.ts';
import type { Storage } from '../storage/storage.ts';

/** The checks of /livez, /readyz and /healthz, as kube-apiserver lists them. */
export function healthChecks(config: Config, storage: Storage, shuttingDown: () => boolean): Record<HealthEndpoint, HealthCheck[]> {
  const startedAt = Date.now();
  // Checks that pass once start-up got this far; they are listed so operators see what ran.
  const passing = (name: string): HealthCheck => ({ name, check: () => undefined });
  const startHooks = [passing('poststarthook/start-watch-hub'), passing('poststarthook/bootstrap-namespaces')];
  // A database that does not answer fails the check within the timeout instead of holding the probe.
  const databaseCheck: HealthCheck = { name: 'postgres', check: () => storage.ping(config.databaseHealthcheckTimeoutMs) };
  const liveDatabaseCheck: HealthCheck = {
    name: 'postgres',
    check: async () => {
      if (Date.now() - startedAt < config.livezGracePeriodMs) return;
      await storage.ping(config.databaseHealthcheckTimeoutMs);
    },
  };
  const shutdownCheck: HealthCheck = {
    name: 'shutdown',
    check: () => {
      if (shuttingDown()) throw new Error('process is shutting down');
    },
  };
  return {
    livez: [pingCheck, passing('log'), liveDatabaseCheck, ...startHooks],
    readyz: [pingCheck, passing('log'), databaseCheck, ...startHooks, shutdownCheck],
    healthz: [pingCheck, passing('log'), databaseCheck, ...startHooks],
  };
}
