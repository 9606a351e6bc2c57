import type { KindDefinition } from './kind.ts';
import { ResourceStore, type NamespaceGate } from './resource-store.ts';
import type { Storage } from '../storage/storage.ts';

/** The kinds this server serves (after --runtime-config) and a store for each. */
export class ApiSurface {
  readonly kinds: readonly KindDefinition[];
  readonly #byPath = new Map<string, { kind: KindDefinition; store: ResourceStore }>();
  readonly #groupVersions = new Set<string>();

  constructor(kinds: readonly KindDefinition[], storage: Storage, namespaces: NamespaceGate) {
    this.kinds = kinds;
    for (const kind of kinds) {
      this.#byPath.set(`${kind.group}/${kind.version}/${kind.plural}`, { kind, store: new ResourceStore(kind, storage, namespaces) });
      this.#groupVersions.add(`${kind.group}/${kind.version}`);
    }
  }

  lookup(group: string, version: string, resource: string): { kind: KindDefinition; store: ResourceStore } | undefined {
    return this.#byPath.get(`${group}/${version}/${resource}`);
  }

  servesGroupVersion(group: string, version: string): boolean {
    return this.#groupVersions.has(`${group}/${version}`);
  }

  /** The store of a served kind, by group and plural, if it is served (--runtime-config may turn it off). */
  findStore(group: string, resource: string): ResourceStore | undefined {
    for (const entry of this.#byPath.values()) {
      if (entry.kind.group === group && entry.kind.plural === resource) return entry.store;
    }
    return undefined;
  }

  /** The store of a kind the caller cannot work without (controllers use this). */
  storeFor(group: string, resource: string): ResourceStore {
    const store = this.findStore(group, resource);
    if (!store) throw new Error(`no served resource ${resource}.${group}`);
    return store;
  }
}
