import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import { ApiError } from '../api/errors.ts';
import type { StoredKubeObject } from '../api/types.ts';
import { Informer } from '../registry/informer.ts';
import type { ResourceStore } from '../registry/resource-store.ts';
import { CoalescedPass } from './coalesced-pass.ts';
import { controllerContext } from './controller-context.ts';

interface Requirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Requirement[];
}
type ClusterRole = StoredKubeObject & { rules?: unknown[] | null; aggregationRule?: { clusterRoleSelectors?: LabelSelector[] | null } | null };

/** metav1.LabelSelector matching; an empty selector matches everything, as upstream converts it. */
export function selectorMatches(selector: LabelSelector, labels: Record<string, string>): boolean {
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const r of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, r.key);
    const ok =
      r.operator === 'In' ? has && (r.values ?? []).includes(labels[r.key]!)
      : r.operator === 'NotIn' ? !has || !(r.values ?? []).includes(labels[r.key]!)
      : r.operator === 'Exists' ? has
      : r.operator === 'DoesNotExist' ? !has
      : false;
    if (!ok) return false;
  }
  return true;
}

/**
 * The rules an aggregated ClusterRole should hold: those of every other ClusterRole any selector
 * matches, taken in name order and each rule once (upstream sorts by name and skips equal rules).
 */
export function aggregatedRules(role: ClusterRole, all: readonly ClusterRole[]): unknown[] {
  const selectors = role.aggregationRule?.clusterRoleSelectors ?? [];
  const sources = all
    .filter((other) => other.metadata.name !== role.metadata.name)
    .filter((other) => selectors.some((s) => selectorMatches(s, (other.metadata.labels ?? {}) as Record<string, string>)))
    .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
  const rules: unknown[] = [];
  for (const source of sources) for (const rule of source.rules ?? []) if (!rules.some((r) => isDeepStrictEqual(r, rule))) rules.push(rule);
  return rules;
}

/**
 * Fills the rules of ClusterRoles that carry an aggregationRule from the ClusterRoles their
 * selectors match, as upstream's clusterrole-aggregation controller; any ClusterRole change
 * re-examines every aggregated one (they are few). Writes are plain conditional updates.
 */
export class ClusterRoleAggregationController {
  readonly #store: ResourceStore;
  readonly #logger: Logger;
  #informer: Informer | undefined;
  #passes: CoalescedPass | undefined;
  #stopped = true;

  constructor(store: ResourceStore, logger: Logger) {
    this.#store = store;
    this.#logger = logger.child({ controller: 'clusterrole-aggregation' });
  }

  async start(): Promise<void> {
    this.#stopped = false;
    this.#passes = new CoalescedPass(() => this.#aggregate());
    const informer = new Informer(this.#store, { logger: this.#logger });
    this.#informer = informer;
    const poke = () => this.#passes?.request();
    informer.on({ added: poke, updated: poke, deleted: poke });
    await informer.start();
    poke();
  }

  stop(): void {
    this.#stopped = true;
    this.#informer?.stop();
    this.#informer = undefined;
    this.#passes?.stop();
  }

  /** One pass over every aggregated role; 'retry' when a write failed for a reason a later pass may not meet. */
  async #aggregate(): Promise<'retry' | void> {
    let retry = false;
    const all = (this.#informer?.list() ?? []) as ClusterRole[];
    for (const role of all) {
      if (!role.aggregationRule || this.#stopped) continue;
      const rules = aggregatedRules(role, all);
      if (isDeepStrictEqual(role.rules ?? [], rules)) continue;
      try {
        await this.#store.replace(controllerContext(), '', role.metadata.name, { ...role, rules });
      } catch (err) {
        // A newer version is on its way through the informer; that event brings another pass.
        if (err instanceof ApiError && (err.code === 409 || err.code === 404)) continue;
        this.#logger.warn({ err, clusterRole: role.metadata.name }, 'aggregating cluster role failed; retrying');
        retry = true;
      }
    }
    return retry ? 'retry' : undefined;
  }
}
