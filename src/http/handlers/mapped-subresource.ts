/**
 * Subresources whose body is another kind mapped to and from the parent object (a custom
 * resource's scale, SubresourceDefinition.mapping): the parent's store reads and writes, the body is
 * decoded, patched and encoded as the subresource's kind.
 */
import type { Context } from 'koa';
import { ApiError, conflict, invalid, unsupportedMediaType } from '../../api/errors.ts';
import type { KubeObject } from '../../api/types.ts';
import { assertObjectDepth } from '../../codecs/deep-json.ts';
import { acceptedContentTypes, decodeBody, parseContentType } from '../../codecs/index.ts';
import { checkName, checkTypeMeta } from '../../registry/body-checks.ts';
import { strictDecodingMessage } from '../../registry/field-validation.ts';
import { apiVersionOf, subresourceOf, type KindDefinition, type SubresourceMapping } from '../../registry/kind.ts';
import { FieldManager } from '../../registry/managed-fields/index.ts';
import { parseResourceVersion } from '../../registry/list-options.ts';
import { applyPatch } from '../../registry/patch/apply-patch.ts';
import { readBody } from '../body.ts';
import { forWrite } from '../request-context.ts';
import { negotiate, writeObject } from '../respond.ts';
import { servesCbor, type RequestScope } from '../scope.ts';
import { applyFieldValidation, decodeObject, writeParams } from './decode-object.ts';
import { conditionalVersion, readApplyRequest } from './patch.ts';

/** The mapping of the subresource the request addresses, if it has one. */
export function mappingOf(scope: RequestScope): SubresourceMapping | undefined {
  return scope.info.subresource ? subresourceOf(scope.kind, scope.info.subresource)?.mapping : undefined;
}

/** The scope as the subresource's kind sees it (decoding, negotiation, encoding). */
function subScope(scope: RequestScope, mapping: SubresourceMapping): RequestScope {
  return { ...scope, kind: mapping.kind };
}

/** A resourceVersion in the body is a precondition on the parent, as upstream's scale update sets it on the object. */
function preconditionOf(body: KubeObject): number | undefined {
  const rv = body.metadata?.resourceVersion;
  return typeof rv === 'string' && rv !== '' ? parseResourceVersion(rv) : undefined;
}

/** Field managers of subresource kinds, one per kind and subresource name (upstream's scale scope has its own). */
const managers = new WeakMap<KindDefinition, Map<string, FieldManager>>();

function fieldManagerOf(kind: KindDefinition, subresource: string): FieldManager {
  let bySub = managers.get(kind);
  if (!bySub) managers.set(kind, (bySub = new Map()));
  let manager = bySub.get(subresource);
  if (!manager) bySub.set(subresource, (manager = new FieldManager({ schema: kind.schema, apiVersion: apiVersionOf(kind), kind: kind.kind, subresource })));
  return manager;
}

/** The subresource object a write starts from; with tracked managedFields, it carries the parent's mapped to it. */
function startingObject(mapping: SubresourceMapping, parent: KubeObject): KubeObject {
  const old = (mapping.forUpdate ?? mapping.toSubresource)(parent);
  if (mapping.managedFields) setEntries(old, mapping.managedFields.toSubresource(parent));
  return old;
}

/** The parent with the written subresource object in it; with tracked managedFields, the object's mapped back. */
function writtenParent(mapping: SubresourceMapping, body: KubeObject, parent: KubeObject): KubeObject {
  const built = mapping.fromSubresource(body, parent);
  if (mapping.managedFields) setEntries(built, mapping.managedFields.toParent(parent, body.metadata?.managedFields));
  return built;
}

function setEntries(obj: KubeObject, entries: unknown[] | undefined): void {
  const meta = (obj.metadata ??= {});
  if (entries) meta.managedFields = entries as NonNullable<typeof meta.managedFields>;
  else delete meta.managedFields;
}

/**
 * A write of the body over the stored parent. With tracked managedFields the subresource's field
 * manager records the writer (an Update) on the subresource's object, as upstream's scale scope
 * does, and the store records nothing more (`apply`: the build recorded them).
 */
function tracked(scope: RequestScope, mapping: SubresourceMapping, context: RequestScope['context'], body: (old: KubeObject, current: KubeObject) => KubeObject) {
  const fields = mapping.managedFields ? fieldManagerOf(mapping.kind, scope.info.subresource) : undefined;
  return {
    ...(fields ? { apply: true } : {}),
    build: (current: KubeObject | null) => {
      const old = startingObject(mapping, current!);
      let next = body(old, current!);
      if (fields) next = fields.update(old, next, scope.store.fields.managerOf(context)) as KubeObject;
      return writtenParent(mapping, next, current!);
    },
  };
}

export async function handleMappedGet(ctx: Context, scope: RequestScope, mapping: SubresourceMapping): Promise<void> {
  const sub = subScope(scope, mapping);
  const n = negotiate(ctx, sub, { allowTable: true });
  const found = await scope.store.get(scope.context, scope.info.namespace, scope.info.name);
  writeObject(ctx, mapping.kind, 200, mapping.toSubresource(found.object), undefined, n);
}

export async function handleMappedUpdate(ctx: Context, scope: RequestScope, mapping: SubresourceMapping): Promise<void> {
  const sub = subScope(scope, mapping);
  const n = negotiate(ctx, sub, { allowTable: true });
  const { object, dryRun, fieldManager } = await decodeObject(ctx, sub);
  checkTypeMeta(mapping.kind, object);
  checkName((object.metadata ??= {}) as Record<string, unknown>, scope.info.name);
  const context = forWrite(scope.context, { dryRun, fieldManager });
  const precondition = preconditionOf(object);
  const { stored } = await scope.store.update(context, scope.info.namespace, scope.info.name, {
    ...(precondition !== undefined ? { precondition } : {}),
    ...tracked(scope, mapping, context, () => object),
  });
  writeObject(ctx, mapping.kind, 200, mapping.toSubresource(stored.object), undefined, n);
}

export async function handleMappedPatch(ctx: Context, scope: RequestScope, mapping: SubresourceMapping): Promise<void> {
  const sub = subScope(scope, mapping);
  const n = negotiate(ctx, sub, { allowTable: true });
  // The body's kind is a built-in one, but the patch types are the parent's (a custom resource's
  // scale takes no strategic merge patch, as upstream's CRD handler); apply where managedFields are tracked.
  const allowStrategicMerge = mapping.kind.wire.strategicMergePatch && scope.kind.wire.strategicMergePatch;
  const wire = { patch: true as const, allowStrategicMerge, allowCbor: servesCbor(sub) };
  const format = parseContentType(ctx.get('content-type') || undefined, wire);
  const applies = mapping.managedFields !== undefined;
  if (format === 'apply-patch-yaml' && applies) return handleMappedApply(ctx, scope, mapping, n);
  if (format !== 'json-patch' && format !== 'merge-patch' && format !== 'strategic-merge-patch') {
    throw unsupportedMediaType(ctx.get('content-type'), acceptedContentTypes(wire).filter((t) => !t.includes(applies ? 'apply-patch+cbor' : 'apply-patch')));
  }
  const params = writeParams(ctx);
  const raw = await readBody(ctx, scope.settings.maxRequestBodyBytes);
  const patch = decodeBody(raw, format, { maxDecodedBytes: scope.settings.maxRequestBodyBytes });
  assertObjectDepth(patch, 'patch');
  const context = forWrite(scope.context, { dryRun: params.dryRun, fieldManager: params.fieldManager });
  const { stored } = await scope.store.update(context, scope.info.namespace, scope.info.name, {
    ...tracked(scope, mapping, context, (old, current) => {
      const patched = applyPatch(format, old, patch, mapping.kind.schema) as KubeObject;
      if (typeof patched !== 'object' || patched === null || Array.isArray(patched)) throw new ApiError(400, 'BadRequest', 'the patch did not produce an object');
      const patchedText = JSON.stringify(patched);
      applyFieldValidation(sub, patched, undefined, params.fieldValidation, [], (problems) =>
        invalid('', '', '', [{ type: 'FieldValueInvalid', field: 'patch', value: patchedText, detail: strictDecodingMessage(problems) }]),
      );
      checkTypeMeta(mapping.kind, patched);
      // Refused bodies first (as the scale's UpdatedObject), then a patch naming another resourceVersion
      // than the stored one is a conflict, as the scale's precondition.
      mapping.fromSubresource(patched, current);
      checkVersion(scope, patched, current);
      return patched;
    }),
  });
  writeObject(ctx, mapping.kind, 200, mapping.toSubresource(stored.object), undefined, n);
}

/** A subresource object naming another resourceVersion than the stored parent's: 409, as the precondition it sets. */
function checkVersion(scope: RequestScope, body: KubeObject, current: KubeObject): void {
  const rv = body.metadata?.resourceVersion;
  if (typeof rv === 'string' && rv !== '' && rv !== current.metadata?.resourceVersion) {
    throw conflict({ group: scope.kind.group, resource: scope.kind.plural }, scope.info.name);
  }
}

/**
 * Server-side apply of the subresource's kind (a custom resource's scale): the subresource's field
 * manager applies the configuration to the subresource object carrying the parent's managedFields
 * mapped to it (conflicts with the parent's owners of the mapped field included), and the result,
 * managedFields mapped back, is written into the parent, as upstream's scale handling does.
 */
async function handleMappedApply(ctx: Context, scope: RequestScope, mapping: SubresourceMapping, n: ReturnType<typeof negotiate>): Promise<void> {
  const { manager, params, force, config } = await readApplyRequest(ctx, scope);
  assertObjectDepth(config, 'patch');
  const context = forWrite(scope.context, { dryRun: params.dryRun, fieldManager: params.fieldManager });
  const fields = fieldManagerOf(mapping.kind, scope.info.subresource);
  const precondition = conditionalVersion(config, 'apply-patch-yaml');
  const { stored } = await scope.store.update(context, scope.info.namespace, scope.info.name, {
    apply: true,
    ...(precondition !== undefined ? { precondition } : {}),
    build: (current) => {
      const old = startingObject(mapping, current!);
      const applied = fields.apply(old, config, manager, force) as KubeObject;
      const built = writtenParent(mapping, applied, current!);
      checkVersion(scope, applied, current!);
      return built;
    },
  });
  writeObject(ctx, mapping.kind, 200, mapping.toSubresource(stored.object), undefined, n);
}
