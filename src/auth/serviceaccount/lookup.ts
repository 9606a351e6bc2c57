/**
 * Where token verification reads service accounts and the objects tokens are bound to: watch-fed
 * informers (all namespaces) rather than a query per request, as upstream's token getter reads its
 * listers. Any deletion or change of uid also tells the verifier to forget what it cached.
 */
import type { Logger } from 'pino';
import type { StoredKubeObject } from '../../api/types.ts';
import type { Closers } from '../../closers.ts';
import type { ApiSurface } from '../../registry/api-surface.ts';
import { Informer } from '../../registry/informer.ts';

export type BoundKind = 'serviceaccounts' | 'secrets' | 'pods' | 'nodes';

/** Reads one object of the kinds a token names; undefined when there is none. */
export interface ServiceAccountObjectLookup {
  get(kind: BoundKind, namespace: string, name: string): StoredKubeObject | undefined;
  /** Calls `fn` whenever an object of these kinds is deleted, marked for deletion or replaced. */
  onInvalidate(fn: () => void): void;
}

/** A lookup over plain maps, for tests. */
export function mapLookup(objects: Map<string, StoredKubeObject>): ServiceAccountObjectLookup & { invalidate(): void } {
  const listeners: (() => void)[] = [];
  return {
    get: (kind, namespace, name) => objects.get(`${kind}/${namespace}/${name}`),
    onInvalidate: (fn) => void listeners.push(fn),
    invalidate: () => listeners.forEach((fn) => fn()),
  };
}

export async function informerLookup(deps: { surface: ApiSurface; logger: Logger; closers: Closers }): Promise<ServiceAccountObjectLookup> {
  const kinds: BoundKind[] = ['serviceaccounts', 'secrets', 'pods', 'nodes'];
  const listeners: (() => void)[] = [];
  const fire = () => listeners.forEach((fn) => fn());
  const informers = new Map<BoundKind, Informer>();
  for (const kind of kinds) {
    const store = deps.surface.findStore('', kind);
    if (!store) continue; // a kind turned off by --runtime-config: nothing can be bound to it
    const informer = new Informer(store, { logger: deps.logger });
    informer.on({
      deleted: fire,
      updated: (obj, old) => {
        if (obj.metadata.uid !== old.metadata.uid || (obj.metadata.deletionTimestamp && !old.metadata.deletionTimestamp)) fire();
      },
    });
    informers.set(kind, informer);
  }
  await Promise.all([...informers.values()].map((i) => i.start()));
  deps.closers.add('service-account-token-informers', () => informers.forEach((i) => i.stop()));
  return {
    get: (kind, namespace, name) => informers.get(kind)?.get(kind === 'nodes' ? '' : namespace, name),
    onInvalidate: (fn) => void listeners.push(fn),
  };
}
