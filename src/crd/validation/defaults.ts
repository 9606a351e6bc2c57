/**
 * apiextensions/v1 defaulting of a CustomResourceDefinition (upstream's SetDefaults_* in
 * pkg/apis/apiextensions/v1/defaults.go and the generated defaulters), applied in place.
 */
import type { CustomResourceDefinition } from './types.ts';

/** Fills what the v1 API defaults when a CRD is decoded. */
export function defaultCustomResourceDefinition(obj: CustomResourceDefinition): CustomResourceDefinition {
  const spec = (obj.spec ??= {});
  const names = (spec.names ??= {});
  if (!names.singular) names.singular = (names.kind ?? '').toLowerCase();
  if (!names.listKind && names.kind) names.listKind = `${names.kind}List`;
  // preserveUnknownFields is a plain bool in v1: absent means false.
  if (spec.preserveUnknownFields === undefined || spec.preserveUnknownFields === null) spec.preserveUnknownFields = false;
  if (!spec.conversion) spec.conversion = { strategy: 'None' };
  const service = spec.conversion.webhook?.clientConfig?.service;
  if (service && (service.port === undefined || service.port === null)) service.port = 443;
  const status = (obj.status ??= {});
  if (!status.storedVersions || status.storedVersions.length === 0) {
    const storage = (spec.versions ?? []).find((v) => v?.storage);
    if (storage) status.storedVersions = [storage.name ?? ''];
  }
  // acceptedNames is a struct in v1 whose plural and kind are always serialized.
  if (!status.acceptedNames) status.acceptedNames = { plural: '', kind: '' };
  return obj;
}
