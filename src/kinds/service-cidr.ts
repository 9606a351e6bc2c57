import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { parseCidrSloppy, strictCidrErrors } from '../api/go/cidr.ts';
import { goStruct } from '../api/go/values.ts';
import { defineKind } from '../registry/kind.ts';
import { statusSubresource } from '../registry/subresources.ts';
import * as field from '../registry/validation/field.ts';

const cidrsOf = (obj: KubeObject) => ((obj.spec as { cidrs?: string[] } | undefined)?.cidrs ?? []) as string[];
const CIDRS = field.path('spec', 'cidrs');
const IMMUTABLE = 'field is immutable';

/** IP family of a CIDR text: 4, 6, or undefined when it does not parse. */
function familyOf(text: string): 4 | 6 | undefined {
  const c = parseCidrSloppy(text);
  return c ? (c.v4 ? 4 : 6) : undefined;
}

/** Upstream's validateServiceCIDRSpec: one or two strict CIDRs, one per IP family. */
function specErrors(cidrs: string[]): FieldError[] {
  if (cidrs.length === 0) return [field.required(CIDRS, 'at least one CIDR required')];
  // Upstream reports its internal spec struct here.
  if (cidrs.length > 2) return [field.invalid(CIDRS, goStruct({ CIDRs: cidrs }), 'may only hold up to 2 values')];
  const errs: FieldError[] = [];
  cidrs.forEach((c, i) => {
    for (const msg of strictCidrErrors(c)) errs.push(field.invalid(CIDRS.index(i), c, msg));
  });
  if (cidrs.length === 2 && familyOf(cidrs[0]!) !== undefined && familyOf(cidrs[0]!) === familyOf(cidrs[1]!)) {
    errs.push(field.invalid(CIDRS, cidrs, 'may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64'));
  }
  return errs;
}

/** The CIDRs never change, but a single-stack range may gain its other family. */
function updateErrors(obj: KubeObject, old: KubeObject): FieldError[] {
  const now = cidrsOf(obj);
  const before = cidrsOf(old);
  if (now.length === before.length) return before.flatMap((c, i) => (c === now[i] ? [] : [field.invalid(CIDRS.index(i), now[i], IMMUTABLE)]));
  if (before.length === 1 && now.length === 2) {
    const errs = now[0] === before[0] ? [] : [field.invalid(CIDRS.index(0), now[0], IMMUTABLE)];
    return [...errs, ...specErrors(now)];
  }
  return [field.invalid(CIDRS, now, IMMUTABLE)];
}

/** networking.k8s.io/v1 ServiceCIDR: ranges Service cluster IPs are allocated from. */
export const serviceCIDRs = defineKind({
  group: 'networking.k8s.io',
  version: 'v1',
  kind: 'ServiceCIDR',
  plural: 'servicecidrs',
  namespaced: false,
  schemaMessage: 'k8s.io.api.networking.v1.ServiceCIDR',
  subresources: [statusSubresource({ validateUpdate: () => [] })],
  tableColumns: [{ name: 'CIDRs', type: 'string', description: 'The ranges of the ServiceCIDR.', cell: (o) => cidrsOf(o).join(',') }],
  strategy: {
    // Status is the controller's: a create starts it empty (Go's zero struct, which JSON shows as {}).
    prepareForCreate: (_ctx, obj) => {
      obj.status = {};
    },
    validate: (_ctx, obj) => specErrors(cidrsOf(obj)),
    validateUpdate: (_ctx, obj, old) => updateErrors(obj, old),
  },
});
