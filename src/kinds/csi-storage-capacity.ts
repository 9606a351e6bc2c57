import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { goStruct } from '../api/go/values.ts';
import { dns1123SubdomainErrors } from '../api/validation/names.ts';
import { defineKind } from '../registry/kind.ts';
import { canonicalJson } from '../registry/system-fields.ts';
import * as field from '../registry/validation/field.ts';
import { labelSelectorErrors, type LabelSelectorValue } from '../registry/validation/label-selector.ts';

type Capacity = KubeObject & { storageClassName?: string; capacity?: string | number; maximumVolumeSize?: string | number; nodeTopology?: LabelSelectorValue | null };

function validate(obj: KubeObject): FieldError[] {
  const c = obj as Capacity;
  const errs = labelSelectorErrors(c.nodeTopology, field.path('nodeTopology'));
  const className = c.storageClassName ?? '';
  for (const msg of dns1123SubdomainErrors(className)) errs.push(field.invalid('storageClassName', className, msg));
  if (c.capacity !== undefined && String(c.capacity).trim().startsWith('-')) {
    errs.push(field.invalid('capacity', String(c.capacity).trim(), 'must be greater than or equal to 0'));
  }
  return errs;
}

/** A label selector as upstream prints its struct in an immutability error (metav1 keeps its JSON names). */
function selectorValue(s: LabelSelectorValue | null | undefined): unknown {
  if (!s) return null;
  return goStruct({ ...(s.matchLabels ? { matchLabels: s.matchLabels } : {}), ...(s.matchExpressions?.length ? { matchExpressions: s.matchExpressions } : {}) });
}

function validateUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const c = obj as Capacity;
  const before = old as Capacity;
  const errs: FieldError[] = [];
  // Inputs of the driver's GetCapacity call: they may not change.
  if (canonicalJson(c.nodeTopology ?? null) !== canonicalJson(before.nodeTopology ?? null)) errs.push(field.immutable('nodeTopology', selectorValue(c.nodeTopology)));
  if ((c.storageClassName ?? '') !== (before.storageClassName ?? '')) errs.push(field.immutable('storageClassName', c.storageClassName ?? ''));
  return errs;
}

/** storage.k8s.io/v1 CSIStorageCapacity: what a CSI driver can provision for a storage class, and where. */
export const csiStorageCapacities = defineKind({
  group: 'storage.k8s.io',
  version: 'v1',
  kind: 'CSIStorageCapacity',
  plural: 'csistoragecapacities',
  namespaced: true,
  schemaMessage: 'k8s.io.api.storage.v1.CSIStorageCapacity',
  tableColumns: [
    { name: 'StorageClassName', type: 'string', description: 'The storage class the capacity is for.', cell: (o) => (o as Capacity).storageClassName ?? '' },
    { name: 'Capacity', type: 'string', description: 'The capacity reported by the driver.', cell: (o) => ((o as Capacity).capacity === undefined ? '<unset>' : String((o as Capacity).capacity)) },
  ],
  strategy: {
    validate: (_ctx, obj) => validate(obj),
    // Upstream's update rules are the immutables only (the create rules are not run again).
    validateUpdate: (_ctx, obj, old) => validateUpdate(obj, old),
  },
});
