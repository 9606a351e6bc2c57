import { ApiError, badRequest, expired } from '../api/errors.ts';
import type { CorruptObject } from '../storage/read-check.ts';
import { StorageError, type ListCursor, type ListOptions } from '../storage/storage.ts';
import { decodeContinue, encodeContinue } from './continue-token.ts';
import { parseSelectors } from './filter.ts';
import { parseResourceVersion, validateListQuery, type ListQuery } from './list-options.ts';
import type { ResourceStore } from './resource-store.ts';
import { toListApiError } from './storage-errors.ts';

export interface ListPage {
  readonly items: string[];
  readonly resourceVersion: string;
  readonly continue?: string;
  readonly remainingItemCount?: number;
  /** With `skipUnreadable`: objects of the page's range left out because they cannot be read. */
  readonly unreadable?: readonly CorruptObject[];
}

/** What only the server's own readers ask of a list: no request parameter reaches these. */
export interface InternalListOptions {
  /**
   * Objects that cannot be read are left out (and named in `unreadable`) instead of failing the list
   * (ListOptions.skipUnreadable): the server's informers must keep running so that they can be deleted.
   */
  readonly skipUnreadable?: boolean;
}

const CONTINUE_EXPIRED =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/** What a list request reads: the storage options, and whether they come from a continue token. */
interface ListPlan {
  readonly options: ListOptions;
  readonly fromToken: boolean;
}

function planList(store: ResourceStore, namespace: string | undefined, q: ListQuery, name: string | undefined, internal: InternalListOptions): ListPlan {
  validateListQuery(q);
  const kind = store.kind;
  const selectors = parseSelectors(kind, q.labelSelector, q.fieldSelector, name);
  const limit = q.limit && q.limit > 0 ? q.limit : undefined;
  const base: Pick<ListOptions, 'namespace' | 'filter' | 'limit' | 'countRemaining' | 'skipUnreadable'> = {
    namespace: kind.namespaced ? namespace : undefined,
    filter: selectors.filter,
    limit,
    countRemaining: !selectors.filter,
    ...(internal.skipUnreadable ? { skipUnreadable: true } : {}),
  };
  if (q.continue) {
    if (q.resourceVersion && q.resourceVersion !== '0') {
      throw badRequest('specifying resource version is not allowed when using continue');
    }
    const pos = decodeContinue(q.continue, kind.namespaced);
    const exactVersion = pos.resourceVersion === -1 ? undefined : pos.resourceVersion;
    return { options: { ...base, after: pos.after, exactVersion, ...(pos.remaining !== undefined ? { remainingAfter: pos.remaining } : {}) }, fromToken: true };
  }
  return { options: { ...base, ...versionOptions(q, limit) }, fromToken: false };
}

/**
 * Storage errors of a list in API terms (an expired continue token offers a way forward; objects that
 * cannot be decoded are named all together).
 */
function listError(store: ResourceStore, plan: ListPlan, err: unknown): unknown {
  if (err instanceof StorageError && err.code === 'Expired' && plan.fromToken && plan.options.after) {
    const e = expired(CONTINUE_EXPIRED);
    // The way forward the real server offers: a token at the latest version from the same key.
    e.status.metadata = { continue: encodeContinue(-1, plan.options.after, store.kind.namespaced) };
    return e;
  }
  if (err instanceof ApiError) return err;
  return toListApiError(err, store.qualified);
}

/**
 * Serves a list request following the resourceVersion / resourceVersionMatch table of the protocol:
 * Most Recent and Any read the latest state, NotOlderThan waits for the version, Exact and continue
 * tokens read the snapshot of their version. Called through ResourceStore.list.
 */
export async function listPage(
  store: ResourceStore,
  namespace: string | undefined,
  q: ListQuery,
  name?: string,
  internal: InternalListOptions = {},
): Promise<ListPage> {
  const plan = planList(store, namespace, q, name, internal);
  const { options } = plan;
  const kind = store.kind;
  try {
    const result = await store.storage.list({ group: kind.group, resource: kind.plural }, options);
    return {
      items: result.items,
      resourceVersion: String(result.resourceVersion),
      continue: result.next ? encodeContinue(options.exactVersion ?? result.resourceVersion, result.next, kind.namespaced, result.remaining) : undefined,
      remainingItemCount: result.next && result.remaining !== undefined ? result.remaining : undefined,
      ...(result.unreadable ? { unreadable: result.unreadable } : {}),
    };
  } catch (err) {
    throw listError(store, plan, err);
  }
}

/**
 * A list request without a limit, opened as a cursor over its snapshot so that it can be written out
 * as it is read (the same items, version and errors as listPage; such a list has no continue
 * token). Undefined for a paged list (one with a limit): listPage serves those. Called through
 * ResourceStore.openList.
 */
export async function openListCursor(
  store: ResourceStore,
  namespace: string | undefined,
  q: ListQuery,
  name?: string,
  internal: InternalListOptions = {},
): Promise<ListCursor | undefined> {
  const plan = planList(store, namespace, q, name, internal);
  if (plan.options.limit !== undefined) return undefined;
  try {
    return await store.storage.openList({ group: store.kind.group, resource: store.kind.plural }, plan.options);
  } catch (err) {
    throw listError(store, plan, err);
  }
}

/** Which snapshot a list without a continue token reads. */
function versionOptions(q: ListQuery, limit: number | undefined): Pick<ListOptions, 'exactVersion' | 'minVersion' | 'anyVersion'> {
  const rv = q.resourceVersion;
  if (rv === undefined) return {}; // Most Recent: a consistent read.
  if (rv === '0') return { anyVersion: true }; // Any: the latest is always allowed, and so is a watch cache's state.
  const version = parseResourceVersion(rv);
  if (q.resourceVersionMatch === 'Exact') return { exactVersion: version };
  if (q.resourceVersionMatch === 'NotOlderThan') return { minVersion: version };
  // Unset match: Exact when paging, NotOlderThan otherwise.
  return limit !== undefined ? { exactVersion: version } : { minVersion: version };
}
