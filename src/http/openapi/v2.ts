/**
 * The Swagger 2.0 document served at `/openapi/v2` (JSON, or protobuf via `encodeOpenapiV2Protobuf`).
 * kubectl 1.27/1.28 use it for client-side validation (definitions with `x-kubernetes-group-version-kind`)
 * and, without OpenAPI v3, to find `fieldValidation` on each kind's PATCH operation.
 */
import type { KindDefinition } from '../../registry/kind.ts';
import {
  BEARER_TOKEN,
  coreVersionsPath,
  groupListPath,
  groupPath,
  gvkMap,
  info,
  MEDIA_TYPES,
  resourcesPath,
  WATCH_MEDIA_TYPES,
  type DiscoveryPath,
  type OpenApiOptions,
} from './common.ts';
import { cmp, sortedRecord, sortKinds } from './names.ts';
import { customResourceDefinitions, customResourcePaths, customResourceReferences, isCustomResource, withScaleKind } from './custom-resources.ts';
import { kindPaths, PARAMS, PATCH_CONTENT_TYPES, type Operation, type PathSpec } from './routes.ts';
import { buildDefinitions, refTo, STATUS, type JsonSchema, type SchemaFlavor } from './schemas.ts';

const FLAVOR: SchemaFlavor = { refPrefix: '#/definitions/', v3: false };
const CODE_TEXT = { '200': 'OK', '201': 'Created', '202': 'Accepted' } as const;

export type OpenApiV2Document = Record<string, unknown>;

function param(name: string): JsonSchema {
  const p = PARAMS[name];
  return { description: p.description, in: p.in, name, ...(p.in === 'path' ? { required: true } : {}),
    type: p.type, uniqueItems: true };
}

function operation(op: Operation): JsonSchema {
  const parameters: JsonSchema[] = [];
  if (op.body) {
    parameters.push({ in: 'body', name: 'body', ...(op.bodyOptional ? {} : { required: true }), schema: refTo(FLAVOR, op.body) });
  }
  for (const q of op.query) parameters.push(param(q));
  const responses: Record<string, unknown> = {};
  for (const code of op.codes) responses[code] = { description: CODE_TEXT[code], schema: refTo(FLAVOR, op.response) };
  responses['401'] = { description: 'Unauthorized' };
  const out: JsonSchema = {
    consumes: op.consumes ?? (op.patch ? (op.patchTypes ?? PATCH_CONTENT_TYPES) : ['*/*']),
    description: op.description,
    operationId: op.operationId,
  };
  if (parameters.length) out.parameters = parameters;
  out.produces = op.produces ?? (op.watchable ? [...MEDIA_TYPES, ...WATCH_MEDIA_TYPES] : MEDIA_TYPES);
  out.responses = responses;
  out.schemes = ['https'];
  out.tags = [op.tag];
  out['x-kubernetes-action'] = op.action;
  out['x-kubernetes-group-version-kind'] = { group: op.gvk.group, kind: op.gvk.kind, version: op.gvk.version };
  return out;
}

function discoveryItem(d: DiscoveryPath): JsonSchema {
  return { get: {
    consumes: ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'],
    description: d.description,
    operationId: d.operationId,
    produces: ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'],
    responses: { '200': { description: 'OK', schema: refTo(FLAVOR, d.response) }, '401': { description: 'Unauthorized' } },
    schemes: ['https'],
    tags: [d.tag],
  } };
}

function pathItem(spec: PathSpec): JsonSchema {
  const item: JsonSchema = {};
  for (const op of spec.operations) item[op.method] = operation(op);
  item.parameters = spec.params.map(param);
  return sortedRecord(item);
}

/**
 * The whole Swagger 2.0 document for the kinds: every route they support and the definitions of every
 * message those routes use. A plain object: build it once at startup and keep the serialized bytes.
 */
export function openapiV2Document(kinds: readonly KindDefinition[], options: OpenApiOptions = {}): OpenApiV2Document {
  const sorted = sortKinds(kinds.filter((k) => !isCustomResource(k)));
  const customResources = sortKinds(kinds.filter(isCustomResource));
  const paths: Record<string, JsonSchema> = {};
  const roots = new Set<string>([STATUS]);
  const discovery: DiscoveryPath[] = [coreVersionsPath(), groupListPath()];
  const gvs = new Map<string, { group: string; version: string }>();
  for (const k of sorted) gvs.set(`${k.group}/${k.version}`, { group: k.group, version: k.version });
  for (const { group, version } of gvs.values()) discovery.push(resourcesPath(group, version));
  for (const group of new Set(sorted.map((k) => k.group))) if (group) discovery.push(groupPath(group));
  for (const d of discovery) {
    paths[d.path] = discoveryItem(d);
    roots.add(d.response);
  }
  for (const kind of sorted) {
    for (const spec of kindPaths(kind)) {
      const item: JsonSchema = {};
      for (const op of spec.operations) {
        item[op.method] = operation(op);
        roots.add(op.response);
        if (op.body) roots.add(op.body);
      }
      item.parameters = spec.params.map(param);
      paths[spec.path] = sortedRecord(item);
    }
  }
  // Custom resources' routes join the paths; their own definitions come from their CRDs, and the
  // built-in ones they refer to (ObjectMeta, Scale, …) join the roots.
  for (const kind of customResources) {
    for (const spec of customResourcePaths(kind)) paths[spec.path] = pathItem(spec);
    for (const message of customResourceReferences(kind)) roots.add(message);
  }
  const gvks = customResources.length ? withScaleKind(gvkMap(sorted)) : gvkMap(sorted);
  let definitions = buildDefinitions(FLAVOR, [...roots].sort(cmp), gvks);
  if (customResources.length) definitions = sortedRecord({ ...definitions, ...customResourceDefinitions(customResources, true) });
  return {
    swagger: '2.0',
    info: info(options),
    paths: sortedRecord(paths),
    definitions,
    securityDefinitions: { BearerToken: BEARER_TOKEN },
    security: [{ BearerToken: [] }],
  };
}
