/**
 * OpenAPI v3: the `/openapi/v3` index and one document per group-version (`api/v1`,
 * `apis/coordination.k8s.io/v1`), plus the root documents `api`, `apis` and `apis/<group>`.
 *
 * kubectl (1.27+) decides whether the server validates fields by fetching the document of the object's
 * group-version and looking, among the PATCH operations whose `x-kubernetes-group-version-kind` is the
 * object's, at the first one it meets for a query parameter named `fieldValidation`. Map order in Go is
 * random, so every PATCH of a kind (the object and its `/status`) carries the parameter at operation level.
 */
import { createHash } from 'node:crypto';
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
import { cmp, gvPath, sortedRecord, sortKinds } from './names.ts';
import { customResourceDefinitions, customResourcePaths, customResourceReferences, isCustomResource, withScaleKind } from './custom-resources.ts';
import { kindPaths, PARAMS, PATCH_CONTENT_TYPES, type Operation, type PathSpec } from './routes.ts';
import { buildDefinitions, refTo, STATUS, type JsonSchema, type SchemaFlavor } from './schemas.ts';

export type { OpenApiOptions } from './common.ts';

const FLAVOR: SchemaFlavor = { refPrefix: '#/components/schemas/', v3: true };
const CODE_TEXT = { '200': 'OK', '201': 'Created', '202': 'Accepted' } as const;

export type OpenApiV3Document = Record<string, unknown>;

/** `{"paths": {"api/v1": {"serverRelativeURL": "/openapi/v3/api/v1?hash=…"}, …}}` */
export interface OpenApiV3Index {
  paths: Record<string, { serverRelativeURL: string }>;
}

function param(name: string, required = PARAMS[name].in === 'path'): JsonSchema {
  const p = PARAMS[name];
  return { description: p.description, in: p.in, name, ...(required ? { required: true } : {}),
    schema: { type: p.type, uniqueItems: true } };
}

function content(schema: JsonSchema, types: readonly string[]): Record<string, { schema: JsonSchema }> {
  return Object.fromEntries(types.map((t) => [t, { schema }]));
}

function operation(op: Operation): JsonSchema {
  const responseSchema = refTo(FLAVOR, op.response);
  const types = op.produces ?? (op.watchable ? [...MEDIA_TYPES, ...WATCH_MEDIA_TYPES].sort(cmp) : MEDIA_TYPES);
  const responses: Record<string, unknown> = {};
  for (const code of op.codes) responses[code] = { content: content(responseSchema, types), description: CODE_TEXT[code] };
  responses['401'] = { description: 'Unauthorized' };
  const out: JsonSchema = { description: op.description, operationId: op.operationId };
  if (op.query.length) out.parameters = op.query.map((q) => param(q));
  if (op.body) {
    const types = op.consumes ?? (op.patch ? (op.patchTypes ?? PATCH_CONTENT_TYPES) : ['*/*']);
    out.requestBody = { content: content(refTo(FLAVOR, op.body), types), ...(op.bodyOptional ? {} : { required: true }) };
  }
  out.responses = responses;
  out.tags = [op.tag];
  out['x-kubernetes-action'] = op.action;
  out['x-kubernetes-group-version-kind'] = { group: op.gvk.group, kind: op.gvk.kind, version: op.gvk.version };
  return out;
}

function discoveryItem(d: DiscoveryPath): JsonSchema {
  return { get: { description: d.description, operationId: d.operationId, responses: {
    '200': { content: content(refTo(FLAVOR, d.response), ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf']), description: 'OK' },
    '401': { description: 'Unauthorized' },
  }, tags: [d.tag] } };
}

function document(paths: Record<string, JsonSchema>, roots: Set<string>, kinds: readonly KindDefinition[],
  options: OpenApiOptions, customResources: readonly KindDefinition[] = []): OpenApiV3Document {
  let schemas = buildDefinitions(FLAVOR, [...roots].sort(cmp), customResources.length ? withScaleKind(gvkMap(kinds)) : gvkMap(kinds));
  if (customResources.length) schemas = sortedRecord({ ...schemas, ...customResourceDefinitions(customResources, false) });
  return {
    openapi: '3.0.0',
    info: info(options),
    paths: sortedRecord(paths),
    components: {
      schemas,
      securitySchemes: { BearerToken: BEARER_TOKEN },
    },
    security: [{ BearerToken: [] }],
  };
}

function pathItem(spec: PathSpec): JsonSchema {
  const item: JsonSchema = {};
  for (const op of spec.operations) item[op.method] = operation(op);
  item.parameters = spec.params.map((p) => param(p));
  return sortedRecord(item);
}

/** The routes of custom resource kinds into `paths`, and the built-in messages they refer to into `roots`. */
function addCustomResources(customResources: readonly KindDefinition[], paths: Record<string, JsonSchema>, roots: Set<string>): void {
  for (const kind of customResources) {
    for (const spec of customResourcePaths(kind)) paths[spec.path] = pathItem(spec);
    for (const message of customResourceReferences(kind)) roots.add(message);
  }
}

function groupVersionDocument(kinds: readonly KindDefinition[], group: string, version: string,
  options: OpenApiOptions, customResources: readonly KindDefinition[] = []): OpenApiV3Document {
  const paths: Record<string, JsonSchema> = {};
  const roots = new Set<string>([STATUS]);
  const resources = resourcesPath(group, version);
  paths[resources.path] = discoveryItem(resources);
  roots.add(resources.response);
  for (const kind of kinds) {
    for (const spec of kindPaths(kind)) {
      const item: JsonSchema = {};
      for (const op of spec.operations) {
        item[op.method] = operation(op);
        roots.add(op.response);
        if (op.body) roots.add(op.body);
      }
      item.parameters = spec.params.map((p) => param(p));
      paths[spec.path] = sortedRecord(item);
    }
  }
  addCustomResources(customResources, paths, roots);
  return document(paths, roots, kinds, options, customResources);
}

/** The info of a group version only custom resources serve (apiextensions-apiserver's builder's). */
const CRD_INFO = { title: 'Kubernetes CRD Swagger', version: 'v0.1.0' };

/**
 * The document of a group version only custom resources serve: apiextensions-apiserver publishes
 * it alone, with its builder's info and without security or a discovery path; the built-in
 * definitions it refers to carry the group-version-kinds of the built-in kinds, as client-go's
 * scheme names them.
 */
function customResourceDocument(customResources: readonly KindDefinition[], builtins: readonly KindDefinition[]): OpenApiV3Document {
  const paths: Record<string, JsonSchema> = {};
  const roots = new Set<string>();
  addCustomResources(customResources, paths, roots);
  const schemas = sortedRecord({
    ...buildDefinitions(FLAVOR, [...roots].sort(cmp), withScaleKind(gvkMap(builtins))),
    ...customResourceDefinitions(customResources, false),
  });
  return { openapi: '3.0.0', info: CRD_INFO, paths: sortedRecord(paths), components: { schemas } };
}

function discoveryDocument(d: DiscoveryPath, options: OpenApiOptions): OpenApiV3Document {
  return document({ [d.path]: discoveryItem(d) }, new Set([d.response]), [], options);
}

/** The keys of `/openapi/v3`, sorted: `api`, `api/v1`, `apis`, `apis/<group>`, `apis/<group>/<version>`. */
export function openapiV3Paths(kinds: readonly KindDefinition[]): string[] {
  const out = new Set<string>(['api', 'apis']);
  for (const k of kinds) {
    out.add(gvPath(k.group, k.version));
    // Custom resource groups get no group document: apiextensions-apiserver publishes group versions only.
    if (k.group && !isCustomResource(k)) out.add(`apis/${k.group}`);
  }
  return [...out].sort(cmp);
}

/**
 * The OpenAPI 3.0 document served at `/openapi/v3/<path>`, or undefined for a path the kinds do not make.
 * A plain object: build it once at startup and keep `JSON.stringify(doc)` (see `buildOpenapiV3`).
 */
export function openapiV3Document(kinds: readonly KindDefinition[], path: string,
  options: OpenApiOptions = {}): OpenApiV3Document | undefined {
  const sorted = sortKinds(kinds);
  if (path === 'api') return discoveryDocument(coreVersionsPath(), options);
  if (path === 'apis') return discoveryDocument(groupListPath(), options);
  const parts = path.split('/');
  if (parts[0] === 'apis' && parts.length === 2) {
    return sorted.some((k) => k.group === parts[1] && !isCustomResource(k)) ? discoveryDocument(groupPath(parts[1]), options) : undefined;
  }
  const [group, version] = parts[0] === 'api' && parts.length === 2 ? ['', parts[1]]
    : parts[0] === 'apis' && parts.length === 3 ? [parts[1], parts[2]] : [undefined, undefined];
  if (version === undefined) return undefined;
  const gvKinds = sorted.filter((k) => k.group === group && k.version === version);
  const builtins = gvKinds.filter((k) => !isCustomResource(k));
  const customResources = gvKinds.filter(isCustomResource);
  if (builtins.length) return groupVersionDocument(builtins, group!, version, options, customResources);
  return customResources.length ? customResourceDocument(customResources, sorted.filter((k) => !isCustomResource(k))) : undefined;
}

/** The hash kube-apiserver puts in `serverRelativeURL`: SHA-512 of the served JSON, upper-case hex. */
export function openapiV3Hash(json: string): string {
  return createHash('sha512').update(json).digest('hex').toUpperCase();
}

export interface OpenApiV3Entry {
  readonly document: OpenApiV3Document;
  /** The exact body to serve; `hash` is computed from it. */
  readonly json: string;
  readonly hash: string;
}

/** Every document and the index, built once: what the HTTP layer should keep and serve. */
export function buildOpenapiV3(kinds: readonly KindDefinition[], options: OpenApiOptions = {}):
  { index: OpenApiV3Index; documents: Map<string, OpenApiV3Entry> } {
  const documents = new Map<string, OpenApiV3Entry>();
  const index: OpenApiV3Index = { paths: {} };
  for (const path of openapiV3Paths(kinds)) {
    const document = openapiV3Document(kinds, path, options);
    if (!document) continue;
    const json = JSON.stringify(document);
    const hash = openapiV3Hash(json);
    documents.set(path, { document, json, hash });
    index.paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${hash}` };
  }
  return { index, documents };
}

/** The `/openapi/v3` discovery document, with the content hash of each document (as served by `buildOpenapiV3`). */
export function openapiV3Index(kinds: readonly KindDefinition[], options: OpenApiOptions = {}): OpenApiV3Index {
  return buildOpenapiV3(kinds, options).index;
}
