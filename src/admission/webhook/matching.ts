/**
 * Whether a webhook is called for a request (upstream's ShouldCallHook): its namespaceSelector (on
 * the namespace's labels; cluster-scoped objects other than namespaces always match), its
 * objectSelector (on the new or the old object), its rules (operations, groups, versions,
 * resources with subresources and `*`, scope) with matchPolicy Equivalent trying the other
 * resources stored as the same one, and last its matchConditions (CEL).
 */
import { ApiError, notFound } from '../../api/errors.ts';
import { systemContext } from '../../api/request-context.ts';
import type { KubeObject, StoredKubeObject } from '../../api/types.ts';
import { matchesLabels } from '../../api/selectors/label-selector.ts';
import type { Informer } from '../../registry/informer.ts';
import { apiVersionOf, subresourceOf, type GroupVersionKind, type KindDefinition, type StorageMapping } from '../../registry/kind.ts';
import type { ResourceStore } from '../../registry/resource-store.ts';
import { storageRefOf, type AsyncStorageMapping } from '../../registry/storage-view.ts';
import { cloneJson } from '../../api/types.ts';
import type { AdmissionAttributes, GroupVersionResource } from '../attributes.ts';
import { authorizerFor } from '../cel-authorizer.ts';
import { ruleMatches } from '../rules.ts';
import type { AuthorizerBinding } from './cel.ts';
import { aggregateText, forbiddenOf, internalErrorOf } from './errors.ts';
import type { WebhookAccessor } from './source.ts';

/** A request as the webhook plugins see it. */
export interface WebhookRequest {
  readonly attributes: AdmissionAttributes;
  /** The kind the request's endpoint serves (undefined for a resource this server does not list). */
  readonly kind: KindDefinition | undefined;
  /**
   * The namespace as upstream's attributes carry it: a Namespace's own requests (but its create)
   * carry its name, since they are addressed as /api/v1/namespaces/<name>.
   */
  readonly namespace: string;
  /** The `authorizer` of match conditions (made when first asked for, then shared by the request's webhooks). */
  authorizer(): AuthorizerBinding;
}

/** A webhook to call, and the resource and kind it is called for (an equivalent one under matchPolicy Equivalent). */
export interface Invocation {
  readonly hook: WebhookAccessor;
  readonly resource: GroupVersionResource;
  readonly subresource: string;
  readonly kind: GroupVersionKind;
  /** The kind definition the objects are converted to (undefined when it is the request's own or unknown). */
  readonly target: KindDefinition | undefined;
}

/** The request's objects in the form of one kind. */
export interface VersionedObjects {
  readonly object: KubeObject | undefined;
  readonly oldObject: KubeObject | undefined;
}

/** The request as the plugins see it (see WebhookRequest.namespace). */
export function webhookRequest(a: AdmissionAttributes, kind: KindDefinition | undefined): WebhookRequest {
  const isNamespace = a.resource.group === '' && a.resource.resource === 'namespaces';
  const namespace = isNamespace && a.operation !== 'CREATE' ? a.name : a.namespace;
  let authorizer: AuthorizerBinding | undefined;
  return { attributes: a, kind, namespace, authorizer: () => (authorizer ??= authorizerFor(a, namespace)) };
}

/** Whether a kind's storage mapping converts asynchronously (see AsyncStorageMapping). */
export function isAsyncMapping(m: StorageMapping | undefined): m is AsyncStorageMapping {
  return !!m && typeof (m as Partial<AsyncStorageMapping>).toStorageAsync === 'function' && typeof (m as Partial<AsyncStorageMapping>).fromStorageAsync === 'function';
}

/**
 * Converts an object from one kind's form to another's through their common stored form. Kinds
 * whose storage converts asynchronously (custom resources, whose conversion may be a webhook) are
 * converted through it and answer a promise; built-in kinds convert synchronously, as before.
 * Throws (or rejects) with the converter's error.
 */
export function convertObject(obj: KubeObject, from: KindDefinition, to: KindDefinition): KubeObject | Promise<KubeObject> {
  if (from === to) return obj;
  const finish = (out: KubeObject): KubeObject => {
    out.apiVersion = apiVersionOf(to);
    out.kind = to.kind;
    return out;
  };
  if (isAsyncMapping(from.storage) || isAsyncMapping(to.storage)) {
    return (async () => {
      const stored = !from.storage ? cloneJson(obj) : isAsyncMapping(from.storage) ? await from.storage.toStorageAsync(obj) : from.storage.toStorage(obj);
      const out = !to.storage ? stored : isAsyncMapping(to.storage) ? (await to.storage.fromStorageAsync([stored]))[0]! : to.storage.fromStorage(stored);
      return finish(out);
    })();
  }
  const stored = from.storage ? from.storage.toStorage(obj) : cloneJson(obj);
  return finish(to.storage ? to.storage.fromStorage(stored) : stored);
}

/**
 * The request's objects in the invocation's kind (the request's own form when no conversion is
 * needed); a promise when a conversion has to wait (see convertObject).
 */
export function versionedObjects(req: WebhookRequest, inv: Invocation, objects: VersionedObjects): VersionedObjects | Promise<VersionedObjects> {
  const from = req.kind;
  const to = inv.target;
  if (!from || !to || from === to) return objects;
  const object = objects.object && convertObject(objects.object, from, to);
  const oldObject = objects.oldObject && convertObject(objects.oldObject, from, to);
  if (object instanceof Promise || oldObject instanceof Promise) {
    return Promise.all([object, oldObject]).then(([o, old]) => ({ object: o, oldObject: old }));
  }
  return { object, oldObject };
}

/**
 * The AdmissionRequest's fields up to userInfo (what both the review sent and CEL's `request` hold),
 * naming the invocation's resource and kind and the request's own.
 */
export function requestHead(req: WebhookRequest, inv: Invocation): Record<string, unknown> {
  const a = req.attributes;
  return {
    kind: { group: inv.kind.group, version: inv.kind.version, kind: inv.kind.kind },
    resource: { group: inv.resource.group, version: inv.resource.version, resource: inv.resource.resource },
    ...(inv.subresource ? { subResource: inv.subresource } : {}),
    requestKind: { group: a.kind.group, version: a.kind.version, kind: a.kind.kind },
    requestResource: { group: a.resource.group, version: a.resource.version, resource: a.resource.resource },
    ...(a.subresource ? { requestSubResource: a.subresource } : {}),
    ...(a.name ? { name: a.name } : {}),
    ...(req.namespace ? { namespace: req.namespace } : {}),
    operation: a.operation,
    userInfo: userInfoOf(a),
  };
}

/** The request for CEL (`request`): the AdmissionRequest webhooks get, without uid and objects. */
export function celRequest(req: WebhookRequest, inv: Invocation): Record<string, unknown> {
  const a = req.attributes;
  return { ...requestHead(req, inv), dryRun: a.dryRun, options: a.options ?? null };
}

/** authentication.k8s.io/v1 UserInfo of the requester (empty fields left out, as Go's omitempty does). */
export function userInfoOf(a: AdmissionAttributes): Record<string, unknown> {
  const u = a.user;
  return {
    ...(u.name ? { username: u.name } : {}),
    ...(u.uid ? { uid: u.uid } : {}),
    ...(u.groups.length ? { groups: [...u.groups] } : {}),
    ...(u.extra && Object.keys(u.extra).length ? { extra: Object.fromEntries(Object.entries(u.extra).map(([k, v]) => [k, [...v]])) } : {}),
  };
}

/** Decides, for one plugin, which webhooks a request calls. */
export class WebhookMatcher {
  readonly #byResource = new Map<string, KindDefinition>();
  readonly #equivalents = new Map<string, KindDefinition[]>();
  readonly #namespaces: ResourceStore;
  readonly #namespaceView: Informer;
  readonly #kinds: () => readonly KindDefinition[];
  /** The served kinds the maps were built from (the surface's list is new on every change). */
  #indexed: readonly KindDefinition[] | undefined;

  /** `kinds`: the served kinds, or a function giving them as they are now (custom resources come and go). */
  constructor(kinds: readonly KindDefinition[] | (() => readonly KindDefinition[]), namespaces: ResourceStore, namespaceView: Informer) {
    this.#namespaces = namespaces;
    this.#namespaceView = namespaceView;
    this.#kinds = typeof kinds === 'function' ? kinds : () => kinds;
  }

  /** Indexes the served kinds again when they changed. */
  #index(): void {
    const kinds = this.#kinds();
    if (kinds === this.#indexed) return;
    this.#indexed = kinds;
    this.#byResource.clear();
    this.#equivalents.clear();
    for (const kind of kinds) {
      this.#byResource.set(gvrKey(kind.group, kind.version, kind.plural), kind);
      const key = JSON.stringify(storageRefOf(kind));
      const list = this.#equivalents.get(key) ?? [];
      list.push(kind);
      this.#equivalents.set(key, list);
    }
  }

  /** The kind a request's resource is served as. */
  kindFor(resource: GroupVersionResource): KindDefinition | undefined {
    this.#index();
    return this.#byResource.get(gvrKey(resource.group, resource.version, resource.resource));
  }

  /**
   * The invocation of `hook` for the request, or undefined when it does not apply. Selector and
   * condition failures throw (a missing namespace 404, the rest 500, a condition error 403 under
   * failurePolicy Fail); the selectors' errors count only for a webhook whose rules match.
   * `objects` are the request's objects now (a mutating webhook may have changed them).
   */
  async shouldCallHook(hook: WebhookAccessor, req: WebhookRequest, objects: VersionedObjects): Promise<Invocation | undefined> {
    let namespaceError: ApiError | undefined;
    try {
      if (!(await this.#matchNamespace(hook, req, objects))) return undefined;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      namespaceError = err;
    }
    const objectMatch = this.#matchObject(hook, objects);
    if (objectMatch === false) return undefined;

    const inv = this.#matchRules(hook, req);
    if (!inv) return undefined;
    if (namespaceError) throw namespaceError;
    if (objectMatch instanceof ApiError) throw objectMatch;

    const conditions = hook.conditions();
    if (!conditions) return inv;
    let versioned: VersionedObjects;
    try {
      versioned = await versionedObjects(req, inv, objects);
    } catch (err) {
      throw internalErrorOf((err as Error).message);
    }
    const outcome = await conditions.evaluate({ object: versioned.object ?? null, oldObject: versioned.oldObject ?? null, request: celRequest(req, inv), authorizer: req.authorizer() });
    const a = req.attributes;
    const refuse = (text: string) => forbiddenOf(a.resource.group, a.resource.resource, a.name, text);
    if ('fatal' in outcome) {
      if (hook.hook.failurePolicy === 'Ignore') return undefined;
      throw refuse(outcome.fatal);
    }
    const errors: string[] = [];
    for (const r of outcome.results) {
      if ('error' in r) errors.push(r.error);
      else if (r.value === false) return undefined;
    }
    if (errors.length > 0) {
      // Errors with no false condition: the failure policy decides (Ignore skips the webhook).
      if (hook.hook.failurePolicy === 'Ignore') return undefined;
      throw refuse(aggregateText(errors));
    }
    return inv;
  }

  async #matchNamespace(hook: WebhookAccessor, req: WebhookRequest, objects: VersionedObjects): Promise<boolean> {
    const a = req.attributes;
    if (req.namespace === '' && a.resource.resource !== 'namespaces') return true;
    const parsed = hook.namespaceSelector();
    if ('error' in parsed) throw internalErrorOf(parsed.error);
    if (parsed.selector.length === 0) return true;
    let labels: Record<string, string> | undefined;
    if (a.resource.resource === 'namespaces' && a.subresource === '' && (a.operation === 'CREATE' || a.operation === 'UPDATE')) {
      labels = objects.object?.metadata?.labels;
    } else {
      labels = (await this.#namespace(req.namespace)).metadata.labels;
    }
    return matchesLabels(parsed.selector, labels ?? {});
  }

  async #namespace(name: string): Promise<StoredKubeObject> {
    const known = this.#namespaceView.get('', name);
    if (known) return known;
    try {
      return (await this.#namespaces.get(systemContext(), '', name)).object;
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) throw notFound({ group: '', resource: 'namespaces' }, name);
      if (err instanceof ApiError) throw internalErrorOf(err.message);
      throw err;
    }
  }

  /** true or false, or the selector's parse error. */
  #matchObject(hook: WebhookAccessor, objects: VersionedObjects): boolean | ApiError {
    const parsed = hook.objectSelector();
    if ('error' in parsed) return internalErrorOf(parsed.error);
    if (parsed.selector.length === 0) return true;
    const matches = (o: KubeObject | undefined) => !!o && matchesLabels(parsed.selector, o.metadata?.labels ?? {});
    return matches(objects.object) || matches(objects.oldObject);
  }

  #matchRules(hook: WebhookAccessor, req: WebhookRequest): Invocation | undefined {
    const a = req.attributes;
    const rules = hook.hook.rules ?? [];
    for (const rule of rules) {
      if (rule && ruleMatches(rule, a, req.namespace, a.resource)) {
        return { hook, resource: a.resource, subresource: a.subresource, kind: a.kind, target: req.kind };
      }
    }
    if (hook.hook.matchPolicy !== 'Equivalent' || !req.kind) return undefined;
    // A subresource served as another kind (scale) has no equivalent form to convert to.
    const sub = a.subresource ? subresourceOf(req.kind, a.subresource) : undefined;
    if (sub?.kind) return undefined;
    this.#index();
    const equivalents = this.#equivalents.get(JSON.stringify(storageRefOf(req.kind))) ?? [];
    for (const rule of rules) {
      if (!rule) continue;
      for (const kind of equivalents) {
        if (kind === req.kind) continue;
        const resource = { group: kind.group, version: kind.version, resource: kind.plural };
        if (ruleMatches(rule, req.attributes, req.namespace, resource)) {
          return { hook, resource, subresource: a.subresource, kind: { group: kind.group, version: kind.version, kind: kind.kind }, target: kind };
        }
      }
    }
    return undefined;
  }
}

function gvrKey(group: string, version: string, resource: string): string {
  return `${group}/${version}/${resource}`;
}
