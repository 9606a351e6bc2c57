import { badRequest, invalid } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { apiVersionOf, type KindDefinition } from './kind.ts';
import { dropNullFields } from './null-fields.ts';
import { findTypeError } from './type-check.ts';

/**
 * The checks a write body passes before any strategy runs: it is an object of this endpoint's
 * kind and version, its fields have the schema's JSON types, and its name and namespace agree with
 * the URL. Each failure is a 400 worded like the real decoder's. A body that passes has its null
 * fields dropped, as typed decoding would.
 */
export function checkTypeMeta(kind: KindDefinition, body: KubeObject): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('the request body must be a JSON object');
  const expected = apiVersionOf(kind);
  // Missing parts default to the endpoint's, as the decoder does; anything else names a type this
  // endpoint cannot decode, and the message is the real decoder's.
  const bodyKind = body.kind == null || body.kind === '' ? kind.kind : String(body.kind);
  const apiVersion = body.apiVersion == null || body.apiVersion === '' ? expected : String(body.apiVersion);
  const version = apiVersion.slice(apiVersion.indexOf('/') + 1);
  const cannot = `${bodyKind} in version ${JSON.stringify(version)} cannot be handled as a ${kind.kind}`;
  if (kind.decode) {
    // Unstructured decoding takes any kind: the handler checks the group version, validation the kind.
    if (apiVersion !== expected) throw badRequest(`the API version in the data (${apiVersion}) does not match the expected API version (${expected})`);
    if (bodyKind !== kind.kind) {
      const name = typeof body.metadata?.name === 'string' ? body.metadata.name : '';
      throw invalid(kind.group, kind.kind, name, [{ type: 'FieldValueInvalid', field: 'kind', value: bodyKind, detail: `must be ${kind.kind}` }]);
    }
  }
  if (bodyKind !== kind.kind || apiVersion !== expected) {
    throw badRequest(`${cannot}: no kind ${JSON.stringify(bodyKind)} is registered for version ${JSON.stringify(apiVersion)} in scheme "pkg/api/legacyscheme/scheme.go:30"`);
  }
  // A kind without Go types (custom resources) decodes as unstructured JSON: its own decoder prunes
  // and drops nulls by its schema, and types are judged by its validation.
  if (kind.decode) {
    kind.decode(body);
    return;
  }
  const typeError = findTypeError(kind.schema, body);
  if (typeError) throw badRequest(`${cannot}: ${typeError}`);
  dropNullFields(kind.schema, body);
}

/** An update names its object in the body too, and both names agree (upstream's checkName). */
export function checkName(meta: Record<string, unknown>, name: string): void {
  if (meta.name === undefined || meta.name === null || meta.name === '') {
    throw badRequest(`the name of the object (${name} based on URL) was undeterminable: name must be provided`);
  }
  if (meta.name !== name) throw badRequest(`the name of the object (${String(meta.name)}) does not match the name on the URL (${name})`);
}

/** Puts the URL's namespace on a namespaced object (a different one in the body is a 400) and clears it otherwise. */
export function checkNamespace(kind: KindDefinition, meta: Record<string, unknown>, namespace: string): void {
  if (!kind.namespaced) {
    delete meta.namespace;
    return;
  }
  if (meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  meta.namespace = namespace;
}
