/**
 * Defaulting of custom resources (upstream's pkg/apiserver/schema/defaulting):
 *
 * - applyDefaults (Default): an object field the schema gives a `default` is set when absent, or when
 *   it is `null` but not nullable; `null` items and additionalProperties values that are not
 *   nullable take their schema's default (or stay null). Defaults are deep-copied into the object.
 * - pruneNonNullableNullsWithoutDefaults: object fields that are `null`, not nullable and have no
 *   default are removed (upstream runs this right after pruning, before defaulting).
 * - pruneDefaults (PruneDefaults): the served schema's defaults pruned as an object carrying them
 *   would be (unknown fields dropped, embedded metadata coerced), so defaulting never adds what
 *   pruning would remove.
 *
 * The order kube-apiserver applies on every read and write of a custom resource: prune (pruning.ts),
 * pruneNonNullableNullsWithoutDefaults, coerce embedded metadata (objectmeta), then applyDefaults.
 */
import { propertyOf, type Structural } from './structural.ts';
import { deepCopyJson, isJsonObject, type JsonObject } from './json.ts';
import { deepCopyStructural } from './transform.ts';
import { coerceEmbeddedObjectMeta } from './objectmeta/coerce.ts';
import { prune } from './pruning.ts';

function isNonNullableNull(x: unknown, s: Structural | undefined): boolean {
  return x === null && s !== undefined && !s.nullable;
}

/**
 * Sets, in place, the defaults `s` specifies on `x` (upstream's Default).
 *
 * @example
 * const obj = { spec: {} };
 * applyDefaults(obj, s); // with spec.properties.replicas.default = 1: obj.spec is { replicas: 1 }
 */
export function applyDefaults(x: unknown, s: Structural | undefined): void {
  if (!s) return;
  if (Array.isArray(x)) {
    const items = s.items;
    for (let i = 0; i < x.length; i++) {
      if (isNonNullableNull(x[i], items)) x[i] = items!.default === undefined ? null : deepCopyJson(items!.default);
      applyDefaults(x[i], items);
    }
    return;
  }
  if (!isJsonObject(x)) return;
  const props = s.properties;
  if (props) {
    for (const k of Object.keys(props)) {
      const prop = props[k]!;
      if (prop.default === undefined) continue;
      if (!Object.hasOwn(x, k) || isNonNullableNull(x[k], prop)) x[k] = deepCopyJson(prop.default);
    }
  }
  const ap = s.additionalProperties;
  for (const k of Object.keys(x)) {
    const prop = propertyOf(s, k);
    if (prop) {
      applyDefaults(x[k], prop);
    } else if (ap) {
      const apSchema = ap.structural;
      if (isNonNullableNull(x[k], apSchema)) x[k] = apSchema!.default === undefined ? null : deepCopyJson(apSchema!.default);
      applyDefaults(x[k], apSchema);
    }
  }
}

/** Removes, in place, `null` object fields that are neither nullable nor defaulted (upstream's PruneNonNullableNullsWithoutDefaults). */
export function pruneNonNullableNullsWithoutDefaults(x: unknown, s: Structural | undefined): void {
  if (Array.isArray(x)) {
    const items = s?.items;
    for (const v of x) if (typeof v === 'object' && v !== null) pruneNonNullableNullsWithoutDefaults(v, items);
    return;
  }
  if (!isJsonObject(x)) return;
  for (const k of Object.keys(x)) {
    const schema = s ? (propertyOf(s, k) ?? s.additionalProperties?.structural) : undefined;
    const v = x[k];
    if (v === null && schema !== undefined && !schema.nullable && schema.default === undefined) delete x[k];
    else if (typeof v === 'object' && v !== null) pruneNonNullableNullsWithoutDefaults(v, schema);
  }
}

/** One step from the root to a schema node: an object field, or (for items) a list's only element. */
type Step = { readonly key: string } | { readonly index: true };

/** Why a default cannot be put in its surrounding object (upstream's accessor errors). */
export class DefaultPruningError extends Error {
  override readonly name = 'DefaultPruningError';
}

/**
 * The object holding `x` at `steps` from the root (upstream's SurroundingObjectFunc), with TypeMeta
 * set at its top when given.
 */
export function surroundingObject(x: unknown, steps: readonly Step[], typeMeta?: { apiVersion: string; kind: string }): JsonObject {
  let v = x;
  for (let i = steps.length - 1; i >= 0; i--) {
    const step = steps[i]!;
    v = 'key' in step ? { [step.key]: v } : [v];
  }
  if (!isJsonObject(v)) throw new DefaultPruningError('object root default value must be of object type');
  if (typeMeta) {
    if (!Object.hasOwn(v, 'kind')) v.kind = typeMeta.kind;
    if (!Object.hasOwn(v, 'apiVersion')) v.apiVersion = typeMeta.apiVersion;
  }
  return v;
}

/** The value at `steps` in `obj`: found, or not (pruned away); a node of the wrong type is an error. */
function access(obj: JsonObject, steps: readonly Step[]): { found: boolean; value?: unknown } {
  let cur: unknown = obj;
  let where = '';
  for (const step of steps) {
    if ('key' in step) {
      if (!isJsonObject(cur)) throw new DefaultPruningError(`${where}.${step.key} must be of object type`);
      if (!Object.hasOwn(cur, step.key)) return { found: false };
      cur = cur[step.key];
      where += `.${step.key}`;
    } else {
      if (!Array.isArray(cur)) throw new DefaultPruningError(`${where}[] must be of array type`);
      if (cur.length === 0) return { found: false };
      cur = cur[0];
      where += '[]';
    }
  }
  return { found: true, value: cur };
}

/**
 * A copy of `s` whose defaults are pruned as the object holding them would be: unknown fields
 * dropped, embedded metadata coerced (dropping malformed fields). A default pruned away entirely
 * is removed. Throws DefaultPruningError (`failed to prune default value: …`) when a default cannot
 * be placed (not an object at the root).
 */
export function pruneDefaults(s: Structural): Structural {
  const copy = deepCopyStructural(s);
  pruneDefaultsAt(copy, copy, []);
  return copy;
}

function pruneDefaultsAt(node: Structural, root: Structural, steps: Step[]): void {
  if (node.default !== undefined) {
    try {
      const obj = surroundingObject(node.default, steps);
      coerceEmbeddedObjectMeta(undefined, obj, root, true, { dropInvalidFields: true });
      prune(obj, root, true);
      const got = access(obj, steps);
      if (got.found && got.value !== null && got.value !== undefined) node.default = got.value;
      else delete node.default;
    } catch (e) {
      if (e instanceof DefaultPruningError) throw new DefaultPruningError(`failed to prune default value: ${e.message}`);
      throw e;
    }
  }
  const ap = node.additionalProperties?.structural;
  if (ap) pruneDefaultsAt(ap, root, [...steps, { key: '*' }]);
  if (node.items) pruneDefaultsAt(node.items, root, [...steps, { index: true }]);
  if (node.properties) for (const k of Object.keys(node.properties)) pruneDefaultsAt(node.properties[k]!, root, [...steps, { key: k }]);
}

export type { Step as SurroundingStep };
