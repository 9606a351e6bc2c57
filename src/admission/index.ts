import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Informer } from '../registry/informer.ts';
import type { KindDefinition } from '../registry/kind.ts';
import type { ResourceStore } from '../registry/resource-store.ts';
import type { Storage } from '../storage/storage.ts';
import { alwaysAdmit, alwaysDeny } from './always.ts';
import { AdmissionChain } from './chain.ts';
import { readAdmissionConfiguration, pluginConfigurationFor } from './config/admission-configuration.ts';
import { enabledPluginNames } from './enabled-plugins.ts';
import { NamespaceLifecycle } from './namespace-lifecycle.ts';
import type { AdmissionPlugin } from './plugin.ts';
import { mutatingAdmissionWebhook, validatingAdmissionWebhook } from './webhook/index.ts';
import { LimitRanger } from './builtin/limit-ranger.ts';
import { OwnerReferencesPermissionEnforcement } from './builtin/owner-references-permission.ts';
import { PodSecurity } from './builtin/pod-security/admission.ts';
import { ResourceQuotaAdmission } from './builtin/resource-quota/admission.ts';
import { ServiceAccountAdmission } from './builtin/service-account.ts';
import { validatingAdmissionPolicy } from './policy/index.ts';

export interface AdmissionDeps {
  /** The namespaces, read without admission (plugins run before the API surface exists). */
  readonly namespaces: ResourceStore;
  /** The shared namespace informer. */
  readonly namespaceView: Informer;
  /**
   * What plugins that read other kinds build their own stores and informers from (policies,
   * LimitRanges, quotas, service accounts): storage, the served kinds, and the server's settings.
   * A plugin reads through a store with no admission (`new ResourceStore(kind, storage, NO_ADMISSION)`),
   * as the namespaces are read, since the chain exists before the API surface does.
   */
  readonly storage: Storage;
  readonly kinds: readonly KindDefinition[];
  /**
   * The kinds served right now, custom resource kinds included (they come and go); `kinds` until
   * the API surface exists. What must know every served kind (matchPolicy Equivalent, a policy's
   * paramKind, owner references' kinds) reads this rather than `kinds`.
   */
  readonly servedKinds?: () => readonly KindDefinition[];
  readonly config: Config;
  readonly logger: Logger;
}

/** A started admission chain, and what stops its plugins' background work. */
export interface Admission {
  readonly chain: AdmissionChain;
  stop(): void;
}

/**
 * Plugins this server has, by upstream name: each builds its plugin and says how to start and stop it.
 * `configuration` is the plugin's text from --admission-control-config-file (undefined without one);
 * the plugins that take one throw AdmissionConfigError when it is bad.
 */
const PLUGINS: Record<string, (deps: AdmissionDeps, configuration: string | undefined) => { plugin: AdmissionPlugin; start?: () => Promise<void>; stop?: () => void }> = {
  AlwaysAdmit: () => ({ plugin: alwaysAdmit }),
  NamespaceLifecycle: (deps) => ({ plugin: new NamespaceLifecycle(deps.namespaces, deps.namespaceView) }),
  LimitRanger: (deps) => LimitRanger.build(deps),
  OwnerReferencesPermissionEnforcement: (deps) => OwnerReferencesPermissionEnforcement.build(deps),
  ServiceAccount: (deps) => ServiceAccountAdmission.build(deps),
  PodSecurity: (deps, configuration) => PodSecurity.build(deps, configuration),
  ResourceQuota: (deps, configuration) => ResourceQuotaAdmission.build(deps, configuration),
  MutatingAdmissionWebhook: (deps) => mutatingAdmissionWebhook(deps),
  ValidatingAdmissionPolicy: (deps) => validatingAdmissionPolicy(deps),
  ValidatingAdmissionWebhook: (deps) => validatingAdmissionWebhook(deps),
  AlwaysDeny: () => ({ plugin: alwaysDeny }),
};

/** Checks the flags (throws with upstream's wording) and returns the plugin names that will run, in order. */
export function admissionPluginNames(enable: readonly string[], disable: readonly string[]): string[] {
  return enabledPluginNames(enable, disable, new Set(Object.keys(PLUGINS)));
}

/**
 * Builds and starts the enabled plugins (their informers are synced before the first request), each
 * with its part of --admission-control-config-file; a bad file or configuration throws
 * AdmissionConfigError (a StartupError) before any plugin starts.
 */
export async function startAdmission(names: readonly string[], deps: AdmissionDeps): Promise<Admission> {
  const file = readAdmissionConfiguration(deps.config.admissionControlConfigFile);
  const built = names.map((name) => PLUGINS[name](deps, pluginConfigurationFor(file, name)));
  const stops: (() => void)[] = [];
  try {
    for (const b of built) {
      await b.start?.();
      if (b.stop) stops.push(b.stop);
    }
  } catch (err) {
    for (const stop of stops) stop();
    throw err;
  }
  return { chain: new AdmissionChain(built.map((b) => b.plugin)), stop: () => stops.forEach((s) => s()) };
}
