/**
 * Validation of embedded resources (upstream's objectmeta.Validate, pkg/apiserver/schema/objectmeta/
 * validation.go): every x-kubernetes-embedded-resource object needs apiVersion and kind (metadata
 * is optional), apiVersion must parse as a group/version, kind must be a DNS-1035 label up to case,
 * and metadata must be a valid ObjectMeta (a missing name is fine: upstream validates with a
 * stand-in name; the name must be usable as a path segment, a namespace, when set, a DNS label).
 */
import type { FieldError } from '../../../api/errors.ts';
import type { KubeObject } from '../../../api/types.ts';
import { dns1035LabelErrors, dns1123LabelErrors, pathSegmentNameErrors, qualifiedNameErrors } from '../../../api/validation/names.ts';
import type { KindDefinition } from '../../../registry/kind.ts';
import { validateManagedFields } from '../../../registry/managed-fields/validate-managed-fields.ts';
import * as field from '../../../registry/validation/field.ts';
import type { FieldPath, PathLike } from '../../../registry/validation/field.ts';
import { validateObjectMeta } from '../../../registry/validation/object-meta.ts';
import { FINALIZER_DELETE_DEPENDENTS, FINALIZER_ORPHAN } from '../../../registry/gc-finalizers.ts';
import { propertyOf, type Structural } from '../structural.ts';
import { isJsonObject, type JsonObject } from '../json.ts';
import { rootPath } from '../field-errors.ts';
import { getObjectMeta } from './object-meta-json.ts';

/**
 * The problems of the embedded resources in `obj` under `s` (and of `obj` itself when
 * `isResourceRoot`), with paths from `root`.
 */
export function validateEmbeddedObjectMeta(root: PathLike | undefined, obj: unknown, s: Structural | undefined, isResourceRoot: boolean): FieldError[] {
  let schema = s;
  let forceEmbedded = false;
  if (isResourceRoot) {
    if (!schema) schema = { type: '', nullable: false, xPreserveUnknownFields: false, xEmbeddedResource: true, xIntOrString: false };
    else forceEmbedded = !schema.xEmbeddedResource;
  }
  const errs: FieldError[] = [];
  walk(rootPath(root), obj, schema, forceEmbedded, errs);
  return errs;
}

function walk(p: FieldPath, x: unknown, s: Structural | undefined, forceEmbedded: boolean, errs: FieldError[]): void {
  if (!s) return;
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) {
      const v = x[i];
      if (typeof v === 'object' && v !== null) walk(p.index(i), v, s.items, false, errs);
    }
    return;
  }
  if (!isJsonObject(x)) return;
  if (forceEmbedded || s.xEmbeddedResource) errs.push(...validateEmbeddedResource(p, x));
  for (const k of Object.keys(x)) {
    const v = x[k];
    if (typeof v !== 'object' || v === null) continue;
    const prop = propertyOf(s, k);
    if (prop) walk(p.child(k), v, prop, false, errs);
    else if (s.additionalProperties) walk(p.key(k), v, s.additionalProperties.structural, false, errs);
  }
}

/** One embedded resource's TypeMeta and ObjectMeta. */
export function validateEmbeddedResource(p: FieldPath, x: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  if (!Object.hasOwn(x, 'apiVersion')) errs.push(field.required(p.child('apiVersion')));
  if (!Object.hasOwn(x, 'kind')) errs.push(field.required(p.child('kind')));
  for (const k of Object.keys(x)) {
    const v = x[k];
    switch (k) {
      case 'apiVersion':
        if (typeof v !== 'string') errs.push(field.invalid(p.child('apiVersion'), v, 'must be a string'));
        else if (v === '') errs.push(field.invalid(p.child('apiVersion'), v, 'must not be empty'));
        else if (v !== '/' && v.split('/').length > 2) errs.push(field.invalid(p.child('apiVersion'), v, `unexpected GroupVersion string: ${v}`));
        break;
      case 'kind':
        if (typeof v !== 'string') errs.push(field.invalid(p.child('kind'), v, 'must be a string'));
        else if (v === '') errs.push(field.invalid(p.child('kind'), v, 'must not be empty'));
        else {
          const problems = dns1035LabelErrors(v.toLowerCase());
          if (problems.length > 0) errs.push(field.invalid(p.child('kind'), v, `may have mixed case, but should otherwise match: ${problems.join(',')}`));
        }
        break;
      case 'metadata': {
        const got = getObjectMeta(x);
        if (got.error !== undefined) errs.push(field.invalid(p.child('metadata'), v, got.error));
        else errs.push(...validateObjectMetaOf(got.meta ?? {}, p.child('metadata')));
        break;
      }
    }
  }
  return errs;
}

/** Only what validateObjectMeta reads of a kind: labels, annotations and owner references do not depend on it. */
const ANY_KIND = { nameRule: 'path-segment', namespaced: false, coreObjectMeta: false } as unknown as KindDefinition;

/**
 * apimachinery's ValidateObjectMeta for an embedded ObjectMeta (requiresNamespace = a namespace is
 * set, names as path segments), in upstream's order.
 */
function validateObjectMetaOf(meta: JsonObject, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const text = (k: string) => (typeof meta[k] === 'string' ? (meta[k] as string) : '');
  const generateName = text('generateName');
  if (generateName) {
    // As a prefix only '/' and '%' are refused.
    for (const bad of ['/', '%']) if (generateName.includes(bad)) errs.push(field.invalid(p.child('generateName'), generateName, `may not contain '${bad}'`));
  }
  // Upstream sets a stand-in name when there is none: an embedded resource need not be named.
  const name = text('name') || 'fakename';
  for (const msg of pathSegmentNameErrors(name)) errs.push(field.invalid(p.child('name'), name, msg));
  const namespace = text('namespace');
  if (namespace) for (const msg of dns1123LabelErrors(namespace)) errs.push(field.invalid(p.child('namespace'), namespace, msg));
  const generation = typeof meta.generation === 'number' ? meta.generation : 0;
  if (generation < 0) errs.push(field.invalid(p.child('generation'), generation, 'must be greater than or equal to 0'));

  // Labels, annotations and owner references read the same for every kind: reuse the kinds' checks.
  const shared = validateObjectMeta(ANY_KIND, { metadata: meta } as unknown as KubeObject);
  for (const prefix of ['metadata.labels', 'metadata.annotations', 'metadata.ownerReferences']) {
    for (const e of shared) {
      if (e.field === prefix || e.field.startsWith(`${prefix}.`) || e.field.startsWith(`${prefix}[`)) {
        errs.push({ ...e, field: `${String(p)}${e.field.slice('metadata'.length)}` });
      }
    }
  }

  const finalizers = Array.isArray(meta.finalizers) ? (meta.finalizers as string[]) : [];
  const finalizersPath = p.child('finalizers');
  for (const f of finalizers) for (const msg of qualifiedNameErrors(f)) errs.push(field.invalid(finalizersPath, f, msg));
  if (finalizers.includes(FINALIZER_ORPHAN) && finalizers.includes(FINALIZER_DELETE_DEPENDENTS)) {
    const list = `[]string{${finalizers.map((f) => JSON.stringify(f)).join(', ')}}`;
    errs.push({ type: 'FieldValueInvalid', field: String(finalizersPath), rawValue: list, detail: `finalizer ${FINALIZER_ORPHAN} and ${FINALIZER_DELETE_DEPENDENTS} cannot be both set` });
  }
  errs.push(...validateManagedFields(meta.managedFields, String(p.child('managedFields'))));
  return errs;
}
