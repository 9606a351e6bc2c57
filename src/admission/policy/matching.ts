/**
 * Which requests a policy's matchConstraints and a binding's matchResources select, as upstream's
 * policy matcher and the webhook predicates decide: the namespace selector (on the request's
 * namespace, or on the namespace object itself), the object selector (on the new or the old
 * object), exclusions first, then the resource rules (operations, groups, versions, resources with
 * subresources and `*` forms, scope, resourceNames), and with matchPolicy Equivalent the same
 * resource served under another group or version.
 */
import { ApiError, notFound } from '../../api/errors.ts';
import { systemContext } from '../../api/request-context.ts';
import { labelSelectorFromObject, matchesLabels, type LabelSelector, type LabelSelectorObject } from '../../api/selectors/label-selector.ts';
import type { KubeObject, StoredKubeObject } from '../../api/types.ts';
import type { Informer } from '../../registry/informer.ts';
import type { GroupVersionKind, KindDefinition } from '../../registry/kind.ts';
import type { ResourceStore } from '../../registry/resource-store.ts';
import type { AdmissionAttributes, GroupVersionResource } from '../attributes.ts';
import { ruleMatches } from '../rules.ts';

/** A rule of matchConstraints or matchResources (NamedRuleWithOperations). */
export interface NamedRule {
  readonly operations?: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly apiVersions?: readonly string[];
  readonly resources?: readonly string[];
  readonly scope?: string;
  readonly resourceNames?: readonly string[];
}

export interface MatchResources {
  readonly namespaceSelector?: LabelSelectorObject | null;
  readonly objectSelector?: LabelSelectorObject | null;
  readonly resourceRules?: readonly NamedRule[] | null;
  readonly excludeResourceRules?: readonly NamedRule[] | null;
  readonly matchPolicy?: string;
}

/** A match: the resource and kind the request is seen as (another version's under Equivalent). */
export interface Match {
  readonly resource: GroupVersionResource;
  readonly kind: GroupVersionKind;
}

/** The namespace a request is about as upstream's attributes carry it: a namespace's own name for its updates and deletes. */
export function requestNamespace(a: AdmissionAttributes): string {
  if (a.namespace) return a.namespace;
  if (isNamespaceResource(a.resource) && a.operation !== 'CREATE') return a.name;
  return '';
}

function isNamespaceResource(r: GroupVersionResource): boolean {
  return r.group === '' && r.resource === 'namespaces';
}

function nameMatches(rule: NamedRule, a: AdmissionAttributes): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(a.name);
}

function objectLabels(obj: KubeObject | undefined): Record<string, string> | undefined {
  return obj?.metadata?.labels ?? undefined;
}

export class PolicyMatcher {
  readonly #kinds: () => readonly KindDefinition[];
  readonly #namespaceView: Informer;
  readonly #namespaces: ResourceStore;
  readonly #equivalents = new Map<string, readonly KindDefinition[]>();
  /** The served kinds the equivalents were worked out from (the surface's list is new on every change). */
  #equivalentsOf: readonly KindDefinition[] | undefined;

  /** `kinds`: the served kinds, or a function giving them as they are now (custom resources come and go). */
  constructor(kinds: readonly KindDefinition[] | (() => readonly KindDefinition[]), namespaceView: Informer, namespaces: ResourceStore) {
    this.#kinds = typeof kinds === 'function' ? kinds : () => kinds;
    this.#namespaceView = namespaceView;
    this.#namespaces = namespaces;
  }

  /** The namespace object, from the shared informer (the store when the informer does not know it yet). */
  async namespace(name: string): Promise<StoredKubeObject> {
    const known = this.#namespaceView.get('', name);
    if (known) return known;
    try {
      return (await this.#namespaces.get(systemContext(), '', name)).object;
    } catch (err) {
      // The lister's error names the resource in the singular, as upstream's does.
      if (err instanceof ApiError && err.code === 404) throw notFound({ group: '', resource: 'namespace' }, name);
      throw err;
    }
  }

  /**
   * Whether the criteria select the request, and as which resource and kind; throws (an ApiError)
   * where upstream's matcher returns an error: a namespace that cannot be found for a selector that
   * needs its labels, a selector that does not parse.
   */
  async matches(criteria: MatchResources, a: AdmissionAttributes): Promise<Match | undefined> {
    const namespace = requestNamespace(a);
    // The rules first: they are cheap, and selector errors count only where the rules match.
    const equivalent = criteria.matchPolicy === 'Equivalent';
    if (this.#rulesMatch(criteria.excludeResourceRules ?? [], equivalent, a, namespace)) return undefined;
    const rules = criteria.resourceRules ?? [];
    const match = rules.length === 0 ? { resource: a.resource, kind: a.kind } : this.#rulesMatch(rules, equivalent, a, namespace);
    if (!match) return undefined;
    let nsError: unknown;
    let nsMatches = true;
    try {
      const sync = this.#namespaceSelectorMatches(criteria.namespaceSelector, a, namespace);
      nsMatches = typeof sync === 'boolean' ? sync : await sync;
    } catch (err) {
      nsError = err;
      nsMatches = false;
    }
    if (!nsMatches && nsError === undefined) return undefined;
    let objError: unknown;
    let objMatches = true;
    try {
      objMatches = this.#objectSelectorMatches(criteria.objectSelector, a);
    } catch (err) {
      objError = err;
      objMatches = false;
    }
    if (!objMatches && objError === undefined) return undefined;
    if (nsError !== undefined) throw nsError;
    if (objError !== undefined) throw objError;
    return match;
  }

  #rulesMatch(rules: readonly NamedRule[], equivalent: boolean, a: AdmissionAttributes, namespace: string): Match | undefined {
    for (const rule of rules) {
      if (ruleMatches(rule, a, namespace, a.resource) && nameMatches(rule, a)) return { resource: a.resource, kind: a.kind };
    }
    if (!equivalent) return undefined;
    const others = this.equivalents(a.resource);
    if (others.length === 0) return undefined;
    for (const rule of rules) {
      for (const other of others) {
        const resource = { group: other.group, version: other.version, resource: other.plural };
        if (!ruleMatches(rule, a, namespace, resource)) continue;
        if (nameMatches(rule, a)) return { resource, kind: kindOf(other, a.subresource) };
      }
    }
    return undefined;
  }

  /** The kinds that serve the same stored objects as the request's resource under another group or version. */
  equivalents(resource: GroupVersionResource): readonly KindDefinition[] {
    const id = `${resource.group}/${resource.version}/${resource.resource}`;
    const kinds = this.#kinds();
    if (kinds !== this.#equivalentsOf) {
      this.#equivalents.clear();
      this.#equivalentsOf = kinds;
    }
    let found = this.#equivalents.get(id);
    if (!found) {
      const own = kinds.find((k) => k.group === resource.group && k.version === resource.version && k.plural === resource.resource);
      const key = own && storageKey(own);
      found = own ? kinds.filter((k) => k !== own && storageKey(k) === key) : [];
      this.#equivalents.set(id, found);
    }
    return found;
  }

  #namespaceSelectorMatches(selector: LabelSelectorObject | null | undefined, a: AdmissionAttributes, namespace: string): boolean | Promise<boolean> {
    // Cluster-scoped objects other than namespaces are never excluded by a namespace selector.
    if (namespace === '' && !isNamespaceResource(a.resource)) return true;
    const parsed = parseSelector(selector);
    if (parsed !== null && parsed.length === 0) return true;
    if (isNamespaceResource(a.resource) && a.subresource === '' && (a.operation === 'CREATE' || a.operation === 'UPDATE')) {
      // The namespace being written: its labels as they will be.
      return matchesLabels(parsed, objectLabels(a.object));
    }
    const known = this.#namespaceView.get('', namespace);
    if (known) return matchesLabels(parsed, objectLabels(known));
    return this.#namespaceFromStore(namespace).then((ns) => matchesLabels(parsed, objectLabels(ns)));
  }

  async #namespaceFromStore(name: string): Promise<StoredKubeObject> {
    return (await this.#namespaces.get(systemContext(), '', name)).object;
  }

  #objectSelectorMatches(selector: LabelSelectorObject | null | undefined, a: AdmissionAttributes): boolean {
    const parsed = parseSelector(selector);
    if (parsed !== null && parsed.length === 0) return true;
    const on = (obj: KubeObject | undefined) => obj !== undefined && matchesLabels(parsed, objectLabels(obj));
    return on(a.object) || on(a.oldObject);
  }
}

const parsedSelectors = new WeakMap<LabelSelectorObject, LabelSelector | null>();

/** A metav1.LabelSelector as a selector; null (a missing one) selects nothing. A bad one is a 500, as upstream's. */
function parseSelector(selector: LabelSelectorObject | null | undefined): LabelSelector | null {
  if (!selector) return null;
  const known = parsedSelectors.get(selector);
  if (known !== undefined) return known;
  try {
    const parsed = labelSelectorFromObject(selector);
    parsedSelectors.set(selector, parsed);
    return parsed;
  } catch (err) {
    throw new ApiError(500, 'InternalError', `Internal error occurred: ${err instanceof Error ? err.message : String(err)}`, { causes: [{ message: err instanceof Error ? err.message : String(err) }] });
  }
}

function storageKey(k: KindDefinition): string {
  return k.storage ? `${k.storage.group}/${k.storage.resource}` : `${k.group}/${k.plural}`;
}

/** The kind a kind's subresource is written as (a subresource with a kind of its own names it). */
function kindOf(k: KindDefinition, subresource: string): GroupVersionKind {
  const sub = subresource ? k.subresources.find((s) => s.name === subresource) : undefined;
  return sub?.kind ?? { group: k.group, version: k.version, kind: k.kind };
}
