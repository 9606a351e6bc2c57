import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { parseCidrSloppy } from '../api/go/cidr.ts';
import { portNameErrors, portNumberErrors } from '../api/validation/names.ts';
import { defineKind } from '../registry/kind.ts';
import * as field from '../registry/validation/field.ts';
import { formatLabelSelector, labelSelectorErrors, type LabelSelectorValue } from '../registry/validation/label-selector.ts';
import { cidrWarnings, goCidrContains } from './network-policy-cidr.ts';

type Port = { protocol?: string; port?: number | string; endPort?: number };
type IPBlock = { cidr?: string; except?: string[] };
type Peer = { podSelector?: LabelSelectorValue | null; namespaceSelector?: LabelSelectorValue | null; ipBlock?: IPBlock | null };
type Spec = { podSelector?: LabelSelectorValue; ingress?: { ports?: Port[]; from?: Peer[] }[]; egress?: { ports?: Port[]; to?: Peer[] }[]; policyTypes?: string[] };

/**
 * What an update may keep that a create would refuse: CIDRs the stored policy already holds, and
 * invalid label values in selectors when the stored pod selector is itself invalid.
 */
interface Allowances {
  readonly cidrs: ReadonlySet<string>;
  readonly invalidLabelValues: boolean;
}

const CREATE: Allowances = { cidrs: new Set(), invalidLabelValues: false };
const specOf = (obj: KubeObject) => (obj.spec ?? {}) as Spec;
const PROTOCOLS = ['TCP', 'UDP', 'SCTP'];
const POLICY_TYPES = ['Ingress', 'Egress'];
const CIDR_ERROR = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';

/** The v1 defaults: protocol TCP, and policyTypes Ingress (plus Egress when egress rules exist). */
function defaultSpec(obj: KubeObject): void {
  const spec = ((obj.spec as Spec | undefined) ??= {}) as Spec;
  spec.podSelector ??= {};
  for (const rule of [...(spec.ingress ?? []), ...(spec.egress ?? [])]) for (const port of rule.ports ?? []) port.protocol ??= 'TCP';
  if (!spec.policyTypes || spec.policyTypes.length === 0) spec.policyTypes = spec.egress?.length ? ['Ingress', 'Egress'] : ['Ingress'];
}

function portErrors(port: Port, at: field.FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (port.protocol !== undefined && !PROTOCOLS.includes(port.protocol)) errs.push(field.notSupported(at.child('protocol'), port.protocol, PROTOCOLS));
  if (port.port === undefined) {
    if (port.endPort !== undefined) errs.push(field.invalid(at.child('endPort'), port.endPort, 'may not be specified when `port` is not specified'));
  } else if (typeof port.port === 'number') {
    for (const msg of portNumberErrors(port.port)) errs.push(field.invalid(at.child('port'), port.port, msg));
    if (port.endPort !== undefined) {
      if (port.endPort < port.port) errs.push(field.invalid(at.child('endPort'), port.endPort, 'must be greater than or equal to `port`'));
      for (const msg of portNumberErrors(port.endPort)) errs.push(field.invalid(at.child('endPort'), port.endPort, msg));
    }
  } else {
    if (port.endPort !== undefined) errs.push(field.invalid(at.child('endPort'), port.endPort, 'may not be specified when `port` is non-numeric'));
    for (const msg of portNameErrors(port.port)) errs.push(field.invalid(at.child('port'), port.port, msg));
  }
  return errs;
}

/** Selector errors; with the legacy allowance, values of matchExpressions are not judged. */
function selectorErrors(selector: LabelSelectorValue | null | undefined, at: field.FieldPath, allow: Allowances): FieldError[] {
  const errs = labelSelectorErrors(selector, at);
  return allow.invalidLabelValues ? errs.filter((e) => !/\.matchExpressions\[\d+\]\.values\[\d+\]$/.test(e.field)) : errs;
}

function ipBlockErrors(block: IPBlock, at: field.FieldPath, existing: ReadonlySet<string>): FieldError[] {
  if (!block.cidr) return [field.required(at.child('cidr'))];
  const errs: FieldError[] = [];
  const cidr = parseCidrSloppy(block.cidr);
  if (!cidr && !existing.has(block.cidr)) errs.push(field.invalid(at.child('cidr'), block.cidr, CIDR_ERROR));
  if (!cidr) return errs;
  (block.except ?? []).forEach((text, i) => {
    const p = at.child('except').index(i);
    const except = parseCidrSloppy(text);
    if (!except) {
      if (!existing.has(text)) errs.push(field.invalid(p, text, CIDR_ERROR));
      return;
    }
    if (!goCidrContains(cidr, except) || cidr.prefix >= except.prefix) errs.push(field.invalid(p, text, 'must be a strict subset of `cidr`'));
  });
  return errs;
}

function peerErrors(peer: Peer, at: field.FieldPath, allow: Allowances): FieldError[] {
  const errs: FieldError[] = [];
  let count = 0;
  if (peer.podSelector) {
    count++;
    errs.push(...selectorErrors(peer.podSelector, at.child('podSelector'), allow));
  }
  if (peer.namespaceSelector) {
    count++;
    errs.push(...selectorErrors(peer.namespaceSelector, at.child('namespaceSelector'), allow));
  }
  if (peer.ipBlock) {
    count++;
    errs.push(...ipBlockErrors(peer.ipBlock, at.child('ipBlock'), allow.cidrs));
  }
  if (count === 0) errs.push(field.required(at, 'must specify a peer'));
  else if (count > 1 && peer.ipBlock) errs.push(field.forbidden(at, 'may not specify both ipBlock and another peer'));
  return errs;
}

/** Upstream's ValidateNetworkPolicySpec. */
function validateSpec(obj: KubeObject, allow: Allowances): FieldError[] {
  const spec = specOf(obj);
  const at = field.path('spec');
  const errs = selectorErrors(spec.podSelector, at.child('podSelector'), allow);
  (spec.ingress ?? []).forEach((rule, i) => {
    const p = at.child('ingress').index(i);
    (rule.ports ?? []).forEach((port, j) => errs.push(...portErrors(port, p.child('ports').index(j))));
    (rule.from ?? []).forEach((peer, j) => errs.push(...peerErrors(peer, p.child('from').index(j), allow)));
  });
  (spec.egress ?? []).forEach((rule, i) => {
    const p = at.child('egress').index(i);
    (rule.ports ?? []).forEach((port, j) => errs.push(...portErrors(port, p.child('ports').index(j))));
    (rule.to ?? []).forEach((peer, j) => errs.push(...peerErrors(peer, p.child('to').index(j), allow)));
  });
  const types = spec.policyTypes ?? [];
  if (types.length > POLICY_TYPES.length) {
    errs.push(field.invalid(at.child('policyTypes'), types, 'may not specify more than two policyTypes'));
    return errs;
  }
  types.forEach((t, i) => {
    if (!POLICY_TYPES.includes(t)) errs.push(field.notSupported(at.child('policyTypes').index(i), t, POLICY_TYPES));
  });
  return errs;
}

/** Every ipBlock with its path, ingress peers first. */
function ipBlocksOf(obj: KubeObject): { block: IPBlock; at: field.FieldPath }[] {
  const spec = specOf(obj);
  const out: { block: IPBlock; at: field.FieldPath }[] = [];
  (spec.ingress ?? []).forEach((r, i) => (r.from ?? []).forEach((p, j) => p.ipBlock && out.push({ block: p.ipBlock, at: field.path('spec', 'ingress').index(i).child('from').index(j).child('ipBlock') })));
  (spec.egress ?? []).forEach((r, i) => (r.to ?? []).forEach((p, j) => p.ipBlock && out.push({ block: p.ipBlock, at: field.path('spec', 'egress').index(i).child('to').index(j).child('ipBlock') })));
  return out;
}

/** Upstream's update options, read from the stored policy. */
function allowancesFrom(old: KubeObject): Allowances {
  const cidrs = new Set(ipBlocksOf(old).flatMap(({ block }) => [block.cidr ?? '', ...(block.except ?? [])]));
  return { cidrs, invalidLabelValues: labelSelectorErrors(specOf(old).podSelector, field.path('spec')).length > 0 };
}

/** Warnings for CIDRs that parse but are ambiguous or non-standard. */
function warnings(obj: KubeObject): string[] {
  return ipBlocksOf(obj).flatMap(({ block, at }) => [
    ...cidrWarnings(at.child('cidr'), block.cidr ?? ''),
    ...(block.except ?? []).flatMap((e, k) => cidrWarnings(at.child('except').index(k), e)),
  ]);
}

/** networking.k8s.io/v1 NetworkPolicy: which traffic the selected pods may receive and send. */
export const networkPolicies = defineKind({
  group: 'networking.k8s.io',
  version: 'v1',
  kind: 'NetworkPolicy',
  plural: 'networkpolicies',
  shortNames: ['netpol'],
  namespaced: true,
  schemaMessage: 'k8s.io.api.networking.v1.NetworkPolicy',
  tracksGeneration: true,
  tableColumns: [{ name: 'Pod-Selector', type: 'string', description: 'The pods the policy applies to.', cell: (o) => formatLabelSelector(specOf(o).podSelector) }],
  strategy: {
    default: (_ctx, obj) => defaultSpec(obj),
    validate: (_ctx, obj) => validateSpec(obj, CREATE),
    validateUpdate: (_ctx, obj, old) => validateSpec(obj, allowancesFrom(old)),
    warningsOnCreate: (_ctx, obj) => warnings(obj),
    warningsOnUpdate: (_ctx, obj) => warnings(obj),
  },
});
