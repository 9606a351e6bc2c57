/**
 * The internal apiextensions view of a v1 CRD spec that upstream validates: converting from v1
 * hoists a schema, subresources, printer columns or selectable fields that every version has
 * identically to the top level (spec.validation, spec.subresources, spec.additionalPrinterColumns,
 * spec.selectableFields), and the webhook conversion settings to spec.conversion.webhookClientConfig
 * and spec.conversion.conversionReviewVersions. That is why errors about a schema shared by all
 * versions read `spec.validation.openAPIV3Schema…` even for a v1 CRD.
 */
import { goJson, goStruct } from '../../api/go/values.ts';
import { internalSchemaStruct } from '../schema/internal-json.ts';
import { deepEqualJson } from '../schema/json.ts';
import type { JSONSchemaProps } from '../schema/types.ts';
import type { CrdNames, CrdSpec, CrdSubresources, PrinterColumn, SelectableField, WebhookClientConfig } from './types.ts';

export interface InternalValidation {
  openAPIV3Schema?: JSONSchemaProps;
}

export interface InternalVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated: boolean;
  deprecationWarning?: string;
  schema?: InternalValidation;
  subresources?: CrdSubresources;
  additionalPrinterColumns?: PrinterColumn[];
  selectableFields?: SelectableField[];
}

export interface InternalConversion {
  strategy: string;
  webhookClientConfig?: WebhookClientConfig;
  conversionReviewVersions?: string[];
}

export interface InternalSpec {
  group: string;
  /** versions[0].name (the deprecated single-version field). */
  version: string;
  names: CrdNames;
  scope: string;
  validation?: InternalValidation;
  subresources?: CrdSubresources;
  versions: InternalVersion[];
  additionalPrinterColumns?: PrinterColumn[];
  selectableFields?: SelectableField[];
  conversion?: InternalConversion;
  /** A pointer upstream; v1 always sets it (false by default). */
  preserveUnknownFields?: boolean;
}

const present = <T>(v: T | null | undefined): v is T => v !== undefined && v !== null;
/** Semantic.DeepEqual: an empty list equals an absent one. */
const normalize = (v: unknown) => (Array.isArray(v) && v.length === 0 ? undefined : v ?? undefined);
const same = (a: unknown, b: unknown) => deepEqualJson(normalize(a) ?? null, normalize(b) ?? null);

/** Convert_v1_CustomResourceDefinitionSpec_To_apiextensions_CustomResourceDefinitionSpec. */
export function toInternalSpec(spec: CrdSpec): InternalSpec {
  const versions: InternalVersion[] = (spec.versions ?? []).map((v) => ({
    name: v?.name ?? '',
    served: v?.served === true,
    storage: v?.storage === true,
    deprecated: v?.deprecated === true,
    ...(present(v?.deprecationWarning) ? { deprecationWarning: v.deprecationWarning } : {}),
    ...(present(v?.schema) ? { schema: v.schema } : {}),
    ...(present(v?.subresources) ? { subresources: v.subresources } : {}),
    ...(v?.additionalPrinterColumns?.length ? { additionalPrinterColumns: v.additionalPrinterColumns } : {}),
    ...(v?.selectableFields?.length ? { selectableFields: v.selectableFields } : {}),
  }));
  const out: InternalSpec = {
    group: spec.group ?? '',
    version: versions[0]?.name ?? '',
    names: spec.names ?? {},
    scope: spec.scope ?? '',
    versions,
    ...(present(spec.preserveUnknownFields) ? { preserveUnknownFields: spec.preserveUnknownFields } : {}),
  };
  if (spec.conversion) {
    const webhook = spec.conversion.webhook;
    out.conversion = {
      strategy: spec.conversion.strategy ?? '',
      ...(present(webhook?.clientConfig) ? { webhookClientConfig: webhook.clientConfig } : {}),
      ...(present(webhook?.conversionReviewVersions) ? { conversionReviewVersions: webhook.conversionReviewVersions } : {}),
    };
  }
  if (versions.length === 0) return out;
  const first = versions[0]!;
  const hoist = <K extends 'schema' | 'subresources' | 'additionalPrinterColumns' | 'selectableFields'>(key: K, to: 'validation' | 'subresources' | 'additionalPrinterColumns' | 'selectableFields') => {
    if (!versions.every((v) => same(v[key], first[key]))) return;
    const value = first[key];
    if (value !== undefined) (out as unknown as Record<string, unknown>)[to] = value;
    for (const v of versions) delete v[key];
  };
  hoist('subresources', 'subresources');
  hoist('schema', 'validation');
  hoist('additionalPrinterColumns', 'additionalPrinterColumns');
  hoist('selectableFields', 'selectableFields');
  return out;
}

/** The schema a version is validated with (GetSchemaForVersion on the internal spec). */
export function schemaForVersion(spec: InternalSpec, name: string): JSONSchemaProps | undefined {
  if (spec.validation) return spec.validation.openAPIV3Schema;
  return spec.versions.find((v) => v.name === name)?.schema?.openAPIV3Schema;
}

/** Every schema of the spec, top-level and per version. */
export function allSchemas(spec: InternalSpec): JSONSchemaProps[] {
  const out: JSONSchemaProps[] = [];
  if (spec.validation?.openAPIV3Schema) out.push(spec.validation.openAPIV3Schema);
  for (const v of spec.versions) if (v.schema?.openAPIV3Schema) out.push(v.schema.openAPIV3Schema);
  return out;
}

function subresourcesStruct(s: CrdSubresources | undefined): unknown {
  if (!s) return null;
  const scale = s.scale;
  return goStruct({
    Status: s.status ? goStruct({}) : null,
    Scale: scale ? goStruct({ SpecReplicasPath: scale.specReplicasPath ?? '', StatusReplicasPath: scale.statusReplicasPath ?? '', LabelSelectorPath: scale.labelSelectorPath ?? null }) : null,
  });
}

/** How upstream prints `spec.Versions` as an error's value: json.Marshal of the internal structs (Go field names). */
export function versionsRawValue(versions: readonly InternalVersion[]): string {
  return goJson(
    versions.map((v) =>
      goStruct({
        Name: v.name,
        Served: v.served,
        Storage: v.storage,
        Deprecated: v.deprecated,
        DeprecationWarning: v.deprecationWarning ?? null,
        Schema: v.schema ? goStruct({ OpenAPIV3Schema: v.schema.openAPIV3Schema ? internalSchemaStruct(v.schema.openAPIV3Schema) : null }) : null,
        Subresources: subresourcesStruct(v.subresources),
        AdditionalPrinterColumns: v.additionalPrinterColumns
          ? v.additionalPrinterColumns.map((c) => goStruct({ Name: c.name ?? '', Type: c.type ?? '', Format: c.format ?? '', Description: c.description ?? '', Priority: c.priority ?? 0, JSONPath: c.jsonPath ?? '' }))
          : null,
        SelectableFields: v.selectableFields ? v.selectableFields.map((f) => goStruct({ JSONPath: f.jsonPath ?? '' })) : null,
      }),
    ),
  );
}
