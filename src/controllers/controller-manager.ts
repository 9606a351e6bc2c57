import type { Logger } from 'pino';
import type { ApiSurface } from '../registry/api-surface.ts';
import type { Informer } from '../registry/informer.ts';
import { EventTtlController } from './event-ttl-controller.ts';
import { FlowSchemaDanglingController } from './flow-schema-dangling.ts';
import { LeaderElector } from './leader-election.ts';
import { NamespaceController } from './namespace-controller.ts';
import { BootstrapSigner } from './bootstrap-signer.ts';
import { ClusterRoleAggregationController } from './cluster-role-aggregation.ts';
import { BOOTSTRAP_SIGNER, CLUSTER_ROLE_AGGREGATION, GARBAGE_COLLECTOR, NAMESPACE, parseControllers, RESOURCE_QUOTA, SERVICE_ACCOUNT, TOKEN_CLEANER } from './controller-names.ts';
import { GarbageCollector } from './garbage-collector/garbage-collector.ts';
import { ResourceQuotaController } from './resource-quota-controller.ts';
import { ServiceAccountController } from './service-account-controller.ts';
import { TokenCleaner } from './token-cleaner.ts';
import { VALIDATING_ADMISSION_POLICY_STATUS, ValidatingAdmissionPolicyStatusController } from './validating-admission-policy-status.ts';
import { CrdControllers } from './crd/crd-controllers.ts';

export interface Controllers {
  readonly elector?: LeaderElector;
  readonly eventTtl?: EventTtlController;
  /** The canonical names of the controllers --controllers turned on (event TTL has none: always on). */
  readonly enabled: readonly string[];
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
  /** --controllers as given (default `*`). */
  readonly controllers?: readonly string[];
}

/** A controller that starts and stops with leadership. */
interface Runnable {
  start(): void | Promise<void>;
  stop(): void;
}

/** Runs the in-process controllers, in one replica at a time when leader election is on. */
export async function startControllers(options: ControllerOptions): Promise<Controllers> {
  // Unknown names fail the start, before any controller runs, as kube-controller-manager does.
  const isEnabled = parseControllers(options.controllers ?? ['*']);
  const runnables: Runnable[] = [];
  const enabled: string[] = [];
  const add = (name: string, make: () => Runnable | undefined) => {
    if (!isEnabled(name)) return;
    const r = make();
    if (!r) return;
    runnables.push(r);
    enabled.push(name);
  };
  add(NAMESPACE, () => new NamespaceController(options.surface, options.namespaceView, options.logger));
  const secrets = options.surface.findStore('', 'secrets');
  add(TOKEN_CLEANER, () => (secrets ? new TokenCleaner(secrets, options.logger) : undefined));
  add(BOOTSTRAP_SIGNER, () => (secrets && options.surface.findStore('', 'configmaps') ? new BootstrapSigner(options.surface, options.logger) : undefined));
  const clusterRoles = options.surface.findStore('rbac.authorization.k8s.io', 'clusterroles');
  add(CLUSTER_ROLE_AGGREGATION, () => (clusterRoles ? new ClusterRoleAggregationController(clusterRoles, options.logger) : undefined));
  const policies = options.surface.findStore('admissionregistration.k8s.io', 'validatingadmissionpolicies');
  add(VALIDATING_ADMISSION_POLICY_STATUS, () => (policies ? new ValidatingAdmissionPolicyStatusController(policies, () => options.surface.kinds, options.logger) : undefined));
  const serviceAccounts = options.surface.findStore('', 'serviceaccounts');
  add(SERVICE_ACCOUNT, () => (serviceAccounts ? new ServiceAccountController(serviceAccounts, options.namespaceView, options.logger) : undefined));
  add(RESOURCE_QUOTA, () => (options.surface.findStore('', 'resourcequotas') ? new ResourceQuotaController(options.surface, options.logger) : undefined));
  add(GARBAGE_COLLECTOR, () => new GarbageCollector(options.surface, options.logger));
  // Events expire only while core/v1 Events are served (their store is the one events live in).
  // Upstream has no controller for this (etcd TTLs do it), so no name turns it off.
  const coreEvents = options.surface.findStore('', 'events');
  const eventTtl = coreEvents ? new EventTtlController(coreEvents, options.eventTtlMs, options.logger) : undefined;
  if (eventTtl) runnables.push(eventTtl);
  // The FlowSchema Dangling condition is kube-apiserver's own work (its flow control config
  // consumer), so no --controllers name turns it off; here the leader alone writes it.
  const flowSchemas = options.surface.findStore('flowcontrol.apiserver.k8s.io', 'flowschemas');
  const priorityLevels = options.surface.findStore('flowcontrol.apiserver.k8s.io', 'prioritylevelconfigurations');
  if (flowSchemas && priorityLevels) runnables.push(new FlowSchemaDanglingController(flowSchemas, priorityLevels, options.logger));
  // apiextensions-apiserver's CRD controllers (naming, establishing, conditions, finalizer) are the
  // API server's own, so no --controllers name turns them off; here the leader alone runs them.
  const crds = options.surface.findStore('apiextensions.k8s.io', 'customresourcedefinitions');
  if (crds) runnables.push(new CrdControllers(options.surface, crds, options.logger));
  const startAll = () => {
    for (const r of runnables) {
      Promise.resolve(r.start()).catch((err: unknown) => options.logger.warn({ err }, 'controller failed to start'));
    }
  };
  const stopAll = () => {
    for (const r of runnables) r.stop();
  };

  if (!options.leaderElect) {
    startAll();
    return { eventTtl, enabled, stop: async () => stopAll() };
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
    enabled,
    stop: async () => {
      await elector.stop();
      stopAll();
    },
  };
}
