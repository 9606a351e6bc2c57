/**
 * The MutatingAdmissionWebhook plugin (mutating phase): calls the matching webhooks one after the
 * other, in configuration-name order, and applies each one's JSONPatch to the object before the
 * next is asked. A webhook with reinvocationPolicy IfNeeded is called once more when a later
 * webhook changed the object (upstream reinvokes the whole mutating chain; here the second round
 * covers the webhooks, the last mutating plugin upstream runs).
 */
import type { KubeObject } from '../../api/types.ts';
import { canonicalJson } from '../../registry/system-fields.ts';
import { dropNullFields } from '../../registry/null-fields.ts';
import { removeUnknownFields } from '../../registry/field-validation.ts';
import { findTypeError } from '../../registry/type-check.ts';
import type { KindDefinition } from '../../registry/kind.ts';
import type { AdmissionAttributes } from '../attributes.ts';
import type { AdmissionDeps } from '../index.ts';
import type { AdmissionPlugin } from '../plugin.ts';
import { CallingWebhookError, internalErrorOf } from './errors.ts';
import { applyPatch, decodePatch, PatchError } from './json-patch.ts';
import { convertObject, versionedObjects, type Invocation, type VersionedObjects, type WebhookRequest } from './matching.ts';
import type { AdmissionResponse } from './review.ts';
import { GenericWebhook } from './webhook.ts';
import { goQuote } from '../../api/go/quote.ts';

const MUTATION_PREFIX = 'mutation.webhook.admission.k8s.io/';
const FAILED_OPEN_PREFIX = 'failed-open.mutation.webhook.admission.k8s.io/';

/** Which webhooks a second round calls (upstream's webhookReinvokeContext). */
interface Reinvocation {
  /** IfNeeded webhooks called since the object last changed. */
  readonly previouslyInvoked: Set<string>;
  /** Webhooks the second round calls again. */
  readonly reinvoke: Set<string>;
  /** A webhook changed the object: a second round runs. */
  shouldReinvoke: boolean;
}

export class MutatingAdmissionWebhook extends GenericWebhook implements AdmissionPlugin {
  readonly name = 'MutatingAdmissionWebhook';

  constructor(deps: AdmissionDeps) {
    super(deps, 'MutatingWebhookConfiguration', true);
  }

  admit(a: AdmissionAttributes): void | Promise<void> {
    // Without configurations the request passes without a promise.
    if (this.webhooksFor(a).length === 0) return;
    return this.#dispatch(a);
  }

  async #dispatch(a: AdmissionAttributes): Promise<void> {
    const req = this.request(a);
    const state: Reinvocation = { previouslyInvoked: new Set(), reinvoke: new Set(), shouldReinvoke: false };
    const original = a.object;
    let current = original;
    current = await this.#round(req, 0, state, current);
    if (state.shouldReinvoke) current = await this.#round(req, 1, state, current);
    if (original && current && current !== original) replaceContents(original, current);
  }

  /** One pass over the webhooks; returns the object as they left it (in the request's kind). */
  async #round(req: WebhookRequest, round: 0 | 1, state: Reinvocation, start: KubeObject | undefined): Promise<KubeObject | undefined> {
    const a = req.attributes;
    let current = start;
    const hooks = this.webhooksFor(a);
    for (let i = 0; i < hooks.length; i++) {
      const accessor = hooks[i]!;
      const inv = await this.matcher.shouldCallHook(accessor, req, { object: current, oldObject: a.oldObject });
      if (!inv) continue;
      // A second round never calls a webhook for the first time.
      if (round === 1 && !state.reinvoke.has(accessor.uid)) continue;
      const hook = accessor.hook;
      let changed = false;
      let failure: unknown;
      let versioned: VersionedObjects;
      try {
        versioned = versionedObjects(req, inv, { object: current, oldObject: a.oldObject });
      } catch (err) {
        throw internalErrorOf((err as Error).message);
      }
      try {
        const response = await this.callHook(req, inv, versioned);
        const patched = this.#patch(req, inv, versioned.object, response);
        if (patched) {
          changed = canonicalJson(patched) !== canonicalJson(versioned.object);
          current = inv.target && req.kind && inv.target !== req.kind ? convertObject(patched, inv.target, req.kind) : patched;
        }
      } catch (err) {
        failure = err;
      }
      this.annotate(a, `${MUTATION_PREFIX}round_${round}_index_${i}`, JSON.stringify({ configuration: accessor.configurationName, webhook: accessor.name, mutated: changed }));
      if (changed) {
        // Every IfNeeded webhook called before this change is called again in a second round.
        for (const uid of state.previouslyInvoked) state.reinvoke.add(uid);
        state.previouslyInvoked.clear();
        state.shouldReinvoke = true;
      }
      if (hook.reinvocationPolicy === 'IfNeeded') state.previouslyInvoked.add(accessor.uid);
      if (failure === undefined) continue;
      if (failure instanceof CallingWebhookError) {
        if (hook.failurePolicy === 'Ignore') {
          this.failedOpen(accessor.name, failure);
          this.annotate(a, `${FAILED_OPEN_PREFIX}round_${round}_index_${i}`, accessor.name);
          continue;
        }
        this.failedClosed(accessor.name, failure);
        throw internalErrorOf(failure.message);
      }
      throw failure;
    }
    return current;
  }

  /**
   * The object after the response's patch, defaulted and decoded as the kind decodes it, or
   * undefined when the response has none (or an empty one).
   */
  #patch(req: WebhookRequest, inv: Invocation, object: KubeObject | undefined, response: AdmissionResponse): KubeObject | undefined {
    const name = inv.hook.name;
    if (!response.patch || response.patch.length === 0) return undefined;
    let operations;
    try {
      operations = decodePatch(response.patch);
    } catch (err) {
      throw new CallingWebhookError(name, `received undecodable patch in webhook response: ${(err as Error).message}`);
    }
    if (operations.length === 0) return undefined;
    if (!object) throw internalErrorOf(`admission webhook ${goQuote(name)} attempted to modify the object, which is not supported for this operation`);
    if (response.patchType !== 'JSONPatch') throw new CallingWebhookError(name, `unsupported patch type ${goQuote(response.patchType)}`);
    let patched: KubeObject;
    try {
      patched = applyPatch(object, operations);
    } catch (err) {
      if (err instanceof PatchError) throw internalErrorOf(err.message);
      throw err;
    }
    if (!patched || typeof patched !== 'object' || Array.isArray(patched)) throw internalErrorOf('json: cannot unmarshal non-object into Go value of the object');
    const kind: KindDefinition | undefined = inv.target ?? req.kind;
    if (kind) {
      const typeError = findTypeError(kind.schema, patched);
      if (typeError) throw internalErrorOf(typeError);
      // As the typed decoding after a patch drops fields the kind does not have, and defaults the rest.
      removeUnknownFields(kind.schema, patched);
      dropNullFields(kind.schema, patched);
      kind.strategy.default?.(req.attributes.context, patched);
    }
    return patched;
  }
}

/**
 * Puts the mutated object's contents into the request's own object. Its metadata object stays the
 * same one (the store holds it across admission), and managedFields keep their reference when unchanged.
 */
function replaceContents(target: KubeObject, source: KubeObject): void {
  const meta = target.metadata;
  const managed = meta?.managedFields;
  for (const key of Object.keys(target)) delete target[key];
  Object.assign(target, source);
  if (meta && source.metadata) {
    for (const key of Object.keys(meta)) delete meta[key];
    Object.assign(meta, source.metadata);
    target.metadata = meta;
  }
  if (managed && target.metadata && canonicalJson(target.metadata.managedFields ?? null) === canonicalJson(managed)) target.metadata.managedFields = managed;
}
