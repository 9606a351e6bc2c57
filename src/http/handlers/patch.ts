import type { Context } from 'koa';
import { ApiError, badRequest, conflict, invalid, unsupportedMediaType, type FieldError } from '../../api/errors.ts';
import type { KubeObject } from '../../api/types.ts';
import { assertObjectDepth } from '../../codecs/deep-json.ts';
import { acceptedContentTypes, decodeBody, parseContentType } from '../../codecs/index.ts';
import { applyPatch } from '../../registry/patch/apply-patch.ts';
import { checkName } from '../../registry/body-checks.ts';
import { duplicateYamlKeys } from '../../codecs/yaml-keys.ts';
import { findTypeError } from '../../registry/type-check.ts';
import { strictDecodingMessage } from '../../registry/field-validation.ts';
import { readBody } from '../body.ts';
import { negotiate, writeCommitted } from '../respond.ts';
import { forWrite } from '../request-context.ts';
import { servesCbor, type RequestScope } from '../scope.ts';
import { applyFieldValidation, writeParams } from './decode-object.ts';
import { handleMappedPatch, mappingOf } from './mapped-subresource.ts';
import { queryParams } from '../query-params.ts';

type PatchKind = 'json-patch' | 'merge-patch' | 'strategic-merge-patch';

/**
 * PATCH: applies the patch to the current object and writes the result through the store. A patch
 * that names metadata.resourceVersion is conditional (409 on mismatch); otherwise concurrent writes
 * are retried against the fresh object.
 */
export async function handlePatch(ctx: Context, scope: RequestScope): Promise<void> {
  const mapping = mappingOf(scope);
  if (mapping) return handleMappedPatch(ctx, scope, mapping);
  const negotiated = negotiate(ctx, scope, { allowTable: true });
  // A kind without strategic merge patch (custom resources) does not list it among the types it takes.
  const wire = { patch: true as const, allowStrategicMerge: scope.kind.wire.strategicMergePatch, allowCbor: servesCbor(scope) };
  const format = parseContentType(ctx.get('content-type') || undefined, wire);
  if (format === 'apply-patch-yaml') return handleApply(ctx, scope, negotiated);
  if (format !== 'json-patch' && format !== 'merge-patch' && format !== 'strategic-merge-patch') {
    // CBOR apply patches need the CBOR feature gates of upstream; JSON, merge, strategic and YAML apply are served.
    throw unsupportedMediaType(ctx.get('content-type'), acceptedContentTypes(wire).filter((t) => !t.includes('apply-patch+cbor')));
  }
  const params = writeParams(ctx, queryParams(ctx).has('force') ? [FORCE_NOT_APPLY] : []);
  const raw = await readBody(ctx, scope.settings.maxRequestBodyBytes);
  const patch = decodeBody(raw, format, { maxDecodedBytes: scope.settings.maxRequestBodyBytes });
  // Patching walks the patch recursively: bounded before it runs.
  assertObjectDepth(patch, 'patch');
  const precondition = conditionalVersion(patch, format);

  const context = forWrite(scope.context, { dryRun: params.dryRun, fieldManager: params.fieldManager });
  const { stored } = await scope.store.update(context, scope.info.namespace, scope.info.name, {
    precondition,
    build: (current) => {
      // A patch never creates: the store calls this with the stored object only.
      const patched = applyPatch(format as PatchKind, current!, patch, scope.kind.schema) as KubeObject;
      // A JSON patch can put a deep value under a deep path: the result is bounded too.
      assertObjectDepth(patched, 'object');
      // A patched result that does not decode is the patch's fault: 422 on the field "patch", as upstream.
      const typeError = scope.kind.decode ? undefined : findTypeError(scope.kind.schema, patched);
      if (typeError) {
        throw invalid('', '', '', [{ type: 'FieldValueInvalid', field: 'patch', value: JSON.stringify(patched), detail: typeError }]);
      }
      // Strict: upstream's jsonPatcher refuses the patched object, 422 on the field "patch" with its JSON.
      const patchedText = JSON.stringify(patched);
      applyFieldValidation(scope, patched, undefined, params.fieldValidation, [], (problems) =>
        invalid('', '', '', [{ type: 'FieldValueInvalid', field: 'patch', value: patchedText, detail: strictDecodingMessage(problems) }]),
      );
      return patched;
    },
  });
  writeCommitted(ctx, scope, 200, stored.object, stored.text, negotiated);
}

const FORCE_NOT_APPLY: FieldError = { type: 'FieldValueForbidden', field: 'force', detail: 'may not be specified for non-apply patch' };

/** Go's query-parameter bool: absent is unset; "0" and "false" (any case) are false, anything else true. */
function queryBool(value: string | null): boolean | undefined {
  if (value === null) return undefined;
  return !(value === '0' || value.toLowerCase() === 'false');
}

/**
 * Server-side apply (`application/apply-patch+yaml`): the body is the manager's whole intent; the
 * field manager merges it into the stored object (or an empty one: apply creates), takes ownership
 * and prunes what the manager no longer sets; conflicts with other managers are 409 unless `force`.
 */
async function handleApply(ctx: Context, scope: RequestScope, negotiated: ReturnType<typeof negotiate>): Promise<void> {
  const { manager, params, force, config } = await readApplyRequest(ctx, scope);
  const context = forWrite(scope.context, { dryRun: params.dryRun, fieldManager: params.fieldManager });
  const fields = scope.store.fields.forSubresource(context.subresource);
  const { stored, created } = await scope.store.update(context, scope.info.namespace, scope.info.name, {
    apply: true,
    // A resourceVersion in the configuration makes the write conditional, as it does for any update.
    precondition: conditionalVersion(config, 'apply-patch-yaml'),
    build: async (current) => {
      // Fields other managers recorded at another version are compared through the kind's conversion.
      const applied = (await fields.applyConverting(current, config, manager, force)) as KubeObject;
      const meta = (applied.metadata ??= {});
      if (current === null) {
        // Upstream's patcher: an apply that creates must not name a uid, and must name this object.
        if (meta.uid) throw conflict({ group: scope.kind.group, resource: scope.kind.plural }, scope.info.name, `uid mismatch: the provided object specified uid ${String(meta.uid)}, and no existing object was found`);
        checkName(meta, scope.info.name);
      }
      assertObjectDepth(applied, 'object');
      return applied;
    },
  });
  writeCommitted(ctx, scope, created ? 201 : 200, stored.object, stored.text, negotiated);
}

/** What an apply request carries: the manager (required), the write parameters, force, and the configuration. */
export interface ApplyRequest {
  readonly manager: string;
  readonly params: ReturnType<typeof writeParams>;
  readonly force: boolean;
  readonly config: KubeObject;
}

/**
 * Reads an apply request's parameters and body (YAML, duplicate keys refused or warned about as
 * fieldValidation says); shared with the subresources that take apply (mapped-subresource.ts).
 */
export async function readApplyRequest(ctx: Context, scope: RequestScope): Promise<ApplyRequest> {
  const manager = queryParams(ctx).get('fieldManager') ?? '';
  const leading: FieldError[] = manager === '' ? [{ type: 'FieldValueRequired', field: 'fieldManager', detail: 'is required for apply patch' }] : [];
  const params = writeParams(ctx, leading);
  const force = queryBool(queryParams(ctx).get('force')) ?? false;
  const raw = await readBody(ctx, scope.settings.maxRequestBodyBytes);
  const decoded = decodeBody(raw, 'apply-patch-yaml', { maxDecodedBytes: scope.settings.maxRequestBodyBytes });
  const config = applyConfiguration(decoded);
  assertObjectDepth(config, 'patch');
  if (params.fieldValidation !== 'Ignore') {
    // The configuration is a map: the only strict-decoding problem it can have is a repeated key.
    const duplicates = duplicateYamlKeys(raw.toString('utf8'));
    if (duplicates.length > 0) {
      const text = `yaml: unmarshal errors:\n${duplicates.map((d) => `  ${d}`).join('\n')}`;
      if (params.fieldValidation === 'Strict') throw badRequest(`error strict decoding YAML: error converting YAML to JSON: ${text}`);
      scope.context.warnings.push(...duplicates);
    }
  }
  return { manager, params, force, config };
}

/** The applied configuration must be a map, as upstream's YAML decoding into one; null is an empty one. */
function applyConfiguration(decoded: unknown): KubeObject {
  if (decoded === null || decoded === undefined) return {} as KubeObject;
  if (typeof decoded === 'object' && !Array.isArray(decoded)) return decoded as KubeObject;
  const goType = Array.isArray(decoded) ? 'array' : typeof decoded === 'string' ? 'string' : typeof decoded === 'number' ? 'number' : 'bool';
  throw badRequest(`error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${goType} into Go value of type map[string]interface {}`);
}

/** A merge-style patch that sets metadata.resourceVersion asks for a conditional update. */
export function conditionalVersion(patch: unknown, format: string): number | undefined {
  if (format === 'json-patch' || !patch || typeof patch !== 'object') return undefined;
  const rv = (patch as { metadata?: { resourceVersion?: unknown } }).metadata?.resourceVersion;
  if (typeof rv !== 'string' || rv === '') return undefined;
  if (!/^\d+$/.test(rv)) throw new ApiError(400, 'BadRequest', `invalid resourceVersion ${JSON.stringify(rv)} in patch`);
  return Number(rv);
}
