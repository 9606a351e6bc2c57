/**
 * The MutatingAdmissionWebhook plugin (mutating phase): calls the matching webhooks one after the
 * other, in configuration-name order, and applies each one's JSONPatch to the object before the
 * next is asked.
 *
 * Reinvocation (upstream's mutating dispatcher with its webhookReinvokeContext): when a webhook's
 * patch changes the object, every webhook with reinvocationPolicy IfNeeded called before it (since
 * the last change) is marked to be called again, and the request's reinvocation context asks the
 * chain for a second round of the whole mutating phase (src/admission/chain.ts). In that round a
 * webhook is called only if it is marked (never for the first time); and if the in-tree plugins,
 * run again before this one, changed the object since the webhooks last left it, the IfNeeded
 * webhooks called after the last webhook change are marked as well.
 */
import type { KubeObject } from '../../api/types.ts';
import { canonicalJson } from '../../registry/system-fields.ts';
import { dropNullFields } from '../../registry/null-fields.ts';
import { removeUnknownFields } from '../../registry/field-validation.ts';
import { findTypeError } from '../../registry/type-check.ts';
import type { KindDefinition } from '../../registry/kind.ts';
import { reinvocationContextOf, type AdmissionAttributes, type ReinvocationContext } from '../attributes.ts';
import type { AdmissionDeps } from '../index.ts';
import type { AdmissionPlugin } from '../plugin.ts';
import { CallingWebhookError, internalErrorOf } from './errors.ts';
import { applyPatch, decodePatch, PatchError } from './json-patch.ts';
import { convertObject, versionedObjects, type Invocation, type VersionedObjects, type WebhookRequest } from './matching.ts';
import { FAILED_OPEN_PREFIX, jsonPatchAnnotationValue, MUTATION_PREFIX, mutationAnnotationValue, PATCH_PREFIX } from './mutation-annotations.ts';
import type { AdmissionResponse } from './review.ts';
import type { WebhookAccessor } from './source.ts';
import { GenericWebhook } from './webhook.ts';
import { goQuote } from '../../api/go/quote.ts';

/** What the plugin remembers between the two rounds of one request (upstream's webhookReinvokeContext). */
class WebhookReinvocation {
  /** IfNeeded webhooks called since the object last changed. */
  previouslyInvoked = new Set<string>();
  /** Webhooks the second round calls again. */
  readonly reinvoke = new Set<string>();
  /**
   * The object as the webhooks left it in the first round (canonical JSON), kept only when there
   * are webhooks a later change would mark: the second round compares it with what it is given.
   */
  lastOutput: string | undefined;

  /** The object changed: the IfNeeded webhooks that saw it before are called again. */
  requireReinvokingPreviouslyInvoked(): void {
    if (this.previouslyInvoked.size === 0) return;
    for (const uid of this.previouslyInvoked) this.reinvoke.add(uid);
    this.previouslyInvoked = new Set();
  }
}

/** A patch applied: the object after it (decoded as the kind, defaulted), and whether it differs. */
interface Patched {
  readonly object: KubeObject;
  readonly changed: boolean;
}

export class MutatingAdmissionWebhook extends GenericWebhook implements AdmissionPlugin {
  readonly name = 'MutatingAdmissionWebhook';

  constructor(deps: AdmissionDeps) {
    super(deps, 'MutatingWebhookConfiguration', true);
  }

  admit(a: AdmissionAttributes): void | Promise<void> {
    // Without configurations the request passes without a promise (or a reinvocation context).
    const hooks = this.webhooksFor(a);
    if (hooks.length === 0) return;
    return this.#dispatch(a, hooks);
  }

  async #dispatch(a: AdmissionAttributes, hooks: readonly WebhookAccessor[]): Promise<void> {
    const context = reinvocationContextOf(a);
    let state = context.value(this.name) as WebhookReinvocation | undefined;
    if (!state) {
      state = new WebhookReinvocation();
      context.setValue(this.name, state);
    }
    const round = context.isReinvoke ? 1 : 0;
    // The in-tree plugins ran again and changed what the webhooks left: those that saw it last see it again.
    if (round === 1 && state.previouslyInvoked.size > 0 && canonicalJson(a.object ?? null) !== state.lastOutput) state.requireReinvokingPreviouslyInvoked();
    const req = this.request(a);
    const original = a.object;
    const current = await this.#round(req, hooks, round, context, state, original);
    if (original && current && current !== original) replaceContents(original, current);
    state.lastOutput = round === 0 && state.previouslyInvoked.size > 0 ? canonicalJson(a.object ?? null) : undefined;
  }

  /** One pass over the webhooks; returns the object as they left it (in the request's kind). */
  async #round(
    req: WebhookRequest,
    hooks: readonly WebhookAccessor[],
    round: 0 | 1,
    context: ReinvocationContext,
    state: WebhookReinvocation,
    start: KubeObject | undefined,
  ): Promise<KubeObject | undefined> {
    const a = req.attributes;
    let current = start;
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
        versioned = await versionedObjects(req, inv, { object: current, oldObject: a.oldObject });
      } catch (err) {
        throw internalErrorOf((err as Error).message);
      }
      try {
        const response = await this.callHook(req, inv, versioned);
        const patched = this.#patch(req, inv, versioned.object, response);
        if (patched) {
          changed = patched.changed;
          this.annotate(a, `${PATCH_PREFIX}round_${round}_index_${i}`, jsonPatchAnnotationValue(accessor.configurationName, accessor.name, response.patch!), 'Request');
          current = inv.target && req.kind && inv.target !== req.kind ? await convertObject(patched.object, inv.target, req.kind) : patched.object;
        }
      } catch (err) {
        failure = err;
      }
      this.annotate(a, `${MUTATION_PREFIX}round_${round}_index_${i}`, mutationAnnotationValue(accessor.configurationName, accessor.name, changed));
      if (changed) {
        state.requireReinvokingPreviouslyInvoked();
        context.setShouldReinvoke();
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
   * The object after the response's patch, decoded as the kind decodes it and defaulted, or
   * undefined when the response has none (or an empty one).
   */
  #patch(req: WebhookRequest, inv: Invocation, object: KubeObject | undefined, response: AdmissionResponse): Patched | undefined {
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
    // A custom resource (a kind with its own decoder) is decoded as plain unstructured JSON, as
    // upstream's dispatcher decodes it: fields its schema does not know stay for the rest of
    // admission (validating webhooks and policies see them) and are pruned only on the way into
    // storage, where the storage codec coerces the object to the storage version's schema
    // (src/crd/serving/crd-serving.ts). Built-in kinds are decoded as their Go types are.
    if (kind && !kind.decode) {
      const typeError = findTypeError(kind.schema, patched);
      if (typeError) throw internalErrorOf(typeError);
      // As the typed decoding after a patch drops fields the kind does not have.
      removeUnknownFields(kind.schema, patched);
      dropNullFields(kind.schema, patched);
    }
    // Compared as decoded, before defaulting (as upstream): a patch that removes a defaulted field changed the object.
    const changed = canonicalJson(patched) !== canonicalJson(object);
    kind?.strategy.default?.(req.attributes.context, patched);
    return { object: patched, changed };
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
