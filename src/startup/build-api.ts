import type { Logger } from 'pino';
import { seedBootstrapNamespaces } from '../../seeds/bootstrap-namespaces.ts';
import { seedRbacBootstrapPolicy } from '../../seeds/rbac-bootstrap-policy.ts';
import { ensureFlowControlBootstrap } from '../../seeds/flowcontrol-bootstrap.ts';
import { FlowControlBootstrapUpkeep } from '../../seeds/flowcontrol-bootstrap-upkeep.ts';
import { seedLocalApiServices } from '../../seeds/local-api-services.ts';
import { NO_ADMISSION } from '../admission/chain.ts';
import { admissionPluginNames, startAdmission } from '../admission/index.ts';
import type { Closers } from '../closers.ts';
import type { Config } from '../config.ts';
import { builtinKinds } from '../kinds/index.ts';
import type { KindDefinition } from '../registry/kind.ts';
import { namespaces } from '../kinds/namespace.ts';
import { ApiSurface } from '../registry/api-surface.ts';
import { Informer } from '../registry/informer.ts';
import { ResourceStore } from '../registry/resource-store.ts';
import { enabledKinds } from '../registry/runtime-config.ts';
import type { Storage } from '../storage/storage.ts';

/**
 * Start-up step: the shared namespace informer, the admission chain (its plugins read the informer)
 * and the API surface of the enabled kinds with a store for each; then the bootstrap namespaces and
 * the default RBAC policy, the API priority and fairness configuration (kept current from then on)
 * and an APIService for each group version served.
 */
export async function buildApi(config: Config, storage: Storage, logger: Logger, closers: Closers): Promise<{ surface: ApiSurface; namespaceView: Informer }> {
  const kinds = enabledKinds(builtinKinds, config.runtimeConfig, config.enablePriorityAndFairness);
  // Reading namespaces needs no admission, and the chain exists before the surface does.
  const namespaceStore = new ResourceStore(namespaces, storage, NO_ADMISSION);
  const namespaceView = new Informer(namespaceStore, { logger });
  await namespaceView.start();
  closers.add('namespace-informer', () => namespaceView.stop());
  // Admission exists before the surface: it reads the served kinds through this, the surface's once there.
  let servedKinds: () => readonly KindDefinition[] = () => kinds;
  const admission = await startAdmission(admissionPluginNames(config.enableAdmissionPlugins, config.disableAdmissionPlugins), {
    namespaces: namespaceStore,
    namespaceView,
    storage,
    kinds,
    servedKinds: () => servedKinds(),
    config,
    logger,
  });
  closers.add('admission', () => admission.stop());
  logger.info({ plugins: admission.chain.names }, 'admission plugins');
  const surface = new ApiSurface(kinds, storage, admission.chain);
  servedKinds = () => surface.kinds;
  const seeded = await seedBootstrapNamespaces(storage);
  if (seeded.length > 0) logger.info({ namespaces: seeded }, 'created bootstrap namespaces');
  // Whenever the RBAC API is served, as upstream's post-start hook does, whatever the authorizers.
  await seedRbacBootstrapPolicy(storage, kinds, logger);
  // API priority and fairness configuration, then the same pass every minute, as upstream's post-start hook.
  await ensureFlowControlBootstrap(storage, kinds, logger);
  const flowControlUpkeep = new FlowControlBootstrapUpkeep({ storage, kinds, logger });
  flowControlUpkeep.start();
  closers.add('flowcontrol-bootstrap', () => flowControlUpkeep.stop());
  const registered = await seedLocalApiServices(storage, kinds);
  if (registered.length > 0) logger.info({ apiServices: registered }, 'registered the local API services');
  return { surface, namespaceView };
}
