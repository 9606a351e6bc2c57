/**
 * The first DELETE of a CustomResourceDefinition, as apiextensions-apiserver's REST Delete does it:
 * the CRD is only marked (the store sets deletionTimestamp), gets the cleanup finalizer and a
 * Terminating condition; the CRD finalizer controller (src/controllers/crd/finalizer-controller.ts)
 * then deletes its custom resources and removes the finalizer, and the CRD goes. Propagation
 * options play no part in that first delete, as upstream writes storage directly there.
 */
import type { KubeObject } from '../api/types.ts';
import type { RequestContext } from '../api/request-context.ts';
import { nowTimestamp } from '../registry/system-fields.ts';
import { setCondition, type CustomResourceDefinition } from '../crd/validation/index.ts';

/** Held by a deleted CRD until its custom resources are gone. */
export const CUSTOM_RESOURCE_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

/** DeleteStrategy.markOnFirstDelete of the CRD kind. */
export function markForCustomResourceCleanup(_ctx: RequestContext, obj: KubeObject): void {
  const metadata = (obj.metadata ??= {});
  const finalizers = Array.isArray(metadata.finalizers) ? metadata.finalizers : [];
  if (!finalizers.includes(CUSTOM_RESOURCE_CLEANUP_FINALIZER)) metadata.finalizers = [...finalizers, CUSTOM_RESOURCE_CLEANUP_FINALIZER];
  const crd = obj as unknown as CustomResourceDefinition;
  const status = (crd.status ??= {});
  status.conditions = setCondition(
    status.conditions,
    { type: 'Terminating', status: 'True', reason: 'InstanceDeletionPending', message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon' },
    nowTimestamp(),
  );
}
