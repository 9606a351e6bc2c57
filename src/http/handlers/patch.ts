import type { Context } from 'koa';
import { ApiError, invalid, unsupportedMediaType } from '../../api/errors.ts';
import type { KubeObject } from '../../api/types.ts';
import { assertObjectDepth } from '../../codecs/deep-json.ts';
import { acceptedContentTypes, decodeBody, parseContentType } from '../../codecs/index.ts';
import { applyPatch } from '../../registry/patch/apply-patch.ts';
import { findTypeError } from '../../registry/type-check.ts';
import { readBody } from '../body.ts';
import { negotiate, writeCommitted } from '../respond.ts';
import { forWrite } from '../request-context.ts';
import { servesCbor, type RequestScope } from '../scope.ts';
import { applyFieldValidation, writeParams } from './decode-object.ts';

type PatchKind = 'json-patch' | 'merge-patch' | 'strategic-merge-patch';

/**
 * PATCH: applies the patch to the current object and writes the result through the store. A patch
 * that names metadata.resourceVersion is conditional (409 on mismatch); otherwise concurrent writes
 * are retried against the fresh object.
 */
export async function handlePatch(ctx: Context, scope: RequestScope): Promise<void> {
  const negotiated = negotiate(ctx, scope, { allowTable: true });
  const params = writeParams(ctx);
  // A kind without strategic merge patch (custom resources) does not list it among the types it takes.
  const wire = { patch: true as const, allowStrategicMerge: scope.kind.wire.strategicMergePatch, allowCbor: servesCbor(scope) };
  const format = parseContentType(ctx.get('content-type') || undefined, wire);
  if (format !== 'json-patch' && format !== 'merge-patch' && format !== 'strategic-merge-patch') {
    // Server-side apply arrives with the managed-fields machinery; until then say so plainly.
    throw unsupportedMediaType(ctx.get('content-type'), acceptedContentTypes(wire).filter((t) => !t.includes('apply-patch')));
  }
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
      const typeError = findTypeError(scope.kind.schema, patched);
      if (typeError) {
        throw invalid('', '', '', [{ type: 'FieldValueInvalid', field: 'patch', value: JSON.stringify(patched), detail: typeError }]);
      }
      applyFieldValidation(scope, patched, undefined, params.fieldValidation);
      return patched;
    },
  });
  writeCommitted(ctx, scope, 200, stored.object, stored.text, negotiated);
}

/** A merge-style patch that sets metadata.resourceVersion asks for a conditional update. */
function conditionalVersion(patch: unknown, format: string): number | undefined {
  if (format === 'json-patch' || !patch || typeof patch !== 'object') return undefined;
  const rv = (patch as { metadata?: { resourceVersion?: unknown } }).metadata?.resourceVersion;
  if (typeof rv !== 'string' || rv === '') return undefined;
  if (!/^\d+$/.test(rv)) throw new ApiError(400, 'BadRequest', `invalid resourceVersion ${JSON.stringify(rv)} in patch`);
  return Number(rv);
}
