/**
 * Validation of the `default`s of a CRD schema (upstream's defaulting.ValidateDefaults): every
 * default must
 * - have no field pruning would remove (`must not have unknown fields`, when required),
 * - carry valid embedded TypeMeta/ObjectMeta (inside metadata: `must result in valid metadata: …`),
 * - pass the OpenAPI value validation of its own schema node,
 * - and pass the node's x-kubernetes-validations rules (through the `celValidateDefault` hook).
 *
 * Defaults under additionalProperties are not looked at (they are forbidden there).
 */
import type { FieldError } from '../../api/errors.ts';
import * as field from '../../registry/validation/field.ts';
import type { FieldPath, PathLike } from '../../registry/validation/field.ts';
import type { Structural } from './structural.ts';
import { deepCopyJson, deepEqualJson } from './json.ts';
import { aggregateText, fieldErrorString, rootPath } from './field-errors.ts';
import { prune } from './pruning.ts';
import { coerceEmbeddedObjectMeta } from './objectmeta/coerce.ts';
import { validateEmbeddedObjectMeta } from './objectmeta/validate.ts';
import { ValueValidator } from './value-validation/validator.ts';
import { surroundingObject, type SurroundingStep } from './defaulting.ts';

/**
 * Where x-kubernetes-validations plug in: called for a default that passed every other check, with
 * the node's schema (`isResourceRoot` when the node is a resource or embedded resource root) and the
 * path of the `default` field; returns the rule failures. Provided by src/crd/cel.
 */
export type CelDefaultValidator = (path: FieldPath, schema: Structural, value: unknown, isResourceRoot: boolean) => FieldError[];

export interface ValidateDefaultsOptions {
  /** Refuse defaults with fields pruning would drop (always for new CRDs; ratcheted on updates). */
  requirePrunedDefaults: boolean;
  celValidateDefault?: CelDefaultValidator;
}

const VALIDATION_TYPE_META = { apiVersion: 'validation/v1', kind: 'Validation' };

/**
 * The problems of the defaults in `s`; `root` is the schema's path
 * (`spec.versions[0].schema.openAPIV3Schema`), `isResourceRoot` whether `s` is a resource's schema.
 */
export function validateDefaults(root: PathLike | undefined, s: Structural, isResourceRoot: boolean, opts: ValidateDefaultsOptions): FieldError[] {
  let schema = s;
  if (isResourceRoot && !schema.xEmbeddedResource) schema = { ...schema, xEmbeddedResource: true };
  const errs: FieldError[] = [];
  walk(rootPath(root), schema, schema, [], false, opts, errs);
  return errs;
}

function walk(p: FieldPath, s: Structural, rootSchema: Structural, steps: SurroundingStep[], insideMeta: boolean, opts: ValidateDefaultsOptions, errs: FieldError[]): void {
  let root = rootSchema;
  let at = steps;
  let meta = insideMeta;
  if (s.xEmbeddedResource) {
    meta = false;
    at = [];
    root = s;
  }
  const isResourceRoot = s === root;
  if (s.default !== undefined) errs.push(...defaultErrors(p.child('default'), s, root, at, meta, isResourceRoot, opts));
  if (s.items) walk(p.child('items'), s.items, root, [...at, { index: true }], meta, opts, errs);
  if (s.properties) {
    for (const k of Object.keys(s.properties)) {
      const subMeta = meta || (s.xEmbeddedResource && (k === 'metadata' || k === 'apiVersion' || k === 'kind'));
      walk(p.child('properties').key(k), s.properties[k]!, root, [...at, { key: k }], subMeta, opts, errs);
    }
  }
}

function defaultErrors(
  p: FieldPath,
  s: Structural,
  root: Structural,
  steps: SurroundingStep[],
  insideMeta: boolean,
  isResourceRoot: boolean,
  opts: ValidateDefaultsOptions,
): FieldError[] {
  const value = s.default;
  const validator = new ValueValidator(s, { flavour: 'structural' });
  if (insideMeta) {
    // TypeMeta and ObjectMeta are judged in the object they would end up in.
    const obj = surroundingObject(deepCopyJson(value), steps, VALIDATION_TYPE_META);
    const coerced = coerceEmbeddedObjectMeta(undefined, obj, root, true);
    if (coerced.error) return [field.invalid(p, value, `must result in valid metadata: ${fieldErrorString(coerced.error)}`)];
    const metaErrs = validateEmbeddedObjectMeta(undefined, obj, root, true);
    if (metaErrs.length > 0) return [field.invalid(p, value, `must result in valid metadata: ${aggregateText(metaErrs)}`)];
  } else {
    const errs: FieldError[] = [];
    if (opts.requirePrunedDefaults) {
      const pruned = deepCopyJson(value);
      prune(pruned, s, s.xEmbeddedResource);
      if (!deepEqualJson(pruned, value)) errs.push(field.invalid(p, value, 'must not have unknown fields'));
    }
    const copy = deepCopyJson(value);
    const coerced = coerceEmbeddedObjectMeta(p, copy, s, s.xEmbeddedResource);
    if (coerced.error) return [...errs, coerced.error];
    const metaErrs = validateEmbeddedObjectMeta(p, copy, s, s.xEmbeddedResource);
    if (metaErrs.length > 0) return [...errs, ...metaErrs];
    // Upstream coerces the default itself and validates the result.
    const valueErrs = validator.validate(copy, { root: p });
    if (valueErrs.length > 0) return [...errs, ...valueErrs];
    return [...errs, ...(opts.celValidateDefault?.(p, s, copy, isResourceRoot) ?? [])];
  }
  const valueErrs = validator.validate(value, { root: p });
  if (valueErrs.length > 0) return valueErrs;
  return opts.celValidateDefault?.(p, s, value, isResourceRoot) ?? [];
}
