import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import type { RequestContext } from '../api/request-context.ts';
import { goStruct } from '../api/go/values.ts';
import { dns1123SubdomainErrors, qualifiedNameErrors } from '../api/validation/names.ts';
import { defineKind } from '../registry/kind.ts';
import { canonicalJson } from '../registry/system-fields.ts';
import * as field from '../registry/validation/field.ts';

type CSINodeDriver = { name?: string; nodeID?: string; topologyKeys?: string[] | null; allocatable?: { count?: number } | null };

const driversOf = (obj: KubeObject) => ((obj.spec ?? {}) as { drivers?: CSINodeDriver[] }).drivers ?? [];
/** Upstream's limit on a node ID (256 is allowed only where an older object already had a longer one). */
const NODE_ID_MAX = 192;
const NODE_ID_LONGER_MAX = 256;
const DRIVER_NAME_MAX = 63;

/** A CSI driver name: required, at most 63 bytes, a DNS subdomain once lower-cased (core's ValidateCSIDriverName). */
function driverNameErrors(name: string, at: field.FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (name === '') errs.push(field.required(at));
  if (Buffer.byteLength(name) > DRIVER_NAME_MAX) errs.push(field.tooLong(at, DRIVER_NAME_MAX));
  for (const msg of dns1123SubdomainErrors(name.toLowerCase())) errs.push(field.invalid(at, name, msg));
  return errs;
}

function validateDrivers(obj: KubeObject, allowLongNodeID: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  driversOf(obj).forEach((d, i) => {
    const at = field.path('spec', 'drivers').index(i);
    const name = d.name ?? '';
    errs.push(...driverNameErrors(name, at.child('name')));
    const nodeID = d.nodeID ?? '';
    if (nodeID === '') errs.push(field.required(at.child('nodeID')));
    const max = allowLongNodeID ? NODE_ID_LONGER_MAX : NODE_ID_MAX;
    if (Buffer.byteLength(nodeID) > max) errs.push(field.invalid(at.child('nodeID'), nodeID, `must be ${max} characters or less`));
    const count = d.allocatable?.count;
    if (typeof count === 'number' && count < 0) errs.push(field.invalid(at.child('allocatable', 'count'), count, 'must be greater than or equal to 0'));
    if (names.has(name)) errs.push(field.duplicate(at.child('name'), name));
    names.add(name);
    const keys = new Set<string>();
    for (const key of d.topologyKeys ?? []) {
      if (key === '') errs.push(field.required(at));
      if (keys.has(key)) errs.push(field.duplicate(at, key));
      keys.add(key);
      for (const msg of qualifiedNameErrors(key)) errs.push(field.invalid(at, key, msg));
    }
  });
  return errs;
}

/** The gate under which a driver's allocatable count may change (off by default in 1.34). */
const MUTABLE_COUNT_GATE = 'MutableCSINodeAllocatableCount';

/**
 * A driver as upstream prints its internal struct in an immutability error (Go field names); with
 * the count mutable, upstream compares copies whose allocatable is cleared, and prints that copy.
 */
function driverValue(d: CSINodeDriver, withAllocatable: boolean): Record<string, unknown> {
  const allocatable = withAllocatable && d.allocatable ? goStruct({ Count: d.allocatable.count ?? null }) : null;
  return goStruct({ Name: d.name ?? '', NodeID: d.nodeID ?? '', TopologyKeys: d.topologyKeys?.length ? d.topologyKeys : null, Allocatable: allocatable });
}

function validateUpdate(ctx: RequestContext, obj: KubeObject, old: KubeObject): FieldError[] {
  // A node ID already longer than 192 may stay so.
  const allowLong = driversOf(old).some((d) => Buffer.byteLength(d.nodeID ?? '') > NODE_ID_MAX);
  const errs = validateDrivers(obj, allowLong);
  // An existing driver's entry may not change; its allocatable count may while the gate is on.
  const withAllocatable = !ctx.featureGates.enabled(MUTABLE_COUNT_GATE);
  for (const before of driversOf(old)) {
    for (const after of driversOf(obj)) {
      if (before.name !== after.name) continue;
      const now = driverValue(after, withAllocatable);
      if (canonicalJson(now) !== canonicalJson(driverValue(before, withAllocatable))) errs.push(field.immutable(field.path('spec', 'drivers'), now));
    }
  }
  return errs;
}

/** storage.k8s.io/v1 CSINode: the CSI drivers installed on a node (named after the node). */
export const csiNodes = defineKind({
  group: 'storage.k8s.io',
  version: 'v1',
  kind: 'CSINode',
  plural: 'csinodes',
  namespaced: false,
  schemaMessage: 'k8s.io.api.storage.v1.CSINode',
  returnDeletedObject: true,
  tableColumns: [{ name: 'Drivers', type: 'integer', description: 'The number of CSI drivers on the node.', cell: (o) => driversOf(o).length }],
  strategy: {
    validate: (_ctx, obj) => validateDrivers(obj, false),
    validateUpdate: (ctx, obj, old) => validateUpdate(ctx, obj, old),
  },
});
