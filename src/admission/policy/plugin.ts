/**
 * The ValidatingAdmissionPolicy admission plugin (validating phase), as upstream's dispatcher:
 * for each policy that matches the request and each of its bindings that does, each param the
 * binding selects is evaluated with a budget of its own; failed validations are acted on as the
 * binding's validationActions say (Deny refuses the request with the first denial's message and
 * status code, Warn adds a warning, Audit an audit annotation), audit annotations are published
 * under `<policy>/<key>`, and configuration errors follow the policy's failurePolicy.
 */
import type { Logger } from 'pino';
import { ApiError } from '../../api/errors.ts';
import type { KubeObject } from '../../api/types.ts';
import type { KindDefinition } from '../../registry/kind.ts';
import type { Informer } from '../../registry/informer.ts';
import type { ResourceStore } from '../../registry/resource-store.ts';
import type { Storage } from '../../storage/storage.ts';
import type { AdmissionAttributes, GroupVersionResource } from '../attributes.ts';
import { handlesOperations, type AdmissionPlugin } from '../plugin.ts';
import { authorizerFor } from '../cel-authorizer.ts';
import { toCel, type AuthorizerBinding } from './cel.ts';
import { isAsyncMapping } from '../webhook/matching.ts';
import { PolicyMatcher, requestNamespace, type Match, type MatchResources } from './matching.ts';
import { collectParams, ParamError, type ParamRef } from './params.ts';
import { admissionRequest, namespaceObject } from './request.ts';
import { PolicySource, type Binding, type Policy, type PolicyHook } from './source.ts';
import type { Decision } from './validator.ts';

export const PLUGIN_NAME = 'ValidatingAdmissionPolicy';

/** Resources no admission policy sees: the policies and bindings themselves, and the reviews (upstream's exclusions). */
const EXCLUDED: ReadonlySet<string> = new Set([
  'admissionregistration.k8s.io/validatingadmissionpolicies',
  'admissionregistration.k8s.io/validatingadmissionpolicybindings',
  'admissionregistration.k8s.io/mutatingadmissionpolicies',
  'admissionregistration.k8s.io/mutatingadmissionpolicybindings',
  'authentication.k8s.io/selfsubjectreviews',
  'authentication.k8s.io/tokenreviews',
  'authorization.k8s.io/localsubjectaccessreviews',
  'authorization.k8s.io/selfsubjectaccessreviews',
  'authorization.k8s.io/selfsubjectrulesreviews',
  'authorization.k8s.io/subjectaccessreviews',
]);

/** The audit annotation that records failed validations of bindings with the Audit action. */
export const VALIDATION_FAILURE_ANNOTATION = 'validation.policy.admission.k8s.io/validation_failure';
/** Published audit annotation values are cut to this many bytes. */
const MAX_AUDIT_ANNOTATION_VALUE_BYTES = 10 * 1024;

export interface ValidatingAdmissionPolicyDeps {
  readonly storage: Storage;
  readonly kinds: readonly KindDefinition[];
  /** The kinds served now (custom resources too); `kinds` when not given. */
  readonly servedKinds?: () => readonly KindDefinition[];
  readonly namespaceView: Informer;
  readonly namespaces: ResourceStore;
  readonly logger: Logger;
}

interface DeniedDecision {
  readonly policy: Policy;
  readonly binding?: Binding;
  readonly decision: Pick<Decision, 'message' | 'reason'>;
}

/** Upstream's reasonToCode. */
export function reasonToCode(reason: string): number {
  switch (reason) {
    case 'Forbidden':
      return 403;
    case 'Unauthorized':
      return 401;
    case 'RequestEntityTooLarge':
      return 413;
    default:
      return 422;
  }
}

/** Go's encoding/json string output (HTML characters escaped as it escapes them). */
function goJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Cuts a string to at most `max` UTF-8 bytes, as Go's byte slicing does. */
function cutBytes(s: string, max: number): string {
  const bytes = Buffer.from(s, 'utf8');
  return bytes.length <= max ? s : bytes.subarray(0, max).toString('utf8');
}

/** The name upstream's admission errors give the object: the request's, else the object's, else its generateName. */
function errorName(a: AdmissionAttributes): string {
  if (a.name) return a.name;
  const meta = a.object?.metadata;
  if (meta?.name) return meta.name;
  if (meta?.generateName) return meta.generateName;
  return 'Unknown';
}

/** Records an audit annotation unless the key already has another value (upstream's attributes never overwrite one). */
function addAnnotation(a: AdmissionAttributes, key: string, value: string): void {
  const annotations = a.context.auditAnnotations;
  if (!annotations) return;
  if (Object.hasOwn(annotations, key) && annotations[key] !== value) return;
  annotations[key] = value;
}

/** One dispatch: the denials so far, and what its evaluations share (made when first needed). */
class DispatchRun {
  readonly denied: DeniedDecision[] = [];
  #state: RequestState | undefined;
  #requests: Map<string, unknown> | undefined;

  constructor(
    readonly attributes: AdmissionAttributes,
    readonly plugin: ValidatingAdmissionPolicy,
  ) {}

  /** A configuration error of a policy (or of one of its bindings), acted on as its failurePolicy says. */
  configError(message: string, hook: PolicyHook, binding?: Binding): void {
    if (hook.compiled.failurePolicy === 'Ignore') return;
    this.denied.push({ policy: hook.policy, binding, decision: { message: binding ? `failed to configure binding: ${message}` : `failed to configure policy: ${message}`, reason: '' } });
  }

  state(): RequestState {
    return (this.#state ??= new RequestState(this.attributes, this.plugin));
  }

  /** The `request` variable for a resource and matched kind (built once per pair). */
  requestFor(resource: GroupVersionResource, match: Match): unknown {
    const key = `${resource.group}/${resource.version}/${resource.resource}|${match.kind.group}/${match.kind.version}/${match.kind.kind}`;
    this.#requests ??= new Map();
    let r = this.#requests.get(key);
    if (r === undefined) this.#requests.set(key, (r = toCel(admissionRequest(this.attributes, resource, match.kind))));
    return r;
  }
}

/** What one request's evaluation shares across policies: objects in CEL form per matched kind, authorizer answers, the namespace. */
class RequestState {
  readonly authorizer: AuthorizerBinding;
  readonly #versions = new Map<string, { object: unknown; oldObject: unknown } | Promise<{ object: unknown; oldObject: unknown }>>();
  #namespace?: Promise<KubeObject | undefined>;

  constructor(
    readonly attributes: AdmissionAttributes,
    readonly plugin: ValidatingAdmissionPolicy,
  ) {
    this.authorizer = authorizerFor(attributes, requestNamespace(attributes));
  }

  /**
   * The object and old object as the matched kind (converted when an equivalent resource matched);
   * a promise when the conversion has to wait (a custom resource's conversion webhook). A failed
   * conversion is remembered too: every binding that needs it reports it.
   */
  versioned(match: Match): { object: unknown; oldObject: unknown } | Promise<{ object: unknown; oldObject: unknown }> {
    const key = `${match.kind.group}/${match.kind.version}/${match.kind.kind}`;
    let v = this.#versions.get(key);
    if (!v) {
      const a = this.attributes;
      const convert = this.plugin.converter(a, match);
      const object = a.object === undefined ? null : convert(a.object);
      const oldObject = a.oldObject === undefined ? null : convert(a.oldObject);
      if (object instanceof Promise || oldObject instanceof Promise) {
        v = Promise.all([object, oldObject]).then(([o, old]) => ({ object: o === null ? null : toCel(o), oldObject: old === null ? null : toCel(old) }));
        // Rejections are seen by each caller that awaits it.
        v.catch(() => undefined);
      } else {
        v = { object: object === null ? null : toCel(object), oldObject: oldObject === null ? null : toCel(oldObject) };
      }
      this.#versions.set(key, v);
    }
    return v;
  }

  /** The namespace the request is in (none for cluster-scoped requests and namespaces themselves). */
  namespace(): Promise<KubeObject | undefined> {
    const a = this.attributes;
    const name = a.kind.group === '' && a.kind.version === 'v1' && a.kind.kind === 'Namespace' ? '' : requestNamespace(a);
    return (this.#namespace ??= name ? this.plugin.matcher.namespace(name) : Promise.resolve(undefined));
  }
}

export class ValidatingAdmissionPolicy implements AdmissionPlugin {
  readonly name = PLUGIN_NAME;
  readonly handles = handlesOperations('CREATE', 'UPDATE', 'DELETE', 'CONNECT');
  readonly source: PolicySource;
  readonly matcher: PolicyMatcher;
  readonly #kinds: () => readonly KindDefinition[];

  constructor(deps: ValidatingAdmissionPolicyDeps) {
    const kinds = deps.kinds;
    this.#kinds = deps.servedKinds ?? (() => kinds);
    this.source = new PolicySource({ storage: deps.storage, kinds: deps.kinds, servedKinds: this.#kinds, logger: deps.logger.child({ plugin: PLUGIN_NAME }) });
    this.matcher = new PolicyMatcher(this.#kinds, deps.namespaceView, deps.namespaces);
  }

  start(): Promise<void> {
    return this.source.start();
  }

  stop(): void {
    this.source.stop();
  }

  validate(a: AdmissionAttributes): Promise<void> | void {
    if (EXCLUDED.has(`${a.resource.group}/${a.resource.resource}`)) return;
    const hooks = this.source.hooks();
    if (hooks.length === 0) return;
    return this.#dispatch(a, hooks);
  }

  /**
   * How an object of the request's kind becomes one of the matched kind (the same kind: as it is).
   * Kinds whose storage converts asynchronously (custom resources: a conversion webhook) convert
   * through it and answer a promise; built-in kinds convert synchronously.
   */
  converter(a: AdmissionAttributes, match: Match): (obj: KubeObject) => KubeObject | Promise<KubeObject> {
    const same = match.kind.group === a.kind.group && match.kind.version === a.kind.version && match.kind.kind === a.kind.kind;
    if (same) return (obj) => obj;
    const served = this.#kinds();
    const from = served.find((k) => k.group === a.resource.group && k.version === a.resource.version && k.plural === a.resource.resource);
    const to = served.find((k) => k.group === match.resource.group && k.version === match.resource.version && k.plural === match.resource.resource);
    if (isAsyncMapping(from?.storage) || isAsyncMapping(to?.storage)) {
      return async (obj) => {
        const fromStorage = from?.storage;
        const toStorage = to?.storage;
        const stored = !fromStorage ? obj : isAsyncMapping(fromStorage) ? await fromStorage.toStorageAsync(obj) : fromStorage.toStorage(obj);
        return !toStorage ? stored : isAsyncMapping(toStorage) ? (await toStorage.fromStorageAsync([stored]))[0]! : toStorage.fromStorage(stored);
      };
    }
    return (obj) => {
      const stored = from?.storage ? from.storage.toStorage(obj) : obj;
      return to?.storage ? to.storage.fromStorage(stored) : stored;
    };
  }

  async #dispatch(a: AdmissionAttributes, hooks: readonly PolicyHook[]): Promise<void> {
    const run = new DispatchRun(a, this);
    const denied = run.denied;
    for (const hook of hooks) {
      const constraints = (hook.policy.spec?.matchConstraints ?? null) as MatchResources | null;
      let match: Match | undefined;
      try {
        if (!constraints) throw new Error('policy contained no match constraints, a required field');
        match = await this.matcher.matches(constraints, a);
      } catch (err) {
        run.configError(errorText(err), hook);
        continue;
      }
      if (!match) continue;
      if (hook.configurationError) {
        run.configError(hook.configurationError, hook);
        continue;
      }
      const annotations = new Map<string, string[]>();
      for (const binding of hook.bindings) {
        const matchResources = (binding.spec?.matchResources ?? null) as MatchResources | null;
        if (matchResources) {
          try {
            if (!(await this.matcher.matches(matchResources, a))) continue;
          } catch (err) {
            run.configError(errorText(err), hook, binding);
            continue;
          }
        }
        let params: (KubeObject | null)[];
        try {
          params = await collectParams(hook.policy.spec?.paramKind, hook.params, (binding.spec?.paramRef ?? null) as ParamRef | null, requestNamespace(a));
        } catch (err) {
          if (!(err instanceof ParamError)) throw err;
          run.configError(err.message, hook, binding);
          continue;
        }
        if (params.length === 0) continue;
        let versioned: { object: unknown; oldObject: unknown };
        try {
          versioned = await run.state().versioned(match);
        } catch (err) {
          run.configError(`failed to convert object version: ${errorText(err)}`, hook, binding);
          continue;
        }
        const ns = await run.state().namespace();
        const nsObject = ns ? shared(ns, 'namespaceObject', () => toCel(namespaceObject(ns))) : null;
        const actions = binding.spec?.validationActions ?? [];
        for (const param of params) {
          const result = await hook.compiled.validate({
            object: versioned.object,
            oldObject: versioned.oldObject,
            params: param === null ? null : toCel(param),
            request: run.requestFor(match.resource, match),
            matchConditionRequest: run.requestFor(a.resource, match),
            namespaceObject: nsObject,
            namespaceForAudit: () => (ns ? shared(ns, 'namespace', () => toCel(ns)) : null),
            authorizer: run.state().authorizer,
          });
          result.decisions.forEach((decision, index) => {
            if (decision.action !== 'deny') return;
            for (const action of actions) {
              if (action === 'Deny') denied.push({ policy: hook.policy, binding, decision });
              else if (action === 'Audit') {
                const value = [{ message: decision.message, policy: binding.spec?.policyName ?? '', binding: binding.metadata.name, expressionIndex: index, validationActions: actions }];
                addAnnotation(a, VALIDATION_FAILURE_ANNOTATION, goJson(value));
              } else if (action === 'Warn') {
                a.context.warnings.push(`Validation failed for ValidatingAdmissionPolicy '${hook.policy.metadata.name}' with binding '${binding.metadata.name}': ${decision.message}`);
              }
            }
          });
          for (const annotation of result.auditAnnotations) {
            if (annotation.action === 'publish') {
              const values = annotations.get(annotation.key) ?? [];
              const value = cutBytes(annotation.value, MAX_AUDIT_ANNOTATION_VALUE_BYTES);
              if (!values.includes(value)) values.push(value);
              annotations.set(annotation.key, values);
            } else if (annotation.action === 'error') {
              denied.push({ policy: hook.policy, binding, decision: { message: annotation.error, reason: '' } });
            }
          }
        }
      }
      for (const [key, values] of annotations) addAnnotation(a, `${hook.policy.metadata.name}/${key}`, values.join(', '));
    }

    const first = denied[0];
    if (!first) return;
    const message = first.binding
      ? `ValidatingAdmissionPolicy '${first.policy.metadata.name}' with binding '${first.binding.metadata.name}' denied request: ${first.decision.message}`
      : `ValidatingAdmissionPolicy '${first.policy.metadata.name}' denied request: ${first.decision.message}`;
    const reason = first.decision.reason || 'Invalid';
    const name = errorName(a);
    const resource = a.resource.group ? `${a.resource.resource}.${a.resource.group}` : a.resource.resource;
    throw new ApiError(reasonToCode(reason), reason, `${resource} "${name}" is forbidden: ${message}`, {
      name,
      group: a.resource.group,
      kind: a.resource.resource,
      causes: [{ message }],
    });
  }
}

/**
 * Forms of objects the informers hold (the reduced namespace), kept while the object is: informer
 * objects are never changed in place, a change brings a new object.
 */
const celForms = new WeakMap<object, Map<string, unknown>>();
function shared(obj: object, form: string, make: () => unknown): unknown {
  let forms = celForms.get(obj);
  if (!forms) celForms.set(obj, (forms = new Map()));
  if (!forms.has(form)) forms.set(form, make());
  return forms.get(form);
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
