/**
 * metadata.managedFields and server-side apply (upstream's k8s.io/apimachinery/pkg/util/managedfields
 * as kube-apiserver's handlers use it). See field-manager.ts for the entry points.
 */
export { FieldManager, type FieldManagerOptions } from './field-manager.ts';
export { managerFromUserAgent, managerOrUserAgent } from './manager-name.ts';
export { validateManagedFields } from './validate-managed-fields.ts';
export { resetFieldsFor } from './reset-fields.ts';
export { restoreManagedFieldsAfterAdmission } from './admission-guard.ts';
export { LAST_APPLIED_ANNOTATION } from './last-applied.ts';
export { storedEntriesIfOnlyTimesMoved } from './timestamps-only.ts';
export type { ManagedFieldsEntry } from './entry.ts';
export type { KindVersions } from './conversions.ts';
