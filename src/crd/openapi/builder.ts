/**
 * The OpenAPI definitions of one served version of a CustomResourceDefinition, as
 * apiextensions-apiserver's pkg/controller/openapi/builder makes them: the kind and its list, named
 * `<reversed group>.<version>.<Kind>`.
 *
 * - The kind's schema is the version's openAPIV3Schema when it is structural (a schema with unknown
 *   types, that does not convert, or that is not structural publishes no properties), unfolded
 *   (x-kubernetes-int-or-string spelled as its anyOf), with apiVersion, kind and metadata (a
 *   reference to ObjectMeta) added, and the same three on every x-kubernetes-embedded-resource.
 * - OpenAPI v2 gets the schema rewritten by toStructuralOpenAPIV2 and its defaults pruned; a root
 *   that preserves unknown fields (or a CRD with spec.preserveUnknownFields) is published as a bare
 *   `type: object`, since kubectl's v2 validation would refuse every field it cannot name.
 * - Both carry `x-kubernetes-group-version-kind`, and `x-kubernetes-selectable-fields` when the
 *   version declares selectable fields (CustomResourceFieldSelectors is GA).
 */
import { API_VERSION_DESCRIPTION, KIND_FIELD_DESCRIPTION } from '../../schema/descriptions/describe.ts';
import { schemaHasInvalidTypes } from '../schema/crd-ratchets.ts';
import { tryToStructural } from '../schema/convert.ts';
import { unfold } from '../schema/transform.ts';
import { validateStructural } from '../schema/validate-structural.ts';
import type { Structural } from '../schema/structural.ts';
import type { CrdVersion, CustomResourceDefinition } from '../validation/types.ts';
import { customResourceDefinitionName } from './names.ts';
import { inSchemaKeyOrder, structuralToJson, type JsonSchema } from './schema-json.ts';
import { toStructuralOpenAPIV2 } from './v2-conversion.ts';

export type { JsonSchema } from './schema-json.ts';

/** The definitions a custom resource's schemas refer to (by their published names). */
export const OBJECT_META_DEFINITION = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
export const LIST_META_DEFINITION = 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta';

const OBJECT_METADATA_DESCRIPTION = 'Standard object metadata: name, namespace, labels, annotations and the fields the server sets.';
const LIST_METADATA_DESCRIPTION = "The list's metadata: its resource version and continue token.";

export interface CustomResourceOpenApiOptions {
  /** Build for OpenAPI v2 (`#/definitions/`) rather than v3 (`#/components/schemas/`). */
  readonly v2: boolean;
  /** Publish `x-kubernetes-selectable-fields` (the CustomResourceFieldSelectors gate; default true). */
  readonly includeSelectableFields?: boolean;
}

export interface CustomResourceSchemas {
  /** `com.example.stable.v1.CronTab`. */
  readonly kindDefinition: string;
  /** `com.example.stable.v1.CronTabList`. */
  readonly listDefinition: string;
  /** The kind's and the list's schemas, by definition name. */
  readonly definitions: Readonly<Record<string, JsonSchema>>;
}

/** The version's schema when the builder would publish it: structural, of known types, unfolded. */
export function publishableSchema(version: CrdVersion): Structural | undefined {
  const props = version.schema?.openAPIV3Schema;
  if (!props || schemaHasInvalidTypes(props)) return undefined;
  const converted = tryToStructural(props);
  if ('error' in converted) return undefined;
  if (validateStructural(undefined, converted.structural).length > 0) return undefined;
  return unfold(converted.structural);
}

function ref(v2: boolean, definition: string, description: string): JsonSchema {
  const target = `${v2 ? '#/definitions/' : '#/components/schemas/'}${definition}`;
  // OpenAPI v3 cannot put a description beside a $ref: kube-openapi wraps the reference in allOf.
  return v2 ? { $ref: target, description } : { description, allOf: [{ $ref: target }] };
}

/** Adds properties to a schema, keeping them sorted and the schema's keys in kube-openapi's order. */
function withProperties(s: JsonSchema, add: Record<string, JsonSchema>): void {
  const merged = { ...((s.properties as Record<string, JsonSchema> | undefined) ?? {}), ...add };
  const sorted: Record<string, JsonSchema> = {};
  for (const k of Object.keys(merged).sort()) sorted[k] = merged[k]!;
  s.properties = sorted;
  inSchemaKeyOrder(s);
}

function typeMeta(): Record<string, JsonSchema> {
  return {
    apiVersion: { description: API_VERSION_DESCRIPTION, type: 'string' },
    kind: { description: KIND_FIELD_DESCRIPTION, type: 'string' },
  };
}

/** apiVersion, kind and metadata on every embedded resource (upstream's addEmbeddedProperties). */
function addEmbeddedProperties(s: JsonSchema, v2: boolean): void {
  const props = s.properties as Record<string, JsonSchema> | undefined;
  if (props) for (const child of Object.values(props)) addEmbeddedProperties(child, v2);
  if (s.items && typeof s.items === 'object') addEmbeddedProperties(s.items as JsonSchema, v2);
  if (s.additionalProperties && typeof s.additionalProperties === 'object') addEmbeddedProperties(s.additionalProperties as JsonSchema, v2);
  // In v2 such a node keeps no properties: adding these would make kubectl refuse the unknown ones.
  if (v2 && s['x-kubernetes-preserve-unknown-fields'] === true) return;
  if (s['x-kubernetes-embedded-resource'] !== true) return;
  withProperties(s, { ...typeMeta(), metadata: ref(v2, OBJECT_META_DEFINITION, OBJECT_METADATA_DESCRIPTION) });
  const required = [...((s.required as string[] | undefined) ?? [])];
  if (!required.includes('kind')) required.push('kind');
  if (!required.includes('apiVersion')) required.push('apiVersion');
  s.required = required;
  inSchemaKeyOrder(s);
}

/** Removes every `default` (kube-openapi's PruneDefaults, applied to the v2 document). */
function pruneDefaults(s: JsonSchema): void {
  delete s.default;
  const props = s.properties as Record<string, JsonSchema> | undefined;
  if (props) for (const child of Object.values(props)) pruneDefaults(child);
  if (s.items && typeof s.items === 'object') pruneDefaults(s.items as JsonSchema);
  if (s.additionalProperties && typeof s.additionalProperties === 'object') pruneDefaults(s.additionalProperties as JsonSchema);
  for (const j of ['allOf', 'oneOf', 'anyOf'] as const) for (const n of (s[j] as JsonSchema[] | undefined) ?? []) pruneDefaults(n);
  if (s.not) pruneDefaults(s.not as JsonSchema);
}

function kindSchema(crd: CustomResourceDefinition, version: CrdVersion, opts: CustomResourceOpenApiOptions): JsonSchema {
  const v2 = opts.v2;
  const structural = publishableSchema(version);
  let out: JsonSchema;
  if (!structural || (v2 && (structural.xPreserveUnknownFields || crd.spec?.preserveUnknownFields === true))) {
    out = { type: 'object' };
  } else {
    out = structuralToJson(v2 ? toStructuralOpenAPIV2(structural) : structural);
    withProperties(out, { metadata: ref(v2, OBJECT_META_DEFINITION, OBJECT_METADATA_DESCRIPTION), ...typeMeta() });
    addEmbeddedProperties(out, v2);
    if (v2) pruneDefaults(out);
  }
  out['x-kubernetes-group-version-kind'] = [{ group: crd.spec?.group ?? '', kind: crd.spec?.names?.kind ?? '', version: version.name ?? '' }];
  const selectable = version.selectableFields ?? [];
  if ((opts.includeSelectableFields ?? true) && selectable.length > 0) {
    out['x-kubernetes-selectable-fields'] = selectable.map((f) => ({ fieldPath: (f.jsonPath ?? '').replace(/^\./, '') }));
  }
  return out;
}

function listSchema(crd: CustomResourceDefinition, version: CrdVersion, kindDefinition: string, v2: boolean): JsonSchema {
  const kind = crd.spec?.names?.kind ?? '';
  const listKind = crd.spec?.names?.listKind || `${kind}List`;
  const itemsRef = `${v2 ? '#/definitions/' : '#/components/schemas/'}${kindDefinition}`;
  return {
    description: `A list of ${kind} objects.`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: { description: API_VERSION_DESCRIPTION, type: 'string' },
      items: { description: `The ${kind} objects.`, type: 'array', items: { $ref: itemsRef } },
      kind: { description: KIND_FIELD_DESCRIPTION, type: 'string' },
      metadata: ref(v2, LIST_META_DEFINITION, LIST_METADATA_DESCRIPTION),
    },
    'x-kubernetes-group-version-kind': [{ group: crd.spec?.group ?? '', kind: listKind, version: version.name ?? '' }],
  };
}

/**
 * The definitions of the CRD's version `versionName` (served or not: callers pick the served ones).
 *
 * @example
 * const { definitions } = customResourceSchemas(crd, 'v1', { v2: false });
 * definitions['com.example.stable.v1.CronTab'].properties.spec
 */
export function customResourceSchemas(crd: CustomResourceDefinition, versionName: string, opts: CustomResourceOpenApiOptions): CustomResourceSchemas {
  const version = (crd.spec?.versions ?? []).find((v) => v.name === versionName) ?? { name: versionName };
  const group = crd.spec?.group ?? '';
  const kind = crd.spec?.names?.kind ?? '';
  const listKind = crd.spec?.names?.listKind || `${kind}List`;
  const kindDefinition = customResourceDefinitionName(group, versionName, kind);
  const listDefinition = customResourceDefinitionName(group, versionName, listKind);
  return {
    kindDefinition,
    listDefinition,
    definitions: {
      [kindDefinition]: kindSchema(crd, version, opts),
      [listDefinition]: listSchema(crd, version, kindDefinition, opts.v2),
    },
  };
}
