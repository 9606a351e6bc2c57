/**
 * Coercion of embedded TypeMeta and ObjectMeta (upstream's objectmeta.CoerceWithOptions,
 * pkg/apiserver/schema/objectmeta/algorithm.go). At every x-kubernetes-embedded-resource object
 * (and at the resource root when asked), apiVersion and kind must be strings and metadata must
 * decode as ObjectMeta; the metadata is then written back as the server reads it (unknown fields
 * dropped, times normalised, empty fields omitted, a zero creationTimestamp removed).
 */
import type { FieldError } from '../../../api/errors.ts';
import { compareGoStrings } from '../../../api/go/strings.ts';
import * as field from '../../../registry/validation/field.ts';
import type { FieldPath, PathLike } from '../../../registry/validation/field.ts';
import { propertyOf, type Structural } from '../structural.ts';
import { isJsonObject } from '../json.ts';
import { rootPath } from '../field-errors.ts';
import { getObjectMeta, setObjectMeta } from './object-meta-json.ts';

export interface CoerceOptions {
  /** Drop apiVersion/kind/metadata fields of the wrong type instead of failing (reading old objects). */
  dropInvalidFields?: boolean;
  /** Collect the paths of metadata fields ObjectMeta does not know. */
  returnUnknownFieldPaths?: boolean;
}

export interface CoerceResult {
  /** The first problem met (upstream stops there). */
  error?: FieldError;
  /** Sorted paths of unknown metadata fields (`spec.template.metadata.foo`), when asked for. */
  unknownFieldPaths: string[];
}

/**
 * Coerces, in place, the embedded TypeMeta/ObjectMeta of `obj` under `s`; with `isResourceRoot`
 * also the resource's own. `root` is the path of `obj` for error messages.
 *
 * @example
 * coerceEmbeddedObjectMeta(undefined, { spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x', foo: 1 } } } }, s, false, { returnUnknownFieldPaths: true })
 * // { unknownFieldPaths: ['spec.template.metadata.foo'] }, the foo field gone
 */
export function coerceEmbeddedObjectMeta(root: PathLike | undefined, obj: unknown, s: Structural | undefined, isResourceRoot: boolean, opts: CoerceOptions = {}): CoerceResult {
  let schema = s;
  let forceEmbedded = false;
  if (isResourceRoot) {
    if (!schema) schema = { type: '', nullable: false, xPreserveUnknownFields: false, xEmbeddedResource: true, xIntOrString: false };
    else forceEmbedded = !schema.xEmbeddedResource;
  }
  const unknown: string[] = [];
  const error = coerce(rootPath(root), obj, schema, forceEmbedded, opts, unknown);
  unknown.sort(compareGoStrings);
  return error ? { error, unknownFieldPaths: unknown } : { unknownFieldPaths: unknown };
}

function coerce(p: FieldPath, x: unknown, s: Structural | undefined, forceEmbedded: boolean, opts: CoerceOptions, unknown: string[]): FieldError | undefined {
  if (!s) return undefined;
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) {
      const v = x[i];
      if (typeof v !== 'object' || v === null) continue;
      const err = coerce(p.index(i), v, s.items, false, opts, unknown);
      if (err) return err;
    }
    return undefined;
  }
  if (!isJsonObject(x)) return undefined;
  const embedded = forceEmbedded || s.xEmbeddedResource;
  for (const k of Object.keys(x)) {
    if (embedded) {
      const err = coerceMetaField(p, x, k, opts, unknown);
      if (err) return err;
    }
    const v = x[k];
    const prop = propertyOf(s, k);
    if (prop) {
      if (typeof v === 'object' && v !== null) {
        const err = coerce(p.child(k), v, prop, false, opts, unknown);
        if (err) return err;
      }
    } else if (s.additionalProperties) {
      if (typeof v === 'object' && v !== null) {
        const err = coerce(p.key(k), v, s.additionalProperties.structural, false, opts, unknown);
        if (err) return err;
      }
    }
  }
  return undefined;
}

function coerceMetaField(p: FieldPath, x: Record<string, unknown>, k: string, opts: CoerceOptions, unknown: string[]): FieldError | undefined {
  if (k === 'apiVersion' || k === 'kind') {
    const v = x[k];
    if (typeof v === 'string') return undefined;
    if (opts.dropInvalidFields) {
      delete x[k];
      return undefined;
    }
    return field.invalid(p.child(k), v, 'must be a string');
  }
  if (k !== 'metadata') return undefined;
  const v = x.metadata;
  const got = getObjectMeta(x, {
    dropMalformedFields: opts.dropInvalidFields === true,
    returnUnknownFieldPaths: opts.returnUnknownFieldPaths === true,
    parentPath: String(p),
  });
  unknown.push(...got.unknownFields);
  if (got.error !== undefined) {
    // Dropping malformed fields passes a metadata that cannot be read at all through untouched.
    return opts.dropInvalidFields ? undefined : field.invalid(p.child('metadata'), v, got.error);
  }
  if (got.found && got.meta) {
    if (got.meta.creationTimestamp === null) delete got.meta.creationTimestamp;
    setObjectMeta(x, got.meta);
  }
  return undefined;
}
