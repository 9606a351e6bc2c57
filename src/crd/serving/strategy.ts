/**
 * The write rules of a custom resource version, as apiextensions-apiserver's customresource strategy
 * and validator have them: generation on any change but metadata (and status, with a status
 * subresource), status kept apart by the status subresource, and validation in upstream's order:
 * OpenAPI value validation (ratcheting on updates), scale replicas paths, embedded ObjectMeta,
 * list sets and maps (only when the old object passed them), then the x-kubernetes-validations rules
 * unless a blocking schema error came first. Metadata is validated by the generic store with the
 * kind's generic rules (coreObjectMeta false).
 */
import type { FieldError } from '../../api/errors.ts';
import type { RequestContext } from '../../api/request-context.ts';
import type { KubeObject } from '../../api/types.ts';
import { cloneJson } from '../../codecs/deep-json.ts';
import type { KindStrategy, SubresourceStrategy } from '../../registry/kind.ts';
import { canonicalJson } from '../../registry/system-fields.ts';
import { blockingError, RUNTIME_COST_BUDGET, validateWithRules } from '../cel/index.ts';
import { applyDefaults, validateEmbeddedObjectMeta, validateListSetsAndMaps, validateValue } from '../schema/index.ts';
import { propertyOf } from '../schema/structural.ts';
import type { ScaleSubresource } from '../validation/types.ts';
import { addedFinalizerWarnings } from './finalizer-warnings.ts';
import { validateScaleReplicas } from './scale-validation.ts';
import type { VersionSchema } from './version-schema.ts';

function withoutMetadata(obj: KubeObject, dropStatus: boolean): string {
  const { metadata: _m, ...rest } = obj;
  if (dropStatus) delete rest.status;
  return canonicalJson(rest);
}

function validateObject(ctx: RequestContext, v: VersionSchema, scale: ScaleSubresource | undefined, obj: KubeObject, old: KubeObject | undefined, statusOnly = false): FieldError[] {
  const s = v.structural;
  const errs: FieldError[] = [];
  if (statusOnly) {
    // ValidateStatusUpdate: status alone, against the status schema, at "status".
    const statusSchema = s ? propertyOf(s, 'status') : undefined;
    if (statusSchema && obj.status !== undefined) errs.push(...validateValue(obj.status, statusSchema, { old: old?.status, root: 'status' }));
  } else if (s) {
    errs.push(...validateValue(obj, s, old ? { old } : {}));
  }
  if (scale) errs.push(...validateScaleReplicas(obj, scale, statusOnly));
  errs.push(...validateEmbeddedObjectMeta(undefined, obj, s, false));
  // An update keeps list sets and maps that were already broken (upstream checks the old object first).
  if (!old || validateListSetsAndMaps(undefined, s, old).length === 0) errs.push(...validateListSetsAndMaps(undefined, s, obj));
  if (v.rules.validator) {
    const blocking = blockingError(errs);
    if (blocking) errs.push(blocking);
    else errs.push(...validateWithRules(v.rules, obj, old, RUNTIME_COST_BUDGET, { warnings: ctx.warnings }));
  }
  return errs;
}

/** Defaults of the current schema, applied to a write body and to every object read from storage. */
export function defaultCustomResource(v: VersionSchema, obj: KubeObject): void {
  if (v.structural) applyDefaults(obj, v.structural);
}

export function customResourceStrategy(v: VersionSchema, hasStatus: boolean, scale: ScaleSubresource | undefined): KindStrategy {
  return {
    default: (_ctx, obj) => defaultCustomResource(v, obj),
    prepareForCreate(_ctx, obj) {
      if (hasStatus) delete obj.status;
      (obj.metadata ??= {}).generation = 1;
    },
    prepareForUpdate(_ctx, obj, old) {
      if (hasStatus) {
        if (old.status === undefined) delete obj.status;
        else obj.status = cloneJson(old.status);
      }
      const meta = (obj.metadata ??= {});
      if (withoutMetadata(obj, hasStatus) !== withoutMetadata(old, hasStatus)) meta.generation = (old.metadata?.generation ?? 0) + 1;
      else meta.generation = old.metadata?.generation ?? 0;
    },
    validate: (ctx, obj) => validateObject(ctx, v, scale, obj, undefined),
    validateUpdate: (ctx, obj, old) => validateObject(ctx, v, scale, obj, old),
    warningsOnCreate: (_ctx, obj) => addedFinalizerWarnings(obj),
    warningsOnUpdate: (_ctx, obj, old) => addedFinalizerWarnings(obj, old),
  };
}

/**
 * The status subresource: everything but status is kept as stored, metadata too (unlike built-in
 * kinds' status strategies, labels and annotations do not change through it); generation never moves.
 */
export function customResourceStatusStrategy(v: VersionSchema, scale: ScaleSubresource | undefined): SubresourceStrategy {
  return {
    prepareForUpdate(_ctx, obj, old) {
      // As upstream: the old object whole, with the body's status and the managedFields the status write recorded.
      const next: KubeObject = cloneJson(old);
      const managedFields = obj.metadata?.managedFields;
      if (managedFields === undefined) delete next.metadata?.managedFields;
      else (next.metadata ??= {}).managedFields = managedFields;
      if (obj.status === undefined) delete next.status;
      else next.status = obj.status;
      return next;
    },
    // ValidateStatusUpdate: the scale's status paths only.
    validateUpdate: (ctx, obj, old) => validateObject(ctx, v, scale, obj, old, true),
  };
}
