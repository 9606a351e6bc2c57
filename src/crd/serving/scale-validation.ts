/**
 * The scale paths' checks of a custom resource write (customResourceValidator.ValidateScaleSpec and
 * ValidateScaleStatus): replicas at both paths are int64 in [0, MaxInt32], the selector a string.
 * Errors are at the path as the CRD spells it (`.spec.replicas`).
 */
import type { FieldError } from '../../api/errors.ts';
import type { KubeObject } from '../../api/types.ts';
import { nestedInt64, nestedString, splitPath, ScalePathError } from '../scale.ts';
import type { ScaleSubresource } from '../validation/types.ts';

const MAX_INT32 = 2147483647;

function replicasErrors(obj: KubeObject, path: string): FieldError[] {
  let replicas = 0;
  try {
    replicas = nestedInt64(obj, splitPath(path)) ?? 0;
  } catch (e) {
    if (e instanceof ScalePathError) return [{ type: 'FieldValueInvalid', field: path, value: 0, detail: e.message }];
    throw e;
  }
  if (replicas < 0) return [{ type: 'FieldValueInvalid', field: path, value: replicas, detail: 'should be a non-negative integer' }];
  if (replicas > MAX_INT32) return [{ type: 'FieldValueInvalid', field: path, value: replicas, detail: `should be less than or equal to ${MAX_INT32}` }];
  return [];
}

/** Both paths' checks, or (`statusOnly`, a status write) the status replicas and selector's only. */
export function validateScaleReplicas(obj: KubeObject, scale: ScaleSubresource, statusOnly = false): FieldError[] {
  const errs = statusOnly ? [] : replicasErrors(obj, scale.specReplicasPath ?? '');
  errs.push(...replicasErrors(obj, scale.statusReplicasPath ?? ''));
  if (scale.labelSelectorPath) {
    try {
      nestedString(obj, splitPath(scale.labelSelectorPath));
    } catch (e) {
      if (!(e instanceof ScalePathError)) throw e;
      errs.push({ type: 'FieldValueInvalid', field: scale.labelSelectorPath, value: '', detail: e.message });
    }
  }
  return errs;
}
