/**
 * RBAC decisions remembered until the policy changes. A decision depends only on the user's name
 * and groups, the request's attributes and the four RBAC kinds, so a repeated request (a controller
 * or service account asking the same thing again and again) can skip walking its bindings. Any
 * event of a role or binding informer empties the cache: never stale beyond what the informers are.
 *
 * An allow by a rule without resourceNames holds for every object name, so it is kept once for the
 * whole resource: gets of a thousand different objects walk the bindings once, not a thousand times.
 */
import type { RequestInfo } from '../../api/request-info.ts';
import type { UserInfo } from '../user.ts';
import type { AuthorizationResult } from '../authz/authorizer.ts';

/** Bounded: a cache this full is emptied (cheap to refill), so that many users cannot grow it without end. */
const MAX_ENTRIES = 10_000;

const part = (s: string) => `${s.length}:${s}`;

/** The decisions for one user and one request less its object name. */
interface Slot {
  /** The decision for any name (an allow that named no object). */
  any?: AuthorizationResult;
  /** Decisions for single names (those that depended on the name, and the nameless request's own). */
  byName?: Map<string, AuthorizationResult>;
}

/** Authenticated users are the same objects while their tokens stay cached: their key part is built once. */
const userParts = new WeakMap<UserInfo, string>();

function userPart(user: UserInfo): string {
  let key = userParts.get(user);
  if (key === undefined) {
    key = part(user.name);
    for (const g of user.groups) key += part(g);
    userParts.set(user, key);
  }
  return key;
}

export class DecisionCache {
  readonly #slots = new Map<string, Slot>();
  #entries = 0;

  /**
   * Every part length-prefixed, so that no name, group or path can be made to read as two parts.
   * The object name is not in it: it selects within the slot.
   */
  static key(user: UserInfo, r: RequestInfo): string {
    const request = r.isResourceRequest
      ? `r${part(r.verb)}${part(r.apiGroup)}${part(r.resource)}${part(r.subresource)}${part(r.namespace)}`
      : `n${part(r.verb)}${part(r.path)}`;
    return request + userPart(user);
  }

  get(user: UserInfo, r: RequestInfo): AuthorizationResult | undefined {
    const slot = this.#slots.get(DecisionCache.key(user, r));
    if (!slot) return undefined;
    return slot.any ?? slot.byName?.get(r.isResourceRequest ? r.name : '');
  }

  /** `anyName`: the result holds whatever object the request names. */
  set(user: UserInfo, r: RequestInfo, result: AuthorizationResult, anyName: boolean): void {
    if (this.#entries >= MAX_ENTRIES) this.clear();
    const key = DecisionCache.key(user, r);
    let slot = this.#slots.get(key);
    if (!slot) this.#slots.set(key, (slot = {}));
    if (anyName) {
      slot.any = result;
      slot.byName = undefined;
    } else {
      (slot.byName ??= new Map()).set(r.isResourceRequest ? r.name : '', result);
    }
    this.#entries++;
  }

  /** The policy changed: forget every decision. */
  clear(): void {
    this.#slots.clear();
    this.#entries = 0;
  }
}
