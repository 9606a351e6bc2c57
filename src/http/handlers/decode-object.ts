import type { Context } from 'koa';
import { invalid, type FieldError } from '../../api/errors.ts';
import type { KubeObject } from '../../api/types.ts';
import { assertObjectDepth } from '../../codecs/deep-json.ts';
import { decodeBody, parseContentType } from '../../codecs/index.ts';
import { duplicateYamlKeys } from '../../codecs/yaml-keys.ts';
import { decodeProtobufObject } from '../../codecs/protobuf/index.ts';
import { dryRunErrors } from '../../registry/delete-options.ts';
import {
  fieldProblemText,
  findFieldProblems,
  parseFieldValidation,
  removeUnknownFields,
  strictDecodingError,
  type FieldProblem,
} from '../../registry/field-validation.ts';
import { apiVersionOf } from '../../registry/kind.ts';
import { fieldManagerErrors } from '../../registry/managed-fields/validate-managed-fields.ts';
import { readBody } from '../body.ts';
import { servesCbor, type ApiState, type RequestScope } from '../scope.ts';
import { queryParams } from '../query-params.ts';

export interface DecodedWrite {
  readonly object: KubeObject;
  readonly dryRun: boolean;
  readonly fieldManager?: string;
}

const OPTIONS_KIND: Record<string, string> = { create: 'CreateOptions', update: 'UpdateOptions', patch: 'PatchOptions' };

/**
 * Query parameters every write shares: dryRun (All or unset) and fieldValidation. Bad values are
 * 422 Invalid on the verb's options kind (`CreateOptions.meta.k8s.io "" is invalid: …`), as upstream.
 */
export function writeParams(ctx: Context, leading: readonly FieldError[] = []): { dryRun: boolean; fieldManager?: string; fieldValidation: 'Ignore' | 'Warn' | 'Strict' } {
  const query = queryParams(ctx);
  const { dryRun, errors: dryRunProblems } = dryRunErrors(query.getAll('dryRun'));
  // Upstream's order: the verb's own rules (`leading`: PATCH's force and apply's fieldManager), fieldManager, dryRun, fieldValidation.
  const fieldManager = query.get('fieldManager') ?? '';
  const errors = [...leading, ...fieldManagerErrors(fieldManager, 'fieldManager'), ...dryRunProblems];
  const raw = query.get('fieldValidation');
  const fieldValidation = parseFieldValidation(raw);
  if (!fieldValidation) {
    errors.push({ type: 'FieldValueNotSupported', field: 'fieldValidation', value: raw, detail: 'supported values: "", "Ignore", "Strict", "Warn"' });
  }
  if (errors.length > 0 || !fieldValidation) {
    const verb = (ctx.state as ApiState).requestInfo.verb;
    throw invalid('meta.k8s.io', OPTIONS_KIND[verb] ?? 'CreateOptions', '', errors);
  }
  return { dryRun, fieldValidation, ...(fieldManager ? { fieldManager } : {}) };
}

/**
 * Reads and decodes the body of a create or update: media type (415), size (413), syntax (400),
 * then unknown and duplicate fields by the fieldValidation directive (dropped, warned, or 400).
 */
export async function decodeObject(ctx: Context, scope: RequestScope): Promise<DecodedWrite> {
  const params = writeParams(ctx);
  const format = parseContentType(ctx.get('content-type') || undefined, { allowYaml: true, allowProtobuf: scope.kind.wire.protobuf, allowCbor: servesCbor(scope) });
  const raw = await readBody(ctx, scope.settings.maxRequestBodyBytes);
  if (format === 'protobuf') {
    // Protobuf has no unknown or duplicate fields to report: the schema is the wire format.
    const decoded = decodeProtobufObject(raw, { expect: { apiVersion: apiVersionOf(scope.kind), kind: scope.kind.kind } });
    assertObjectDepth(decoded.object, 'object');
    return { object: decoded.object as KubeObject, dryRun: params.dryRun, fieldManager: params.fieldManager };
  }
  const object = decodeBody(raw, format, { expectKind: scope.kind.kind, maxDecodedBytes: scope.settings.maxRequestBodyBytes }) as KubeObject;
  // YAML's duplicate keys are gone once it is JSON: they are found in the YAML text (not under Ignore).
  const yamlDuplicates = format === 'yaml' && params.fieldValidation !== 'Ignore' ? duplicateYamlKeys(raw.toString('utf8')) : [];
  applyFieldValidation(scope, object, format === 'json' ? raw.toString('utf8') : undefined, params.fieldValidation, yamlDuplicates);
  // After unknown fields are gone: what is left is kept, and must fit what the rest of the path can walk.
  assertObjectDepth(object, 'object');
  return { object, dryRun: params.dryRun, fieldManager: params.fieldManager };
}

/**
 * Applies a fieldValidation directive to a decoded object (JSON text, when there was one, finds
 * duplicates too; a YAML body's duplicate keys come as yaml.v2 words them and go first, as upstream's).
 */
export function applyFieldValidation(
  scope: RequestScope,
  object: KubeObject,
  jsonText: string | undefined,
  directive: 'Ignore' | 'Warn' | 'Strict',
  yamlDuplicates: readonly string[] = [],
  refuse?: (problems: readonly (FieldProblem | string)[]) => Error,
): void {
  const decode = scope.kind.decode;
  if (directive === 'Ignore') {
    if (decode) decode(object);
    else removeUnknownFields(scope.kind.schema, object);
    return;
  }
  let problems: FieldProblem[];
  if (decode) {
    // Unstructured decoding: JSON's duplicate fields first, then what the kind's decoder pruned (upstream's order).
    const duplicates = jsonText !== undefined ? findFieldProblems(scope.kind.schema, jsonText).filter((p) => p.kind !== 'unknown') : [];
    problems = [...duplicates, ...decode(object).map((path) => ({ kind: 'unknown' as const, path }))];
  } else if (jsonText !== undefined) {
    problems = findFieldProblems(scope.kind.schema, jsonText);
    if (problems.length > 0) removeUnknownFields(scope.kind.schema, object);
  } else {
    // YAML reaches the decoder as JSON made from a Go map, whose keys are sorted: so are its problems.
    problems = removeUnknownFields(scope.kind.schema, object)
      .sort()
      .map((path) => ({ kind: 'unknown' as const, path }));
  }
  if (problems.length === 0 && yamlDuplicates.length === 0) return;
  if (directive === 'Strict') {
    if (refuse) throw refuse([...problems]);
    const declared = typeof object.kind === 'string' ? object.kind : scope.kind.kind;
    // transformDecodeError names the version alone (`Deployment in version "v1"`), never the group.
    const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : apiVersionOf(scope.kind);
    const version = apiVersion.slice(apiVersion.indexOf('/') + 1);
    // yaml.v2 reports its errors as one, lines indented under a heading.
    const yamlError = yamlDuplicates.length > 0 ? [`yaml: unmarshal errors:\n${yamlDuplicates.map((d) => `  ${d}`).join('\n')}`] : [];
    throw strictDecodingError(declared, version, scope.kind.kind, [...yamlError, ...problems]);
  }
  scope.context.warnings.push(...yamlDuplicates);
  for (const p of problems) scope.context.warnings.push(fieldProblemText(p));
}
