/**
 * Pruning of unknown fields (upstream's pruning.PruneWithOptions, pkg/apiserver/schema/pruning):
 * every object field the schema does not specify is removed, in place, and its path is returned
 * for `fieldValidation=Strict|Warn` (`unknown field "spec.foo"`).
 *
 * - `x-kubernetes-preserve-unknown-fields` keeps the unknown fields of that object (recursively),
 *   but specified properties and additionalProperties below it are pruned again as usual;
 * - an object with `additionalProperties` keeps every key (its values pruned by that schema);
 * - an embedded resource (x-kubernetes-embedded-resource, or the resource root when isResourceRoot)
 *   keeps apiVersion, kind and metadata untouched: objectmeta's coerce handles those;
 * - values under no schema at all lose all their object fields.
 *
 * One walk over the object, no allocation for fields that are kept; a path string is built only for
 * a field that is pruned.
 */
import { compareGoStrings } from '../../api/go/strings.ts';
import { propertyOf, type Structural } from './structural.ts';
import { isJsonObject } from './json.ts';

const EMPTY_EMBEDDED: Structural = {
  type: '',
  nullable: false,
  xPreserveUnknownFields: false,
  xEmbeddedResource: true,
  xIntOrString: false,
};

function isMetaField(k: string): boolean {
  return k === 'apiVersion' || k === 'kind' || k === 'metadata';
}

/** The path under construction, as upstream's UnknownFieldPathOptions.ParentPath (`spec.list[0].x`). */
class PathTracker {
  readonly segments: string[] = [];
  readonly pruned: string[] = [];

  appendKey(k: string): void {
    this.segments.push(this.segments.length > 0 ? `.${k}` : k);
  }

  appendIndex(i: number): void {
    this.segments.push(`[${i}]`);
  }

  record(k: string): void {
    this.pruned.push(this.segments.join('') + (this.segments.length > 0 ? `.${k}` : k));
  }
}

/**
 * Removes from `obj` (in place) the fields `s` does not specify and returns their paths, sorted.
 * `isResourceRoot`: `obj` is a whole custom resource, whose apiVersion, kind and metadata are kept.
 *
 * @example
 * const obj = { apiVersion: 'a/v1', kind: 'A', metadata: {}, spec: { foo: 1, bar: 2 } };
 * prune(obj, schemaWithSpecBar, true) // ['spec.foo']; obj.spec is { bar: 2 }
 */
export function prune(obj: unknown, s: Structural | undefined, isResourceRoot: boolean): string[] {
  const t = new PathTracker();
  let schema = s;
  let embeddedRoot = false;
  if (isResourceRoot) {
    if (!schema) schema = EMPTY_EMBEDDED;
    else if (!schema.xEmbeddedResource) embeddedRoot = true;
  }
  pruneValue(obj, schema, embeddedRoot, t);
  return t.pruned.sort(compareGoStrings);
}

/** `forceEmbedded`: treat `s` as an embedded resource (the resource root) without copying it. */
function pruneValue(x: unknown, s: Structural | undefined, forceEmbedded: boolean, t: PathTracker): void {
  if (s && s.xPreserveUnknownFields) {
    skipPrune(x, s, forceEmbedded, t);
    return;
  }
  if (Array.isArray(x)) {
    const items = s ? s.items : undefined;
    for (let i = 0; i < x.length; i++) {
      const v = x[i];
      if (typeof v !== 'object' || v === null) continue;
      t.appendIndex(i);
      pruneValue(v, items, false, t);
      t.segments.pop();
    }
    return;
  }
  if (!isJsonObject(x)) return;
  if (!s) {
    for (const k of Object.keys(x)) {
      t.record(k);
      delete x[k];
    }
    return;
  }
  const embedded = forceEmbedded || s.xEmbeddedResource;
  const additional = s.additionalProperties;
  for (const k of Object.keys(x)) {
    if (embedded && isMetaField(k)) continue;
    const prop = propertyOf(s, k);
    if (prop) {
      descend(x[k], prop, k, t);
    } else if (additional) {
      descend(x[k], additional.structural, k, t);
    } else {
      // At the top, unknown apiVersion/kind/metadata go unreported (they are the server's to judge).
      if (!isMetaField(k) || t.segments.length > 0) t.record(k);
      delete x[k];
    }
  }
}

function descend(v: unknown, s: Structural | undefined, k: string, t: PathTracker): void {
  if (typeof v !== 'object' || v === null) return;
  t.appendKey(k);
  pruneValue(v, s, false, t);
  t.segments.pop();
}

/** Under x-kubernetes-preserve-unknown-fields: unknown fields stay, specified ones are pruned as usual. */
function skipPrune(x: unknown, s: Structural, forceEmbedded: boolean, t: PathTracker): void {
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) {
      const v = x[i];
      if (typeof v !== 'object' || v === null) continue;
      t.appendIndex(i);
      if (s.items) skipPrune(v, s.items, false, t);
      t.segments.pop();
    }
    return;
  }
  if (!isJsonObject(x)) return;
  const embedded = forceEmbedded || s.xEmbeddedResource;
  const additional = s.additionalProperties;
  for (const k of Object.keys(x)) {
    if (embedded && isMetaField(k)) continue;
    const prop = propertyOf(s, k);
    if (prop) descend(x[k], prop, k, t);
    else if (additional) descend(x[k], additional.structural, k, t);
  }
}
