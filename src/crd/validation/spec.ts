/**
 * validateCustomResourceDefinitionSpec on the internal view (internal.ts): group, scope, versions,
 * names, schemas, subresources, printer columns, selectable fields and conversion, in upstream's
 * order, with its paths and texts.
 */
import type { FieldError } from '../../api/errors.ts';
import { dns1035LabelErrors, dns1123SubdomainErrors } from '../../api/validation/names.ts';
import * as field from '../../registry/validation/field.ts';
import type { FieldPath } from '../../registry/validation/field.ts';
import type { PreexistingExpressions } from '../cel/index.ts';
import { schemaHas, tryToStructural, validateSelectableFields, type CrdSchemaOptions } from '../schema/index.ts';
import type { JSONSchemaProps } from '../schema/types.ts';
import { columnErrors, deprecationWarningProblems, subresourcesErrors } from './columns.ts';
import { conversionErrors } from './conversion.ts';
import { allSchemas, versionsRawValue, type InternalSpec, type InternalVersion } from './internal.ts';
import { namesErrors } from './names.ts';
import { schemaErrors } from './schema.ts';
import type { CrdSubresources, SelectableField } from './types.ts';
import { deepEqualJson } from '../schema/json.ts';

/** validationOptions: what a create requires, and what an update relaxes for CRDs stored before a rule. */
export interface SpecOptions {
  requireRecognizedConversionReviewVersion: boolean;
  requireImmutableNames: boolean;
  requireOpenAPISchema: boolean;
  ratchets: Required<Pick<CrdSchemaOptions, 'requireValidPropertyType' | 'requireStructuralSchema' | 'requirePrunedDefaults' | 'requireAtomicSetType' | 'requireMapListKeysMapSetValidation'>>;
  preexisting: PreexistingExpressions;
  /** Versions whose schema an update left as it was (no per-expression cost limit). */
  versionsWithUnchangedSchemas: ReadonlySet<string>;
  allowInvalidCABundle: boolean;
}

const hasStatus = (s: CrdSubresources | undefined) => !!s?.status;
const perVersion = (versions: InternalVersion[], pick: (v: InternalVersion) => unknown) => versions.some((v) => pick(v) !== undefined);
/** hasIdenticalPerVersion*: every version sets it, all alike (the v1 conversion normally hoists these). */
function identicalPerVersion(versions: InternalVersion[], pick: (v: InternalVersion) => unknown): boolean {
  if (versions.length === 0) return false;
  const first = pick(versions[0]!);
  return versions.every((v) => pick(v) !== undefined && deepEqualJson(pick(v), first));
}

function subresourcesForVersion(spec: InternalSpec, name: string): CrdSubresources | undefined {
  if (!perVersion(spec.versions, (v) => v.subresources)) return spec.subresources;
  return spec.versions.find((v) => v.name === name)?.subresources;
}

const hasKubernetesExtensions = (s: JSONSchemaProps) =>
  schemaHas(s, (x) => x['x-kubernetes-embedded-resource'] === true || (x['x-kubernetes-preserve-unknown-fields'] !== undefined && x['x-kubernetes-preserve-unknown-fields'] !== null) || x['x-kubernetes-int-or-string'] === true || (x['x-kubernetes-list-map-keys'] ?? []).length > 0 || (x['x-kubernetes-list-type'] !== undefined && x['x-kubernetes-list-type'] !== null) || (x['x-kubernetes-validations'] ?? []).length > 0);
const hasDefaults = (s: JSONSchemaProps) => schemaHas(s, (x) => x.default !== undefined && x.default !== null);

function selectableFieldsErrors(fields: SelectableField[], schema: JSONSchemaProps, schemaAt: FieldPath, at: FieldPath): FieldError[] {
  const converted = tryToStructural(schema);
  if ('error' in converted) return [field.invalid(schemaAt, '', converted.error)];
  return validateSelectableFields(fields, converted.structural, at);
}

function versionErrors(v: InternalVersion, at: FieldPath, statusEnabled: boolean, opts: SpecOptions): FieldError[] {
  const errs: FieldError[] = [];
  for (const problem of deprecationWarningProblems(v.deprecated, v.deprecationWarning)) errs.push(field.invalid(at.child('deprecationWarning'), v.deprecationWarning ?? null, problem));
  const schema = v.schema?.openAPIV3Schema;
  if (schema) {
    errs.push(...schemaErrors(schema, at.child('schema'), { statusSubresourceEnabled: statusEnabled, ratchets: opts.ratchets, preexisting: opts.preexisting, unchangedSchema: opts.versionsWithUnchangedSchemas.has(v.name) }));
  }
  errs.push(...subresourcesErrors(v.subresources, at.child('subresources')));
  (v.additionalPrinterColumns ?? []).forEach((c, i) => errs.push(...columnErrors(c ?? {}, at.child('additionalPrinterColumns').index(i))));
  if ((v.selectableFields ?? []).length > 0) {
    if (!schema) errs.push(field.invalid(at.child('selectableFields'), '', 'may only be set when `version.schema.openAPIV3Schema` is not included'));
    else errs.push(...selectableFieldsErrors(v.selectableFields!, schema, at.child('schema.openAPIV3Schema'), at.child('selectableFields')));
  }
  return errs;
}

export function specErrors(spec: InternalSpec, opts: SpecOptions, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const o: SpecOptions = { ...opts, ratchets: { ...opts.ratchets } };

  if (!spec.group) errs.push(field.required(at.child('group')));
  else {
    const problems = dns1123SubdomainErrors(spec.group);
    if (problems.length > 0) errs.push(field.invalid(at.child('group'), spec.group, problems.join(',')));
    else if (spec.group.split('.').length < 2) errs.push(field.invalid(at.child('group'), spec.group, 'should be a domain with at least one dot'));
  }

  const scopes = ['Cluster', 'Namespaced'];
  if (!spec.scope) errs.push(field.required(at.child('scope')));
  else if (!scopes.includes(spec.scope)) errs.push(field.notSupported(at.child('scope'), spec.scope, scopes));

  const preserveUnknown = spec.preserveUnknownFields !== false;
  if (!preserveUnknown) o.ratchets.requireStructuralSchema = true;

  const versionsPath = at.child('versions');
  if (o.requireOpenAPISchema) {
    if (!spec.validation?.openAPIV3Schema) {
      spec.versions.forEach((v, i) => {
        if (!v.schema?.openAPIV3Schema) errs.push(field.required(versionsPath.index(i).child('schema').child('openAPIV3Schema')));
      });
    }
  } else if (!preserveUnknown && !spec.validation?.openAPIV3Schema) {
    spec.versions.forEach((v, i) => {
      if (v.served && !v.schema?.openAPIV3Schema) errs.push(field.required(versionsPath.index(i).child('schema', 'openAPIV3Schema'), 'because otherwise all fields are pruned'));
    });
  }
  const schemas = allSchemas(spec);
  if (schemas.some(hasDefaults)) {
    o.ratchets.requireStructuralSchema = true;
    if (spec.preserveUnknownFields === undefined || spec.preserveUnknownFields) errs.push(field.invalid(at.child('preserveUnknownFields'), true, 'must be false in order to use defaults in the schema'));
  }
  if (schemas.some(hasKubernetesExtensions)) o.ratchets.requireStructuralSchema = true;

  let storageCount = 0;
  const seen = new Set<string>();
  let unique = true;
  spec.versions.forEach((v, i) => {
    if (v.storage) storageCount++;
    if (seen.has(v.name)) unique = false;
    else seen.add(v.name);
    const problems = dns1035LabelErrors(v.name);
    if (problems.length > 0) errs.push(field.invalid(versionsPath.index(i).child('name'), v.name, problems.join(',')));
    errs.push(...versionErrors(v, versionsPath.index(i), hasStatus(subresourcesForVersion(spec, v.name)), o));
  });

  if (spec.validation && perVersion(spec.versions, (v) => v.schema)) errs.push(field.forbidden(at.child('validation'), 'top-level and per-version schemas are mutually exclusive'));
  if (spec.subresources && perVersion(spec.versions, (v) => v.subresources)) errs.push(field.forbidden(at.child('subresources'), 'top-level and per-version subresources are mutually exclusive'));
  if ((spec.additionalPrinterColumns ?? []).length > 0 && perVersion(spec.versions, (v) => v.additionalPrinterColumns)) {
    errs.push(field.forbidden(at.child('additionalPrinterColumns'), 'top-level and per-version additionalPrinterColumns are mutually exclusive'));
  }
  const versionsValue = () => ({ type: 'FieldValueInvalid' as const, field: String(versionsPath), value: spec.versions, rawValue: versionsRawValue(spec.versions) });
  if (identicalPerVersion(spec.versions, (v) => v.schema)) errs.push({ ...versionsValue(), detail: 'per-version schemas may not all be set to identical values (top-level validation should be used instead)' });
  if (identicalPerVersion(spec.versions, (v) => v.subresources)) errs.push({ ...versionsValue(), detail: 'per-version subresources may not all be set to identical values (top-level subresources should be used instead)' });
  if (identicalPerVersion(spec.versions, (v) => v.additionalPrinterColumns)) {
    errs.push({ ...versionsValue(), detail: 'per-version additionalPrinterColumns may not all be set to identical values (top-level additionalPrinterColumns should be used instead)' });
  }
  if (!unique) errs.push({ ...versionsValue(), detail: 'must contain unique version names' });
  if (storageCount !== 1) errs.push({ ...versionsValue(), detail: 'must have exactly one version marked as storage version' });
  if (spec.version) {
    const problems = dns1035LabelErrors(spec.version);
    if (problems.length > 0) errs.push(field.invalid(at.child('version'), spec.version, problems.join(',')));
    if (spec.versions.length >= 1 && spec.versions[0]!.name !== spec.version) errs.push(field.invalid(at.child('version'), spec.version, 'must match the first version in spec.versions'));
  }

  // Required in spec, though not in status.acceptedNames.
  const names = spec.names;
  if (!names.plural) errs.push(field.required(at.child('names', 'plural')));
  if (!names.singular) errs.push(field.required(at.child('names', 'singular')));
  if (!names.kind) errs.push(field.required(at.child('names', 'kind')));
  if (!names.listKind) errs.push(field.required(at.child('names', 'listKind')));
  errs.push(...namesErrors(names, at.child('names')));

  const topSchema = spec.validation?.openAPIV3Schema;
  if (topSchema) {
    const statusAnywhere = hasStatus(spec.subresources) || spec.versions.some((v) => hasStatus(v.subresources));
    errs.push(...schemaErrors(topSchema, at.child('validation'), { statusSubresourceEnabled: statusAnywhere, ratchets: o.ratchets, preexisting: o.preexisting, unchangedSchema: o.versionsWithUnchangedSchemas.has(spec.version) }));
  }
  errs.push(...subresourcesErrors(spec.subresources, at.child('subresources')));
  (spec.additionalPrinterColumns ?? []).forEach((c, i) => errs.push(...columnErrors(c ?? {}, at.child('additionalPrinterColumns').index(i))));
  if ((spec.selectableFields ?? []).length > 0) {
    if (!spec.validation) errs.push(field.invalid(at.child('selectableFields'), '', 'may only be set when validations.schema is included'));
    else if (topSchema) errs.push(...selectableFieldsErrors(spec.selectableFields!, topSchema, at.child('schema.openAPIV3Schema'), at.child('selectableFields')));
  }

  if (spec.conversion && spec.conversion.strategy !== 'None' && preserveUnknown) {
    errs.push(field.invalid(at.child('conversion').child('strategy'), spec.conversion.strategy, 'must be None if spec.preserveUnknownFields is true'));
  }
  errs.push(...conversionErrors(spec.conversion, o.requireRecognizedConversionReviewVersion, o.allowInvalidCABundle, at.child('conversion')));
  return errs;
}
