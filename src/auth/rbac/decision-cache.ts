/**
 * RBAC decisions remembered until the policy changes. A decision depends only on the user's name
 * and groups, the request's attributes and the four RBAC kinds, so a repeated request (a controller
 * or service account asking the same thing again and again) can skip walking its bindings. Any
 * event of a role or binding informer empties the cache: never stale beyond what the informers are.
 */
import type { RequestInfo } from '../../api/request-info.ts';
import type { UserInfo } from '../user.ts';
import type { AuthorizationResult } from '../authz/authorizer.ts';

/** Bounded: a cache this full is emptied (cheap to refill), so that many users cannot grow it without end. */
const MAX_ENTRIES = 10_000;

const part = (s: string) => `${s.length}:${s}`;

export class DecisionCache {
  readonly #entries = new Map<string, AuthorizationResult>();

  /** Every part length-prefixed, so that no name, group or path can be made to read as two parts. */
  static key(user: UserInfo, r: RequestInfo): string {
    let key = r.isResourceRequest
      ? `r${part(r.verb)}${part(r.apiGroup)}${part(r.resource)}${part(r.subresource)}${part(r.namespace)}${part(r.name)}`
      : `n${part(r.verb)}${part(r.path)}`;
    key += part(user.name);
    for (const g of user.groups) key += part(g);
    return key;
  }

  get(key: string): AuthorizationResult | undefined {
    return this.#entries.get(key);
  }

  set(key: string, result: AuthorizationResult): void {
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
    this.#entries.set(key, result);
  }

  /** The policy changed: forget every decision. */
  clear(): void {
    this.#entries.clear();
  }
}
