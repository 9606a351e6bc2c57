import type { AdmissionChain } from '../admission/chain.ts';
import type { KindDefinition } from './kind.ts';
import { ResourceStore } from './resource-store.ts';
import type { Storage } from '../storage/storage.ts';

export interface Served {
  readonly kind: KindDefinition;
  readonly store: ResourceStore;
}

/**
 * The kinds this server serves and a store for each. The set can grow and shrink while the server
 * runs (custom resources come and go): every change bumps `generation`, which the discovery and
 * OpenAPI documents are cached by, so they follow.
 */
export class ApiSurface {
  readonly #storage: Storage;
  readonly #admission: AdmissionChain;
  readonly #byPath = new Map<string, Served>();
  /** The kinds added by `replaceOwned`, by owner (a CRD's name): built-in kinds have none. */
  readonly #owned = new Map<string, readonly Served[]>();
  #kinds: readonly KindDefinition[] = [];
  #generation = 0;

  constructor(kinds: readonly KindDefinition[], storage: Storage, admission: AdmissionChain) {
    this.#storage = storage;
    this.#admission = admission;
    for (const kind of kinds) this.add(kind);
  }

  /** The served kinds, in the order they were added. */
  get kinds(): readonly KindDefinition[] {
    return this.#kinds;
  }

  /** Changes with every add or remove. */
  get generation(): number {
    return this.#generation;
  }

  /** Serves a kind from now on; a kind already served at the same path is an error. */
  add(kind: KindDefinition): ResourceStore {
    const path = pathOf(kind.group, kind.version, kind.plural);
    if (this.#byPath.has(path)) throw new Error(`${kind.plural}.${kind.group || 'core'}/${kind.version} is served already`);
    const store = new ResourceStore(kind, this.#storage, this.#admission);
    this.#byPath.set(path, { kind, store });
    this.#kinds = [...this.#kinds, kind];
    this.#generation++;
    return store;
  }

  /** Stops serving a kind (its stored objects stay); false when it was not served. */
  remove(group: string, version: string, plural: string): boolean {
    const served = this.#byPath.get(pathOf(group, version, plural));
    if (!served) return false;
    this.#byPath.delete(pathOf(group, version, plural));
    this.#kinds = this.#kinds.filter((k) => k !== served.kind);
    this.#generation++;
    return true;
  }

  /**
   * Replaces every kind `owner` serves (a CustomResourceDefinition's kinds) with `kinds` in one
   * step: a request arriving at any moment finds either the old kinds or the new ones, never a 404
   * in between, and the generation moves once. A kind whose path is served by anything else (a
   * built-in kind, another owner) is not added: it is returned in `shadowed`, so a custom resource
   * never hides what is already served. `makeStore` builds the store of a kind (default: the
   * generic store). An empty `kinds` stops serving the owner's kinds.
   */
  replaceOwned(
    owner: string,
    kinds: readonly KindDefinition[],
    makeStore: (kind: KindDefinition, storage: Storage, admission: AdmissionChain) => ResourceStore = (k, s, a) => new ResourceStore(k, s, a),
  ): { readonly served: readonly Served[]; readonly shadowed: readonly KindDefinition[] } {
    const previous = this.#owned.get(owner) ?? [];
    const mine = new Set(previous.map((p) => pathOf(p.kind.group, p.kind.version, p.kind.plural)));
    const served: Served[] = [];
    const shadowed: KindDefinition[] = [];
    const paths = new Set<string>();
    for (const kind of kinds) {
      const path = pathOf(kind.group, kind.version, kind.plural);
      if ((this.#byPath.has(path) && !mine.has(path)) || paths.has(path)) {
        shadowed.push(kind);
        continue;
      }
      paths.add(path);
      served.push({ kind, store: makeStore(kind, this.#storage, this.#admission) });
    }
    if (previous.length === 0 && served.length === 0) return { served, shadowed };
    // Built first, swapped after: no await between the removal and the additions below.
    const old = new Set(previous.map((p) => p.kind));
    for (const path of mine) if (!paths.has(path)) this.#byPath.delete(path);
    for (const entry of served) this.#byPath.set(pathOf(entry.kind.group, entry.kind.version, entry.kind.plural), entry);
    this.#kinds = [...this.#kinds.filter((k) => !old.has(k)), ...served.map((s) => s.kind)];
    if (served.length > 0) this.#owned.set(owner, served);
    else this.#owned.delete(owner);
    this.#generation++;
    return { served, shadowed };
  }

  /** The kinds `owner` serves through `replaceOwned`, with their stores. */
  owned(owner: string): readonly Served[] {
    return this.#owned.get(owner) ?? [];
  }

  lookup(group: string, version: string, resource: string): Served | undefined {
    return this.#byPath.get(pathOf(group, version, resource));
  }

  servesGroupVersion(group: string, version: string): boolean {
    return this.#kinds.some((k) => k.group === group && k.version === version);
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

function pathOf(group: string, version: string, plural: string): string {
  return `${group}/${version}/${plural}`;
}
