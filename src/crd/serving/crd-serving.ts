/**
 * The serving loop of custom resources, run in every replica: an informer on the
 * CustomResourceDefinitions keeps the ApiSurface serving the kinds of each CRD that may be served.
 *
 * Upstream's crdHandler rules, as this server applies them:
 * - a CRD is served once its `NamesAccepted` or its `Established` condition is True (the handler
 *   serves either: a names update can make NamesAccepted False before Established follows);
 * - its serving info (here: the kinds and their stores) is rebuilt only when its spec or accepted
 *   names change, and the old kinds stay served until the new ones are built: the surface swaps
 *   them in one step, so there is no moment of 404s; a CRD whose kinds cannot be built keeps the old;
 * - a built-in kind's path is never taken over (upstream's CRD handler is behind every built-in route);
 * - while the CRD is terminating, creates are refused and the rest is served (serve-store.ts);
 * - a deleted CRD stops being served; its objects stay in storage (the cleanup finalizer removes them).
 *
 * A second server process on the same database learns of every CRD change through its own
 * informer's watch, so a custom resource is served by every replica within the watch's latency.
 */
import type { Logger } from 'pino';
import { WebhookClients } from '../../admission/webhook/client.ts';
import type { Closers } from '../../closers.ts';
import type { StoredKubeObject } from '../../api/types.ts';
import type { ApiSurface } from '../../registry/api-surface.ts';
import { Informer } from '../../registry/informer.ts';
import type { KindDefinition } from '../../registry/kind.ts';
import type { AsyncStorageMapping } from '../../registry/storage-view.ts';
import type { KubeObject } from '../../api/types.ts';
import type { CustomResourceDefinition } from '../validation/types.ts';
import { isConditionTrue } from '../validation/index.ts';
import { customResourceKinds, customResourceReader, servedNames, type CustomResourceReader } from './kinds.ts';
import { decodeCustomResource } from './decode.ts';
import { customResourceVersionSchema, type VersionSchema } from './version-schema.ts';
import { cloneJson } from '../../api/types.ts';
import { CustomResourceStore, type CrdServingState } from './serve-store.ts';
import { versionStorage } from './version-storage.ts';
import { crdKindVersions } from './field-manager-versions.ts';

export const CRD_GROUP = 'apiextensions.k8s.io';
export const CRD_RESOURCE = 'customresourcedefinitions';

/** What is served for one CRD: the spec and names it was built from, and the state its stores read. */
interface ServedCrd {
  readonly uid: string;
  readonly builtFrom: string;
  readonly state: CrdServingState;
}

/** Whether upstream's handler serves the CRD's resources at all. */
export function crdServable(crd: CustomResourceDefinition): boolean {
  return isConditionTrue(crd, 'NamesAccepted') || isConditionTrue(crd, 'Established');
}

/** Whether the CRD is being deleted (its objects being removed): creates are refused meanwhile. */
export function crdTerminating(crd: CustomResourceDefinition): boolean {
  return isConditionTrue(crd, 'Terminating');
}

/** What a change of these rebuilds (upstream compares spec and accepted names). */
function buildKey(crd: CustomResourceDefinition): string {
  return JSON.stringify([crd.metadata?.uid ?? '', crd.spec ?? {}, crd.status?.acceptedNames ?? {}]);
}

export class CrdServing {
  readonly #surface: ApiSurface;
  readonly #logger: Logger;
  readonly #informer: Informer;
  readonly #clients = new WebhookClients();
  readonly #served = new Map<string, ServedCrd>();

  constructor(surface: ApiSurface, informer: Informer, logger: Logger) {
    this.#surface = surface;
    this.#informer = informer;
    this.#logger = logger;
    informer.on({
      added: (crd) => this.#sync(crd as CustomResourceDefinition & StoredKubeObject),
      updated: (crd) => this.#sync(crd as CustomResourceDefinition & StoredKubeObject),
      deleted: (crd) => this.#drop(crd.metadata.name),
    });
  }

  /** Names of the CRDs whose kinds are served now. */
  get servedNames(): readonly string[] {
    return [...this.#served.keys()];
  }

  #sync(crd: CustomResourceDefinition & StoredKubeObject): void {
    const name = crd.metadata.name;
    if (!crdServable(crd)) return this.#drop(name);
    const terminating = crdTerminating(crd);
    const builtFrom = buildKey(crd);
    const current = this.#served.get(name);
    if (current && current.builtFrom === builtFrom) {
      // Only status moved: the stores read the terminating flag at request time.
      current.state.terminating = terminating;
      return;
    }
    let kinds: KindDefinition[];
    try {
      const storageSchema = storageVersionSchema(crd);
      // One view of the CRD's versions for the field managers of all its kinds.
      const kindVersions = crdKindVersions(crd, this.#clients);
      kinds = customResourceKinds(crd).map((kind) => ({
        ...kind,
        storage: {
          ...prunedForStorage(
            readingAfterConversion(versionStorage(crd, kind.customResource?.version ?? kind.version, { clients: this.#clients }), customResourceReader(kind)),
            storageSchema,
          ),
          kindVersions,
        },
      }));
    } catch (err) {
      // Upstream answers requests with "the server could not properly serve the CR schema" then; the old kinds, if any, stay.
      this.#logger.error({ err, crd: name }, 'cannot build the serving kinds of a CustomResourceDefinition');
      return;
    }
    const state: CrdServingState = current?.uid === crd.metadata.uid ? current.state : { terminating };
    state.terminating = terminating;
    const { served, shadowed } = this.#surface.replaceOwned(name, kinds, (kind, storage, admission) => new CustomResourceStore(kind, storage, admission, state));
    for (const kind of shadowed) {
      this.#logger.warn({ crd: name, group: kind.group, version: kind.version, resource: kind.plural }, 'a custom resource path is served already: not served for this CRD');
    }
    if (served.length === 0) this.#served.delete(name);
    else this.#served.set(name, { uid: crd.metadata.uid ?? '', builtFrom, state });
    this.#logger.debug({ crd: name, versions: served.map((s) => s.kind.version) }, 'serving custom resources');
  }

  #drop(name: string): void {
    this.#surface.replaceOwned(name, []);
    if (this.#served.delete(name)) this.#logger.debug({ crd: name }, 'no longer serving custom resources');
  }

  /** Stops following the CRDs; the custom resources are no longer served. */
  stop(): void {
    this.#informer.stop();
    for (const name of [...this.#served.keys()]) this.#drop(name);
    this.#clients.close();
  }
}

/**
 * Start-up step: serve the custom resources of the CRDs stored now (the informer's first list is in
 * before the server listens) and follow every change. Nothing to do when the CRD API is not served
 * (--runtime-config turned it off).
 */
export async function startCrdServing(deps: { surface: ApiSurface; logger: Logger; closers: Closers }): Promise<CrdServing | undefined> {
  const store = deps.surface.findStore(CRD_GROUP, CRD_RESOURCE);
  if (!store) return undefined;
  const informer = new Informer(store, { logger: deps.logger });
  const serving = new CrdServing(deps.surface, informer, deps.logger);
  await informer.start();
  deps.closers.add('crd-serving', () => serving.stop());
  return serving;
}

/**
 * The version's storage mapping followed by the kind's own read step (pruning and defaults of the
 * current schema, src/crd/serving/kinds.ts): an object read in another version is converted first,
 * then read as an object of the version served.
 */
function readingAfterConversion(mapping: AsyncStorageMapping, read: CustomResourceReader | undefined): AsyncStorageMapping {
  if (!read) return mapping;
  // A conversion's output is a new object (a copy, or the webhook's decoded answer): read in place.
  return {
    ...mapping,
    fromStorage: (obj) => read(mapping.fromStorage(obj), true),
    fromStorageAsync: async (objs, owned) => (await mapping.fromStorageAsync(objs, owned)).map((o) => read(o, true)),
  };
}

/** The schema of the CRD's storage version (served or not), which objects are pruned by on the way into storage. */
function storageVersionSchema(crd: CustomResourceDefinition): VersionSchema | undefined {
  const version = crd.spec?.versions?.find((v) => v.storage);
  const kind = servedNames(crd).kind;
  return version && kind ? customResourceVersionSchema(crd, version, kind) : undefined;
}

/**
 * Objects go to storage coerced to the storage version's schema (pruned, nulls without default
 * dropped), as upstream's storage codec coerces what it encodes (schemaCoercingConverter): fields
 * a mutating admission webhook added that the schema does not know never reach storage, nor do
 * fields of the written version that the storage version does not have.
 */
function prunedForStorage(mapping: AsyncStorageMapping, v: VersionSchema | undefined): AsyncStorageMapping {
  if (!v) return mapping;
  const coerce = (input: KubeObject, out: KubeObject): KubeObject => {
    const obj = out === input ? cloneJson(out) : out;
    decodeCustomResource(v, obj);
    return obj;
  };
  return {
    ...mapping,
    toStorage: (obj) => coerce(obj, mapping.toStorage(obj)),
    toStorageAsync: async (obj) => coerce(obj, await mapping.toStorageAsync(obj)),
  };
}
