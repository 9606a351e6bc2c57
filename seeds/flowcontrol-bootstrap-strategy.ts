/**
 * How the server decides what to write to a stored API priority and fairness configuration object
 * (upstream's ensurer strategies, pkg/registry/flowcontrol/ensurer): mandatory objects always get
 * the bootstrap spec back; suggested ones only while their `apf.kubernetes.io/autoupdate-spec`
 * annotation says "true" — or, without a readable annotation, while the object was never changed
 * since it was created (generation 1). Either way the annotation is then set to what was decided,
 * so that the next pass reads the decision instead of guessing it again.
 */
import type { KubeObject, StoredKubeObject } from '../src/api/types.ts';
import { AUTO_UPDATE_ANNOTATION, type BootstrapConfiguration } from '../src/flowcontrol/bootstrap/default-objects.ts';
import { exemptStruct, flowSchemaSpecStruct, priorityLevelSpecStruct, semanticallyEqual } from '../src/kinds/flowcontrol-internal.ts';

export type EnsureStrategy = 'mandatory' | 'suggested';
export type ConfigurationResource = 'flowschemas' | 'prioritylevelconfigurations';

/** Go's strconv.ParseBool, which upstream reads the annotation with; undefined when it fails. */
export function parseGoBool(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  return undefined;
}

/** The annotation's verdict, as a boolean, when it has a readable one. */
export const autoUpdateAnnotation = (obj: KubeObject): boolean | undefined => parseGoBool(obj.metadata?.annotations?.[AUTO_UPDATE_ANNOTATION]);

/**
 * Whether a suggested object's spec may be overwritten: the annotation says so, or (missing or
 * unreadable) no one changed the spec since it was created. An object deleted and re-created with
 * another spec also has generation 1; upstream accepts that it cannot tell that case apart.
 */
function suggestedMayUpdateSpec(current: StoredKubeObject): boolean {
  return autoUpdateAnnotation(current) ?? current.metadata.generation === 1;
}

/**
 * Whether the stored spec already is the bootstrap one, compared as upstream compares them: the
 * defaulted bootstrap spec against the stored one, semantically. The exempt level's `spec.exempt`
 * values are the administrator's, so they are taken from the stored object before comparing.
 */
export function specMatches(resource: ConfigurationResource, bootstrap: BootstrapConfiguration, current: KubeObject): boolean {
  if (resource === 'flowschemas') return semanticallyEqual(flowSchemaSpecStruct(bootstrap.spec), flowSchemaSpecStruct(current.spec));
  const expected = priorityLevelSpecStruct(bootstrap.spec);
  const actual = priorityLevelSpecStruct(current.spec);
  if (bootstrap.name === 'exempt') {
    const stored = (current.spec as { exempt?: unknown } | undefined)?.exempt;
    if (!stored) return false;
    return semanticallyEqual({ ...expected, Exempt: exemptStruct(stored) }, actual);
  }
  return semanticallyEqual(expected, actual);
}

/**
 * The object to write over `current`, or undefined when it is as it should be: the bootstrap spec
 * when the strategy allows overwriting it and it differs, and the annotation set to whether the spec
 * is kept current. The whole bootstrap spec replaces the stored one (the exempt level's tuned
 * values too, when anything else in it differs), as upstream replaces it.
 */
export function reviseIfNeeded(resource: ConfigurationResource, strategy: EnsureStrategy, current: StoredKubeObject, bootstrap: BootstrapConfiguration): StoredKubeObject | undefined {
  const autoUpdateSpec = strategy === 'mandatory' || suggestedMayUpdateSpec(current);
  const updateAnnotation = autoUpdateAnnotation(current) !== autoUpdateSpec;
  const specChanged = autoUpdateSpec && !specMatches(resource, bootstrap, current);
  if (!updateAnnotation && !specChanged) return undefined;
  const revised = structuredClone(current);
  if (specChanged) revised.spec = structuredClone(bootstrap.spec) as Record<string, unknown>;
  if (updateAnnotation) revised.metadata.annotations = { ...(revised.metadata.annotations ?? {}), [AUTO_UPDATE_ANNOTATION]: String(autoUpdateSpec) };
  return revised;
}

/**
 * Whether a stored object the bootstrap configuration no longer names is the server's to delete:
 * only one annotated with a readable "true" (a missing, unreadable or false annotation marks an
 * administrator's object).
 */
export const isUnwanted = (obj: KubeObject, bootstrapNames: ReadonlySet<string>): boolean =>
  !bootstrapNames.has(obj.metadata?.name ?? '') && autoUpdateAnnotation(obj) === true;
