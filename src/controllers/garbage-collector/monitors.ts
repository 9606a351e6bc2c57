/**
 * The collector's monitors: one informer per kind it can collect (served with delete, list and
 * watch; events excepted, as upstream ignores them), keeping only each object's metadata, turning
 * what they see into graph events. The set follows the served kinds: it is compared with the API
 * surface now and then, as upstream resyncs its monitors with discovery.
 */
import type { Logger } from 'pino';
import type { StoredKubeObject } from '../../api/types.ts';
import type { ApiSurface } from '../../registry/api-surface.ts';
import { Informer } from '../../registry/informer.ts';
import { apiVersionOf, type KindDefinition } from '../../registry/kind.ts';
import { storageRefOf } from '../../registry/storage-view.ts';
import type { GraphEvent, ObservedObject } from './graph-builder.ts';
import { NONE, type OwnerReference } from './graph.ts';

/** Kinds the collector never watches (upstream's DefaultIgnoredResources). */
const IGNORED: ReadonlySet<string> = new Set(['/events', 'events.k8s.io/events']);

/** The kinds to monitor: one per stored resource, collectable ones only. */
export function collectableKinds(kinds: readonly KindDefinition[]): KindDefinition[] {
  const seen = new Set<string>();
  const out: KindDefinition[] = [];
  for (const kind of kinds) {
    if (kind.computed || !(['delete', 'list', 'watch'] as const).every((v) => kind.verbs.includes(v))) continue;
    if (IGNORED.has(`${kind.group}/${kind.plural}`)) continue;
    const ref = storageRefOf(kind);
    const key = `${ref.group}/${ref.resource}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(kind);
  }
  return out;
}

function ownerReferencesOf(obj: StoredKubeObject): readonly OwnerReference[] {
  const refs = obj.metadata.ownerReferences;
  return Array.isArray(refs) && refs.length > 0 ? (refs as OwnerReference[]) : NONE;
}

function finalizersOf(obj: StoredKubeObject): readonly string[] {
  const finalizers = obj.metadata.finalizers;
  return Array.isArray(finalizers) && finalizers.length > 0 ? finalizers : NONE;
}

/**
 * What the informer keeps of an object: its metadata's part the collector reads. Each shape is one
 * literal: a property added afterwards would give every kept object a separate properties array,
 * and most objects (no owners, finalizers or deletion) need only the four fields of the first.
 */
export function metadataOnly(obj: StoredKubeObject): StoredKubeObject {
  const m = obj.metadata;
  const owners = ownerReferencesOf(obj);
  const finalizers = finalizersOf(obj);
  if (owners.length === 0 && finalizers.length === 0 && !m.deletionTimestamp) {
    return { metadata: { name: m.name, uid: m.uid, resourceVersion: m.resourceVersion, namespace: m.namespace || undefined } };
  }
  const metadata: StoredKubeObject['metadata'] = {
    name: m.name,
    uid: m.uid,
    resourceVersion: m.resourceVersion,
    namespace: m.namespace || undefined,
    deletionTimestamp: m.deletionTimestamp || undefined,
    finalizers: finalizers.length > 0 ? [...finalizers] : undefined,
    ownerReferences: owners.length > 0 ? owners.map((o) => ({ ...o })) : undefined,
  };
  return { metadata };
}

/** The graph's view of a (metadata-only) object of `kind`. */
export function observedObject(kind: KindDefinition, obj: StoredKubeObject): ObservedObject {
  const m = obj.metadata;
  return {
    apiVersion: apiVersionOf(kind),
    kind: kind.kind,
    name: m.name,
    uid: m.uid,
    namespace: kind.namespaced ? (m.namespace ?? '') : '',
    ownerReferences: ownerReferencesOf(obj),
    finalizers: finalizersOf(obj),
    beingDeleted: Boolean(m.deletionTimestamp),
  };
}

export class Monitors {
  readonly #surface: ApiSurface;
  readonly #logger: Logger;
  readonly #onEvent: (event: GraphEvent) => void;
  readonly #informers = new Map<string, Informer>();
  #generation = -1;
  #stopped = false;

  constructor(surface: ApiSurface, logger: Logger, onEvent: (event: GraphEvent) => void) {
    this.#surface = surface;
    this.#logger = logger;
    this.#onEvent = onEvent;
  }

  /** Starts a monitor for every collectable kind not monitored yet (and stops those of kinds gone); resolves once their first lists are in. */
  async sync(): Promise<void> {
    if (this.#stopped || this.#generation === this.#surface.generation) return;
    this.#generation = this.#surface.generation;
    const wanted = new Map(collectableKinds(this.#surface.kinds).map((k) => [`${k.group}/${k.version}/${k.plural}`, k]));
    for (const [key, informer] of this.#informers) {
      if (wanted.has(key)) continue;
      informer.stop();
      this.#informers.delete(key);
    }
    const starting: Promise<void>[] = [];
    for (const [key, kind] of wanted) {
      if (this.#informers.has(key)) continue;
      const informer = this.#monitor(kind);
      this.#informers.set(key, informer);
      starting.push(
        informer.start().catch((err: unknown) => {
          // The informer keeps trying on its own only once started; a failed first list is retried at the next sync.
          this.#logger.warn({ err, resource: kind.plural }, 'garbage collector monitor failed to start');
          informer.stop();
          this.#informers.delete(key);
          this.#generation = -1;
        }),
      );
    }
    await Promise.all(starting);
  }

  stop(): void {
    this.#stopped = true;
    for (const informer of this.#informers.values()) informer.stop();
    this.#informers.clear();
  }

  #monitor(kind: KindDefinition): Informer {
    const store = this.#surface.lookup(kind.group, kind.version, kind.plural)!.store;
    const informer = new Informer(store, { logger: this.#logger, transform: metadataOnly });
    const observed = (obj: StoredKubeObject) => observedObject(kind, obj);
    informer.on({
      added: (obj) => this.#emit({ type: 'add', object: observed(obj) }),
      updated: (obj, old) => {
        // Keyed by name, an informer that listed again may report a re-created object as an update: it is a delete and an add.
        if (obj.metadata.uid !== old.metadata.uid) {
          this.#emit({ type: 'delete', object: observed(old) });
          this.#emit({ type: 'add', object: observed(obj) });
          return;
        }
        this.#emit({ type: 'update', object: observed(obj), old: observed(old) });
      },
      deleted: (obj) => this.#emit({ type: 'delete', object: observed(obj) }),
    });
    return informer;
  }

  #emit(event: GraphEvent): void {
    if (this.#stopped) return;
    try {
      this.#onEvent(event);
    } catch (err) {
      this.#logger.error({ err, uid: event.object.uid }, 'garbage collector could not process a change');
    }
  }
}
