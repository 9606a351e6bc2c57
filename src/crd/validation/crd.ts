/**
 * ValidateCustomResourceDefinition, ValidateCustomResourceDefinitionUpdate and the status rules
 * (upstream's pkg/apis/apiextensions/validation/validation.go), for a v1 CRD after defaulting.
 *
 * Generic ObjectMeta rules (a DNS-subdomain name, labels, annotations…) are the registry's; this
 * adds the CRD's own name rule and everything under spec and status.
 */
import type { FieldError } from '../../api/errors.ts';
import * as field from '../../registry/validation/field.ts';
import { NONE_STORED, preexistingExpressions } from '../cel/index.ts';
import { optionsForUpdate, unrecognizedFormats } from '../schema/index.ts';
import { goQuote } from '../../api/go/quote.ts';
import { deepEqualJson } from '../schema/json.ts';
import { apiApprovalState, isProtectedCommunityGroup, API_APPROVAL_ANNOTATION } from './api-approval.ts';
import { caBundleProblem, hasRecognizedReviewVersionOrNone } from './conversion.ts';
import { allSchemas, schemaForVersion, toInternalSpec, type InternalSpec } from './internal.ts';
import { namesErrors } from './names.ts';
import { specErrors, type SpecOptions } from './spec.ts';
import type { CrdStatus, CrdVersion, CustomResourceDefinition } from './types.ts';

const isConditionTrue = (crd: CustomResourceDefinition, type: string) => (crd.status?.conditions ?? []).find((c) => c?.type === type)?.status === 'True';

/** The CRD's own name rule: `<plural>.<group>` (upstream adds it to the DNS-subdomain rule). */
export function crdNameErrors(crd: CustomResourceDefinition): FieldError[] {
  const name = crd.metadata?.name ?? '';
  if (!name) return [];
  const required = `${crd.spec?.names?.plural ?? ''}.${crd.spec?.group ?? ''}`;
  return name === required ? [] : [field.invalid(field.path('metadata', 'name'), name, 'must be spec.names.plural+"."+spec.group')];
}

const CREATE_OPTIONS: SpecOptions = {
  requireRecognizedConversionReviewVersion: true,
  requireImmutableNames: false,
  requireOpenAPISchema: true,
  ratchets: { requireValidPropertyType: true, requireStructuralSchema: true, requirePrunedDefaults: true, requireAtomicSetType: true, requireMapListKeysMapSetValidation: true },
  preexisting: NONE_STORED,
  versionsWithUnchangedSchemas: new Set(),
  // Invalid CA bundles were accepted before 1.34 checked them; the establishing controller reports them.
  allowInvalidCABundle: true,
};

/** A new CRD's problems. */
export function validateCustomResourceDefinition(crd: CustomResourceDefinition): FieldError[] {
  const spec = toInternalSpec(crd.spec ?? {});
  return [
    ...crdNameErrors(crd),
    ...specErrors(spec, CREATE_OPTIONS, field.path('spec')),
    ...validateCustomResourceDefinitionStatus(crd.status ?? {}),
    ...storedVersionsErrors(crd.status?.storedVersions ?? [], crd.spec?.versions ?? []),
    ...apiApprovalErrors(crd, undefined),
    ...preserveUnknownFieldsErrors(crd, undefined),
  ];
}

/** allVersionsSpecifyOpenAPISchema of the stored CRD. */
function allVersionsHaveSchema(spec: InternalSpec): boolean {
  if (spec.validation?.openAPIV3Schema) return true;
  return spec.versions.every((v) => !!v.schema?.openAPIV3Schema);
}

/** allowInvalidCABundle: unless the stored CRD is established with a valid bundle, an invalid one stays allowed. */
function allowInvalidCABundle(old: CustomResourceDefinition): boolean {
  if (!isConditionTrue(old, 'Established')) return true;
  const caBundle = old.spec?.conversion?.webhook?.clientConfig?.caBundle;
  if (!caBundle) return false;
  return caBundleProblem(caBundle) !== undefined;
}

/** The relaxations of an update (upstream's validationOptions in ValidateCustomResourceDefinitionUpdate). */
export function updateOptions(crd: CustomResourceDefinition, old: CustomResourceDefinition): SpecOptions {
  const oldSpec = toInternalSpec(old.spec ?? {});
  const newSpec = toInternalSpec(crd.spec ?? {});
  const unchanged = new Set<string>();
  for (const v of newSpec.versions) {
    if (!oldSpec.validation && !oldSpec.versions.some((o) => o.name === v.name)) continue;
    if (deepEqualJson(schemaForVersion(newSpec, v.name) ?? null, schemaForVersion(oldSpec, v.name) ?? null)) unchanged.add(v.name);
  }
  const oldSchemas = allSchemas(oldSpec);
  return {
    requireRecognizedConversionReviewVersion: !old.spec?.conversion || hasRecognizedReviewVersionOrNone(old.spec.conversion.webhook?.conversionReviewVersions),
    requireImmutableNames: isConditionTrue(old, 'Established'),
    requireOpenAPISchema: allVersionsHaveSchema(oldSpec),
    ratchets: optionsForUpdate(oldSchemas) as SpecOptions['ratchets'],
    preexisting: preexistingExpressions(oldSchemas),
    versionsWithUnchangedSchemas: unchanged,
    allowInvalidCABundle: allowInvalidCABundle(old),
  };
}

/** An update's problems: the spec rules with the update's relaxations, and what may not change. */
export function validateCustomResourceDefinitionUpdate(crd: CustomResourceDefinition, old: CustomResourceDefinition): FieldError[] {
  const opts = updateOptions(crd, old);
  const spec = crd.spec ?? {};
  const oldSpec = old.spec ?? {};
  const at = field.path('spec');
  const errs = [...crdNameErrors(crd), ...specErrors(toInternalSpec(spec), opts, at)];
  if (opts.requireImmutableNames) {
    // These decide where objects are stored once the CRD is established.
    if ((spec.scope ?? '') !== (oldSpec.scope ?? '')) errs.push(field.immutable(at.child('scope'), spec.scope ?? ''));
    if ((spec.names?.kind ?? '') !== (oldSpec.names?.kind ?? '')) errs.push(field.immutable(at.child('names', 'kind'), spec.names?.kind ?? ''));
  }
  // Both make up the CRD's name, which never changes.
  if ((spec.group ?? '') !== (oldSpec.group ?? '')) errs.push(field.immutable(at.child('group'), spec.group ?? ''));
  if ((spec.names?.plural ?? '') !== (oldSpec.names?.plural ?? '')) errs.push(field.immutable(at.child('names', 'plural'), spec.names?.plural ?? ''));
  errs.push(
    ...validateCustomResourceDefinitionStatus(crd.status ?? {}),
    ...storedVersionsErrors(crd.status?.storedVersions ?? [], spec.versions ?? []),
    ...apiApprovalErrors(crd, old),
    ...preserveUnknownFieldsErrors(crd, old),
  );
  return errs;
}

/** ValidateCustomResourceDefinitionStatus: the accepted names' shape. */
export function validateCustomResourceDefinitionStatus(status: CrdStatus): FieldError[] {
  return namesErrors(status.acceptedNames ?? {}, field.path('status', 'acceptedNames'));
}

/** ValidateUpdateCustomResourceDefinitionStatus (the status subresource): only the status rules. */
export function validateCustomResourceDefinitionStatusUpdate(crd: CustomResourceDefinition): FieldError[] {
  return validateCustomResourceDefinitionStatus(crd.status ?? {});
}

/** ValidateCustomResourceDefinitionStoredVersions: the storage version is stored, and every stored version still listed. */
export function storedVersionsErrors(storedVersions: readonly string[], versions: readonly CrdVersion[]): FieldError[] {
  const at = field.path('status', 'storedVersions');
  if (storedVersions.length === 0) return [field.invalid(at, storedVersions, 'must have at least one stored version')];
  const errs: FieldError[] = [];
  const remaining = new Map<string, number>();
  storedVersions.forEach((v, i) => remaining.set(v, i));
  for (const v of versions) {
    const name = v?.name ?? '';
    const stored = remaining.has(name);
    if (v?.storage && !stored) errs.push(field.invalid(at, storedVersions, `must have the storage version ${name}`));
    if (stored) remaining.delete(name);
  }
  for (const [v, i] of remaining) {
    errs.push(
      field.invalid(
        at.index(i),
        v,
        `missing from spec.versions; ${v} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${v} and removes ${v} from status.storedVersions`,
      ),
    );
  }
  return errs;
}

/** validateAPIApproval: `*.k8s.io` and `*.kubernetes.io` groups need the approval annotation (checked when it changes). */
export function apiApprovalErrors(crd: CustomResourceDefinition, old: CustomResourceDefinition | undefined): FieldError[] {
  if (!isProtectedCommunityGroup(crd.spec?.group ?? '')) return [];
  const next = apiApprovalState(crd.metadata?.annotations);
  if (old && apiApprovalState(old.metadata?.annotations).state === next.state) return [];
  const at = field.path('metadata', 'annotations').key(API_APPROVAL_ANNOTATION);
  const value = crd.metadata?.annotations?.[API_APPROVAL_ANNOTATION] ?? '';
  switch (next.state) {
    case 'Missing':
      return [field.required(at, next.reason)];
    case 'Invalid':
      return [field.invalid(at, value, next.reason)];
    default:
      return [];
  }
}

/** validatePreserveUnknownFields: v1 refuses true, unless the stored CRD already had it. */
export function preserveUnknownFieldsErrors(crd: CustomResourceDefinition, old: CustomResourceDefinition | undefined): FieldError[] {
  if (old?.spec?.preserveUnknownFields === true) return [];
  if (crd.spec?.preserveUnknownFields !== true) return [];
  return [field.invalid(field.path('spec', 'preserveUnknownFields'), true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead')];
}

function formatsOf(crd: CustomResourceDefinition): string[] {
  return allSchemas(toInternalSpec(crd.spec ?? {})).flatMap(unrecognizedFormats);
}

/** WarningsOnCreate: `unrecognized format "…"` for string formats 1.34 does not check. */
export function customResourceDefinitionWarnings(crd: CustomResourceDefinition): string[] {
  return formatsOf(crd).map((f) => `unrecognized format ${goQuote(f)}`);
}

/** WarningsOnUpdate: only formats the stored CRD did not already have. */
export function customResourceDefinitionUpdateWarnings(crd: CustomResourceDefinition, old: CustomResourceDefinition): string[] {
  const before = new Set(formatsOf(old));
  return formatsOf(crd).filter((f) => !before.has(f)).map((f) => `unrecognized format ${goQuote(f)}`);
}
