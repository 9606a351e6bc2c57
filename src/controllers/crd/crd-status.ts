/**
 * How the CRD controllers write: UpdateStatus of the object as their informer last saw it, so a
 * CRD changed meanwhile answers 409 and the change's own event brings the CRD back to the queue
 * (as upstream's controllers treat NotFound and Conflict: "we'll get called again").
 */
import { ApiError } from '../../api/errors.ts';
import { systemContext } from '../../api/request-context.ts';
import type { KubeObject, StoredKubeObject } from '../../api/types.ts';
import { cloneJson } from '../../codecs/deep-json.ts';
import { setCondition, type CrdCondition, type CustomResourceDefinition } from '../../crd/validation/index.ts';
import { nowTimestamp } from '../../registry/system-fields.ts';
import type { ResourceStore } from '../../registry/resource-store.ts';

export const CRD_GROUP = 'apiextensions.k8s.io';
export const CRD_RESOURCE = 'customresourcedefinitions';

/** A CRD as the informer holds it, typed for reading. */
export type Crd = StoredKubeObject & CustomResourceDefinition & { metadata: StoredKubeObject['metadata'] };

export const asCrd = (obj: StoredKubeObject): Crd => obj as Crd;

/** A copy to change before writing it back. */
export function copyOf(crd: Crd): Crd {
  return cloneJson(crd);
}

/** The CRD's conditions without one type (RemoveCRDCondition). */
export function withoutCondition(conditions: readonly CrdCondition[] | undefined, type: string): CrdCondition[] {
  return (conditions ?? []).filter((c) => c.type !== type);
}

/**
 * Writes `next` (a changed copy of the CRD at `resourceVersion`) through the status subresource;
 * the stored CRD, or undefined when it is gone or changed meanwhile.
 */
export async function updateCrdStatus(crds: ResourceStore, next: Crd, resourceVersion: string): Promise<Crd | undefined> {
  try {
    const { stored } = await crds.update(systemContext({ subresource: 'status' }), '', next.metadata.name, {
      precondition: Number(resourceVersion),
      build: () => next as KubeObject,
    });
    return stored.object as Crd;
  } catch (err) {
    if (err instanceof ApiError && (err.code === 404 || err.code === 409)) return undefined;
    throw err;
  }
}

/** Sets one condition (SetCRDCondition) on a copy of the CRD and writes it as updateCrdStatus does. */
export function writeCondition(crds: ResourceStore, crd: Crd, condition: CrdCondition): Promise<Crd | undefined> {
  const next = copyOf(crd);
  const status = (next.status ??= {});
  status.conditions = setCondition(status.conditions, condition, nowTimestamp());
  return updateCrdStatus(crds, next, crd.metadata.resourceVersion);
}
