import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { defineKind } from '../registry/kind.ts';
import { statusSubresource } from '../registry/subresources.ts';
import * as field from '../registry/validation/field.ts';
import {
  customResourceDefinitionUpdateWarnings,
  customResourceDefinitionWarnings,
  defaultCustomResourceDefinition,
  validateCustomResourceDefinition,
  validateCustomResourceDefinitionStatusUpdate,
  validateCustomResourceDefinitionUpdate,
  type CustomResourceDefinition,
} from '../crd/validation/index.ts';
import { decodeAsGo } from './custom-resource-definition-decoding.ts';
import { markForCustomResourceCleanup } from './custom-resource-definition-delete.ts';

const asCrd = (obj: KubeObject) => obj as unknown as CustomResourceDefinition;

/**
 * Adds the storage version to status.storedVersions when it is not there yet (upstream's strategy:
 * the first version marked storage, at most one).
 */
function recordStorageVersion(crd: CustomResourceDefinition): void {
  const storage = (crd.spec?.versions ?? []).find((v) => v?.storage);
  if (!storage) return;
  const status = (crd.status ??= {});
  const stored = (status.storedVersions ??= []);
  if (!stored.includes(storage.name ?? '')) stored.push(storage.name ?? '');
}

/**
 * Upstream's name rule (`<plural>.<group>`) is ObjectMeta's name function, which judges
 * generateName too (before the name): a generated name can never be the required one.
 */
function generateNameErrors(crd: CustomResourceDefinition): FieldError[] {
  const generateName = crd.metadata?.generateName;
  if (typeof generateName !== 'string' || !generateName) return [];
  const required = `${crd.spec?.names?.plural ?? ''}.${crd.spec?.group ?? ''}`;
  return generateName === required ? [] : [field.invalid(field.path('metadata', 'generateName'), generateName, 'must be spec.names.plural+"."+spec.group')];
}

/**
 * apiextensions.k8s.io/v1 CustomResourceDefinition, as apiextensions-apiserver's
 * pkg/registry/customresourcedefinition serves it. The rules are src/crd/validation's; what Go's
 * decoding does to a CRD body is custom-resource-definition-decoding.ts; serving the resources it
 * defines is src/crd/serving's, and its names, conditions and cleanup on delete
 * (custom-resource-definition-delete.ts) are the CRD controllers'.
 *
 * Upstream's dropDisabledFields (optionalOldSelf, selectableFields) depends on CRDValidationRatcheting
 * and CustomResourceFieldSelectors, both GA and locked on in 1.34, so it never drops anything here.
 */
export const customResourceDefinitions = defineKind({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  schemaMessage: 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition',
  allowUnconditionalUpdate: false,
  tracksGeneration: true,
  // Validated with apimachinery's generic ObjectMeta rules (ValidateObjectMeta), not the core group's.
  coreObjectMeta: false,
  // No tableColumns: upstream's REST uses the default table convertor (Name, Created At).
  // The status strategy keeps the spec as stored; its ResetObjectMetaForStatus resets the body's
  // metadata from itself, so metadata comes from the body as with the common status subresource.
  // The first delete only marks the CRD; the CRD finalizer controller deletes its objects, then it.
  deleteStrategy: { markOnFirstDelete: markForCustomResourceCleanup },
  subresources: [statusSubresource({ validateUpdate: (_ctx, obj) => validateCustomResourceDefinitionStatusUpdate(asCrd(obj)) })],
  strategy: {
    default: (_ctx, obj) => {
      decodeAsGo(obj);
      defaultCustomResourceDefinition(asCrd(obj));
    },
    prepareForCreate: (_ctx, obj) => {
      const crd = asCrd(obj);
      // Status is the controllers'; a create keeps nothing of it but the storage version.
      crd.status = { acceptedNames: { plural: '', kind: '' } };
      recordStorageVersion(crd);
    },
    // The machinery has already put the stored status back and bumps the generation on spec changes.
    prepareForUpdate: (_ctx, obj) => recordStorageVersion(asCrd(obj)),
    validate: (_ctx, obj) => [...generateNameErrors(asCrd(obj)), ...validateCustomResourceDefinition(asCrd(obj))],
    validateUpdate: (_ctx, obj, old) => validateCustomResourceDefinitionUpdate(asCrd(obj), asCrd(old)),
    warningsOnCreate: (_ctx, obj) => customResourceDefinitionWarnings(asCrd(obj)),
    warningsOnUpdate: (_ctx, obj, old) => customResourceDefinitionUpdateWarnings(asCrd(obj), asCrd(old)),
  },
});
