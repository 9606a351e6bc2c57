/**
 * The unstructured decoder of a custom resource version (upstream's unstructuredSchemaCoercer, what
 * the CR codec adds to JSON decoding): metadata read as ObjectMeta (its unknown fields reported),
 * fields the schema does not specify pruned (reported, unless the CRD preserves unknown fields), nulls
 * without default dropped where the schema is not nullable, embedded apiVersion/kind/metadata coerced.
 * The paths come back in upstream's order (metadata's, the pruned, the embedded metadata's) for the
 * fieldValidation directive; a malformed metadata is a 400 in the decoder's words.
 */
import { badRequest, fieldErrorText } from '../../api/errors.ts';
import type { KubeObject } from '../../api/types.ts';
import { coerceEmbeddedObjectMeta, getObjectMeta, prune, pruneNonNullableNullsWithoutDefaults, setObjectMeta } from '../schema/index.ts';
import type { VersionSchema } from './version-schema.ts';

function cannotDecode(v: VersionSchema, obj: KubeObject, why: string): Error {
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : v.apiVersion;
  const version = apiVersion.slice(apiVersion.indexOf('/') + 1);
  const kind = typeof obj.kind === 'string' && obj.kind ? obj.kind : v.kind;
  return badRequest(`${kind} in version ${JSON.stringify(version)} cannot be handled as a ${v.kind}: ${why}`);
}

/**
 * Decodes `obj` in place and returns the unknown fields' paths. `fromStorage`: as the storage codec
 * reads, malformed metadata fields are dropped instead of refused (upstream's dropInvalidMetadata)
 * and a missing generation reads as 1 (repairGeneration).
 */
export function decodeCustomResource(v: VersionSchema, obj: KubeObject, fromStorage = false): string[] {
  const { kind, apiVersion } = obj;
  const meta = getObjectMeta(obj as never, { returnUnknownFieldPaths: !fromStorage, dropMalformedFields: fromStorage });
  if (meta.error !== undefined) throw cannotDecode(v, obj, meta.error);
  const unknown = [...meta.unknownFields];
  if (!v.preserveUnknownFields) {
    unknown.push(...prune(obj, v.structural, true));
    pruneNonNullableNullsWithoutDefaults(obj, v.structural);
  }
  const coerced = coerceEmbeddedObjectMeta(undefined, obj, v.structural, false, { returnUnknownFieldPaths: !fromStorage, dropInvalidFields: fromStorage });
  if (coerced.error) throw cannotDecode(v, obj, `${coerced.error.field}: ${fieldErrorText(coerced.error)}`);
  unknown.push(...coerced.unknownFieldPaths);
  // Restore what the walk may have touched at the root, as upstream restores its saved TypeMeta and ObjectMeta.
  if (kind !== undefined) obj.kind = kind;
  if (apiVersion !== undefined) obj.apiVersion = apiVersion;
  if (meta.found) setObjectMeta(obj as never, meta.meta);
  if (fromStorage && meta.found && meta.meta && !meta.meta.generation) (obj.metadata ??= {}).generation = 1;
  return unknown;
}
