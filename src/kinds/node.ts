import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { parseCidrSloppy } from '../api/go/cidr.ts';
import { goStruct } from '../api/go/values.ts';
import { labelValueErrors, qualifiedNameErrors } from '../api/validation/names.ts';
import { defineKind } from '../registry/kind.ts';
import { canonicalJson } from '../registry/system-fields.ts';
import { statusSubresource } from '../registry/subresources.ts';
import * as field from '../registry/validation/field.ts';
import { quantityValueErrors } from './core-resources.ts';
import { taintEffectErrors } from './tolerations.ts';
import { ageCell } from './columns.ts';

type Taint = { key?: string; value?: string; effect?: string; timeAdded?: string };
type Spec = { podCIDR?: string; podCIDRs?: string[]; providerID?: string; unschedulable?: boolean; taints?: Taint[]; externalID?: string };
type Address = { type?: string; address?: string };
type Status = { capacity?: Record<string, string>; allocatable?: Record<string, string>; conditions?: { type?: string; status?: string }[]; addresses?: Address[]; nodeInfo?: Record<string, string> };

const specOf = (obj: KubeObject) => (obj.spec ?? {}) as Spec;
const statusOf = (obj: KubeObject) => (obj.status ?? {}) as Status;
const CIDR_ERROR = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';
const POD_CIDR_CHANGE = 'node updates may not change podCIDR except from "" to valid';

/** validateNodeTaints (upstream reports them under metadata.taints). */
function taintErrors(taints: Taint[]): FieldError[] {
  const at = field.path('metadata', 'taints');
  const errs: FieldError[] = [];
  const seen = new Map<string, Set<string>>();
  taints.forEach((t, i) => {
    const p = at.index(i);
    const key = t.key ?? '';
    for (const msg of qualifiedNameErrors(key)) errs.push(field.invalid(p.child('key'), key, msg));
    const problems = labelValueErrors(t.value ?? '');
    if (problems.length) errs.push(field.invalid(p.child('value'), t.value ?? '', problems.join(';')));
    errs.push(...taintEffectErrors(t.effect, false, p.child('effect')));
    const effect = t.effect ?? '';
    if (seen.get(effect)?.has(key)) {
      const shown = goStruct({ Key: key, Value: t.value ?? '', Effect: effect, TimeAdded: t.timeAdded ?? null });
      errs.push({ ...field.duplicate(p, shown), detail: 'taints must be unique by key and effect pair' });
      return;
    }
    if (!seen.has(effect)) seen.set(effect, new Set());
    seen.get(effect)!.add(key);
  });
  return errs;
}

/** ValidateNodeResources: capacity and allocatable quantities (paths as upstream writes them). */
function resourceErrors(obj: KubeObject): FieldError[] {
  const status = statusOf(obj);
  const errs: FieldError[] = [];
  for (const part of ['capacity', 'allocatable'] as const) {
    for (const k of Object.keys(status[part] ?? {}).sort()) errs.push(...quantityValueErrors(k, status[part]![k]!, field.path('status', part, k)));
  }
  return errs;
}

function validate(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const errs = spec.taints?.length ? taintErrors(spec.taints) : [];
  errs.push(...resourceErrors(obj));
  const cidrs = spec.podCIDRs ?? [];
  const at = field.path('spec', 'podCIDRs');
  cidrs.forEach((c, i) => {
    if (!parseCidrSloppy(c)) errs.push(field.invalid(at.index(i), c, CIDR_ERROR));
  });
  if (cidrs.length > 1) {
    const families = cidrs.map((c) => parseCidrSloppy(c)?.v4);
    const dualStack = cidrs.length === 2 && families[0] !== undefined && families[1] !== undefined && families[0] !== families[1];
    if (!dualStack) errs.push(field.invalid(at, cidrs, 'may specify no more than one CIDR for each IP family'));
    const seen = new Set<string>();
    cidrs.forEach((c, i) => {
      if (seen.has(c)) errs.push(field.duplicate(at.index(i), c));
      seen.add(c);
    });
  }
  return errs;
}

function validateUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const before = specOf(old);
  const errs = resourceErrors(obj);
  const seen = new Set<string>();
  (statusOf(obj).addresses ?? []).forEach((a, i) => {
    const key = canonicalJson({ type: a.type ?? '', address: a.address ?? '' });
    if (seen.has(key)) errs.push(field.duplicate(field.path('status', 'addresses').index(i), goStruct({ Type: a.type ?? '', Address: a.address ?? '' })));
    seen.add(key);
  });
  const oldCidrs = before.podCIDRs ?? [];
  if (oldCidrs.length > 0) {
    const now = spec.podCIDRs ?? [];
    if (now.length !== oldCidrs.length) errs.push(field.forbidden(field.path('spec', 'podCIDRs'), POD_CIDR_CHANGE));
    else oldCidrs.forEach((c, i) => {
      if (c !== now[i]) errs.push(field.forbidden(field.path('spec', 'podCIDRs'), POD_CIDR_CHANGE));
    });
  }
  if (before.providerID && before.providerID !== spec.providerID) errs.push(field.forbidden(field.path('spec', 'providerID'), 'node updates may not change providerID except from "" to valid'));
  if (spec.taints?.length) errs.push(...taintErrors(spec.taints));
  if ((spec.externalID ?? '') !== (before.externalID ?? '')) errs.push(field.forbidden(field.path('spec', 'externalID'), 'may not be updated'));
  return errs;
}

/** Ready/NotReady (Unknown without a Ready condition), plus SchedulingDisabled. */
function nodeStatus(o: KubeObject): string {
  const ready = statusOf(o).conditions?.find((c) => c.type === 'Ready');
  const parts = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (specOf(o).unschedulable) parts.push('SchedulingDisabled');
  return parts.join(',');
}

/** Roles from node-role.kubernetes.io/<role> labels and the kubernetes.io/role label. */
function roles(o: KubeObject): string {
  const found = new Set<string>();
  for (const [k, v] of Object.entries(o.metadata?.labels ?? {})) {
    if (k.startsWith('node-role.kubernetes.io/')) found.add(k.slice('node-role.kubernetes.io/'.length));
    else if (k === 'kubernetes.io/role' && v) found.add(v);
  }
  return [...found].sort().join(',') || '<none>';
}

const address = (o: KubeObject, type: string) => statusOf(o).addresses?.find((a) => a.type === type)?.address ?? '<none>';
const info = (o: KubeObject, key: string) => statusOf(o).nodeInfo?.[key] || '<unknown>';

/** core v1 Node: a machine of the cluster (the kubelet creates and heartbeats it). */
export const nodes = defineKind({
  group: '',
  version: 'v1',
  kind: 'Node',
  plural: 'nodes',
  shortNames: ['no'],
  namespaced: false,
  schemaMessage: 'k8s.io.api.core.v1.Node',
  subresources: [statusSubresource({ validateUpdate: (_ctx, obj, old) => validateUpdate(obj, old) })],
  fieldSelectors: { 'spec.unschedulable': { path: ['spec', 'unschedulable'], missing: 'false' } },
  tableColumns: [
    { name: 'Name', type: 'string', format: 'name', description: 'The name of the node.', cell: (o) => o.metadata?.name ?? '' },
    { name: 'Status', type: 'string', description: 'Whether the node is ready, and schedulable.', cell: nodeStatus },
    { name: 'Roles', type: 'string', description: 'The roles of the node.', cell: roles },
    { name: 'Age', type: 'string', description: 'Time since the node was created.', cell: ageCell },
    { name: 'Version', type: 'string', description: 'The kubelet version.', cell: (o) => statusOf(o).nodeInfo?.kubeletVersion ?? '' },
    { name: 'Internal-IP', type: 'string', priority: 1, description: 'The internal address.', cell: (o) => address(o, 'InternalIP') },
    { name: 'External-IP', type: 'string', priority: 1, description: 'The external address.', cell: (o) => address(o, 'ExternalIP') },
    { name: 'OS-Image', type: 'string', priority: 1, description: 'The operating system image.', cell: (o) => info(o, 'osImage') },
    { name: 'Kernel-Version', type: 'string', priority: 1, description: 'The kernel version.', cell: (o) => info(o, 'kernelVersion') },
    { name: 'Container-Runtime', type: 'string', priority: 1, description: 'The container runtime version.', cell: (o) => info(o, 'containerRuntimeVersion') },
  ],
  strategy: {
    validate: (_ctx, obj) => validate(obj),
    validateUpdate: (_ctx, obj, old) => validateUpdate(obj, old),
  },
});
