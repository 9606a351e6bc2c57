/**
 * Applies a PATCH body to the current object, in one of the three formats kube-apiserver accepts for
 * PATCH besides server-side apply. Pure: `current` and `patch` are never changed; the result is new.
 *
 * @example
 * const next = applyPatch('strategic-merge-patch', configMap, { data: { b: '2' } }, configMaps.schema);
 */
import type { ObjectSchema } from '../../schema/type-schema.ts';
import { applyJsonPatch } from './json-patch.ts';
import { applyMergePatch } from './merge-patch.ts';
import { applyStrategicMergePatch } from './strategic-merge-patch.ts';

export type PatchFormat = 'json-patch' | 'merge-patch' | 'strategic-merge-patch';

/** The patch format a PATCH request's Content-Type names, if it is one of the three. */
export const PATCH_CONTENT_TYPES: Readonly<Record<string, PatchFormat>> = {
  'application/json-patch+json': 'json-patch',
  'application/merge-patch+json': 'merge-patch',
  'application/strategic-merge-patch+json': 'strategic-merge-patch',
};

/**
 * @param schema the object's type schema; only strategic merge patch reads it.
 * @throws ApiError with the status kube-apiserver answers for a patch that is malformed or does not apply.
 */
export function applyPatch(format: PatchFormat, current: object, patch: unknown, schema: ObjectSchema): object {
  switch (format) {
    case 'json-patch':
      return applyJsonPatch(current, patch);
    case 'merge-patch':
      return applyMergePatch(current, patch);
    case 'strategic-merge-patch':
      return applyStrategicMergePatch(current, patch, schema);
  }
}
