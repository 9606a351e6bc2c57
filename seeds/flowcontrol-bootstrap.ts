/**
 * Creates the API priority and fairness configuration at start and keeps it current (upstream's
 * `apiserver/bootstrap-system-flowcontrol-configuration` post-start hook): suggested objects, then
 * mandatory ones, are created when missing and revised by their strategy
 * (flowcontrol-bootstrap-strategy.ts); then objects the server once made (autoupdate "true") that
 * the bootstrap configuration no longer names are deleted. Every replica runs it, as every
 * kube-apiserver does: AlreadyExists, Conflict and NotFound mean another writer got there first,
 * and the next pass looks again.
 */
import type { Logger } from 'pino';
import { NO_ADMISSION } from '../src/admission/chain.ts';
import { ApiError } from '../src/api/errors.ts';
import { systemContext, type RequestContext } from '../src/api/request-context.ts';
import type { KubeObject, StoredKubeObject } from '../src/api/types.ts';
import {
  AUTO_UPDATE_ANNOTATION,
  MANDATORY_FLOW_SCHEMAS,
  MANDATORY_PRIORITY_LEVELS,
  SUGGESTED_FLOW_SCHEMAS,
  SUGGESTED_PRIORITY_LEVELS,
  type BootstrapConfiguration,
} from '../src/flowcontrol/bootstrap/default-objects.ts';
import type { KindDefinition } from '../src/registry/kind.ts';
import { listPage } from '../src/registry/list-reader.ts';
import { parseListQuery } from '../src/registry/list-options.ts';
import { ResourceStore } from '../src/registry/resource-store.ts';
import { isCorruptObjectError } from '../src/registry/storage-errors.ts';
import type { Storage } from '../src/storage/storage.ts';
import { isUnwanted, reviseIfNeeded, type ConfigurationResource, type EnsureStrategy } from './flowcontrol-bootstrap-strategy.ts';

const GROUP = 'flowcontrol.apiserver.k8s.io';
const API_VERSION = `${GROUP}/v1`;
/** Who upstream's ensurer writes as. */
export const CONFIG_PRODUCER_FIELD_MANAGER = 'api-priority-and-fairness-config-producer-v1';

const KINDS: Readonly<Record<ConfigurationResource, string>> = { flowschemas: 'FlowSchema', prioritylevelconfigurations: 'PriorityLevelConfiguration' };

/** A bootstrap configuration as the object the server creates. */
export function bootstrapObject(resource: ConfigurationResource, c: BootstrapConfiguration): KubeObject {
  return {
    apiVersion: API_VERSION,
    kind: KINDS[resource],
    metadata: { name: c.name, annotations: { [AUTO_UPDATE_ANNOTATION]: 'true' } },
    spec: structuredClone(c.spec) as Record<string, unknown>,
  };
}

/** What one pass did to one object, for the log and the tests. */
type Outcome = 'created' | 'updated' | 'deleted' | undefined;

const reasonOf = (err: unknown) => (err instanceof ApiError ? err.reason : undefined);

/** One resource's store and what a pass read of it. */
class ConfigurationObjects {
  readonly resource: ConfigurationResource;
  readonly #store: ResourceStore;
  readonly #ctx: RequestContext;
  #current = new Map<string, StoredKubeObject>();
  #unreadable = new Set<string>();

  constructor(resource: ConfigurationResource, store: ResourceStore, ctx: RequestContext) {
    this.resource = resource;
    this.#store = store;
    this.#ctx = ctx;
  }

  /** Reads every object once (objects that cannot be read are named, not returned). */
  async read(): Promise<void> {
    const page = await listPage(this.#store, undefined, parseListQuery(new URLSearchParams()), undefined, { skipUnreadable: true });
    this.#current = new Map(page.items.map((text) => JSON.parse(text) as StoredKubeObject).map((o) => [o.metadata.name, o]));
    this.#unreadable = new Set((page.unreadable ?? []).map((c) => c.name));
  }

  isUnreadable(name: string): boolean {
    return this.#unreadable.has(name);
  }

  /** Creates the object when missing, else writes its revision when the strategy asks for one. */
  async ensure(bootstrap: BootstrapConfiguration, strategy: EnsureStrategy): Promise<Outcome> {
    let current = this.#current.get(bootstrap.name);
    if (!current) {
      try {
        await this.#store.create(this.#ctx, '', bootstrapObject(this.resource, bootstrap));
        return 'created';
      } catch (err) {
        if (reasonOf(err) !== 'AlreadyExists') throw err;
      }
      // Another replica created it meanwhile: what it made is judged like any stored object (and
      // one deleted again since is the next pass's).
      current = await this.#store.get(this.#ctx, '', bootstrap.name).then(
        (found) => found.object,
        (err: unknown) => (reasonOf(err) === 'NotFound' ? undefined : Promise.reject(err)),
      );
      if (!current) return undefined;
    }
    const revised = reviseIfNeeded(this.resource, strategy, current, bootstrap);
    if (!revised) return undefined;
    try {
      // Conditional on the version read: a change made meanwhile is looked at on the next pass.
      await this.#store.replace(this.#ctx, '', bootstrap.name, { ...revised, apiVersion: API_VERSION, kind: KINDS[this.resource] });
      return 'updated';
    } catch (err) {
      if (reasonOf(err) === 'Conflict' || reasonOf(err) === 'NotFound') return undefined;
      throw err;
    }
  }

  /** Deletes the server's objects the bootstrap configuration no longer names. */
  async removeUnwanted(bootstrapNames: ReadonlySet<string>): Promise<string[]> {
    const deleted: string[] = [];
    for (const obj of this.#current.values()) {
      if (!isUnwanted(obj, bootstrapNames)) continue;
      try {
        // Only the version that was judged unwanted: an administrator who just took the object over
        // (autoupdate "false") keeps it. Upstream means to do this too (its TODO); without it the
        // outcome differs only in that race.
        await this.#store.delete(this.#ctx, '', obj.metadata.name, { dryRun: false, preconditions: { resourceVersion: obj.metadata.resourceVersion } });
        deleted.push(obj.metadata.name);
      } catch (err) {
        if (reasonOf(err) !== 'NotFound' && reasonOf(err) !== 'Conflict') throw err;
      }
    }
    return deleted;
  }
}

/** The objects of one resource, in the order upstream ensures them. */
const PLAN: readonly { resource: ConfigurationResource; strategy: EnsureStrategy; objects: readonly BootstrapConfiguration[] }[] = [
  { resource: 'prioritylevelconfigurations', strategy: 'suggested', objects: SUGGESTED_PRIORITY_LEVELS },
  { resource: 'flowschemas', strategy: 'suggested', objects: SUGGESTED_FLOW_SCHEMAS },
  { resource: 'prioritylevelconfigurations', strategy: 'mandatory', objects: MANDATORY_PRIORITY_LEVELS },
  { resource: 'flowschemas', strategy: 'mandatory', objects: MANDATORY_FLOW_SCHEMAS },
];

const BOOTSTRAP_NAMES: Readonly<Record<ConfigurationResource, ReadonlySet<string>>> = {
  flowschemas: new Set([...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS].map((c) => c.name)),
  prioritylevelconfigurations: new Set([...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS].map((c) => c.name)),
};

/**
 * One pass over the bootstrap configuration; returns what it changed (`created flowschemas/exempt`,
 * …). The server's own configuration does not pass admission, as the RBAC bootstrap policy does not.
 * A resource --runtime-config turned off is left alone; an object that cannot be read is left as it
 * is (the unsafe delete can remove it, and a later pass creates it again).
 */
export async function ensureFlowControlBootstrap(storage: Storage, kinds: readonly KindDefinition[], logger?: Logger): Promise<string[]> {
  const ctx: RequestContext = { ...systemContext(), fieldManager: CONFIG_PRODUCER_FIELD_MANAGER };
  const served = new Map<ConfigurationResource, ConfigurationObjects>();
  for (const resource of ['prioritylevelconfigurations', 'flowschemas'] as const) {
    const kind = kinds.find((k) => k.group === GROUP && k.version === 'v1' && k.plural === resource);
    if (!kind) continue;
    const objects = new ConfigurationObjects(resource, new ResourceStore(kind, storage, NO_ADMISSION), ctx);
    await objects.read();
    served.set(resource, objects);
  }
  const changed: string[] = [];
  for (const { resource, strategy, objects } of PLAN) {
    const store = served.get(resource);
    if (!store) continue;
    for (const bootstrap of objects) {
      const unreadable = () => logger?.warn({ resource, name: bootstrap.name }, 'API priority and fairness bootstrap: stored object cannot be read; left as it is');
      if (store.isUnreadable(bootstrap.name)) {
        unreadable();
        continue;
      }
      let outcome: Outcome;
      try {
        outcome = await store.ensure(bootstrap, strategy);
      } catch (err) {
        if (!isCorruptObjectError(err)) throw err;
        unreadable();
        continue;
      }
      if (outcome) changed.push(`${outcome} ${resource}/${bootstrap.name}`);
    }
  }
  // Schemas go before levels, so that no schema is left pointing at a level deleted under it.
  for (const resource of ['flowschemas', 'prioritylevelconfigurations'] as const) {
    for (const name of (await served.get(resource)?.removeUnwanted(BOOTSTRAP_NAMES[resource])) ?? []) changed.push(`deleted ${resource}/${name}`);
  }
  if (changed.length > 0) logger?.info({ changed }, 'API priority and fairness bootstrap configuration');
  return changed;
}
