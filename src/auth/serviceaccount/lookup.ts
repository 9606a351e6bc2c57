/**
 * Where token verification reads service accounts and the objects tokens are bound to: watch-fed
 * informers (all namespaces) rather than a query per request, as upstream's token getter reads its
 * listers. An object the informer has not seen yet (created a moment ago: a token bound to a pod is
 * often used as soon as both exist) is read from storage instead, as upstream's getter falls back to
 * its client. Any deletion or change of uid also tells the verifier to forget what it cached.
 */
import type { Logger } from 'pino';
import { ApiError } from '../../api/errors.ts';
import { systemContext } from '../../api/request-context.ts';
import type { StoredKubeObject } from '../../api/types.ts';
import type { Closers } from '../../closers.ts';
import type { ApiSurface } from '../../registry/api-surface.ts';
import { Informer } from '../../registry/informer.ts';
import type { ResourceStore } from '../../registry/resource-store.ts';

export type BoundKind = 'serviceaccounts' | 'secrets' | 'pods' | 'nodes';

/** Reads one object of the kinds a token names; undefined when there is none. */
export interface ServiceAccountObjectLookup {
  get(kind: BoundKind, namespace: string, name: string): Promise<StoredKubeObject | undefined>;
  /** Calls `fn` whenever an object of these kinds is deleted, marked for deletion or replaced. */
  onInvalidate(fn: () => void): void;
}

/** A lookup over plain maps, for tests. */
export function mapLookup(objects: Map<string, StoredKubeObject>): ServiceAccountObjectLookup & { invalidate(): void } {
  const listeners: (() => void)[] = [];
  return {
    get: async (kind, namespace, name) => objects.get(`${kind}/${namespace}/${name}`),
    onInvalidate: (fn) => void listeners.push(fn),
    invalidate: () => listeners.forEach((fn) => fn()),
  };
}

export async function informerLookup(deps: { surface: ApiSurface; logger: Logger; closers: Closers }): Promise<ServiceAccountObjectLookup> {
  const kinds: BoundKind[] = ['serviceaccounts', 'secrets', 'pods', 'nodes'];
  const listeners: (() => void)[] = [];
  const fire = () => listeners.forEach((fn) => fn());
  const informers = new Map<BoundKind, { informer: Informer; store: ResourceStore }>();
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
    informers.set(kind, { informer, store });
  }
  await Promise.all([...informers.values()].map((i) => i.informer.start()));
  deps.closers.add('service-account-token-informers', () => informers.forEach((i) => i.informer.stop()));
  return {
    get: async (kind, namespace, name) => {
      const served = informers.get(kind);
      if (!served) return undefined;
      const ns = kind === 'nodes' ? '' : namespace;
      const cached = served.informer.get(ns, name);
      if (cached) return cached;
      try {
        return (await served.store.get(systemContext(), ns, name)).object;
      } catch (err) {
        if (err instanceof ApiError && err.status.code === 404) return undefined;
        throw err; // storage unavailable: the token is not accepted this time (a 401, as upstream)
      }
    },
    onInvalidate: (fn) => void listeners.push(fn),
  };
}
