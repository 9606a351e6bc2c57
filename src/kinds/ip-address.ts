import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { formatAddr, parseAddr } from '../api/go/netip.ts';
import { goStruct } from '../api/go/values.ts';
import { dns1123LabelErrors, dns1123SubdomainErrors, pathSegmentNameErrors } from '../api/validation/names.ts';
import { defineKind } from '../registry/kind.ts';
import { canonicalJson } from '../registry/system-fields.ts';
import * as field from '../registry/validation/field.ts';

type ParentRef = { group?: string; resource?: string; namespace?: string; name?: string };
const parentOf = (obj: KubeObject) => ((obj.spec ?? {}) as { parentRef?: ParentRef | null }).parentRef;

/** An IPAddress is named by its address, in the canonical form Go prints. */
function ipAddressNameErrors(name: string): string[] {
  const parsed = parseAddr(name);
  if ('error' in parsed) return [parsed.error];
  return formatAddr(parsed) === name ? [] : ['must be a canonical format IP address'];
}

function validateParentRef(obj: KubeObject): FieldError[] {
  const ref = parentOf(obj);
  const at = field.path('spec', 'parentRef');
  if (!ref) return [field.required(at)];
  const errs: FieldError[] = [];
  // The core group (Services) is the empty string, so the group cannot be required.
  if (ref.group) for (const msg of dns1123SubdomainErrors(ref.group)) errs.push(field.invalid(at.child('group'), ref.group, msg));
  for (const name of ['resource', 'name'] as const) {
    const value = ref[name] ?? '';
    if (value === '') errs.push(field.required(at.child(name)));
    else for (const msg of pathSegmentNameErrors(value)) errs.push(field.invalid(at.child(name), value, msg));
  }
  if (ref.namespace) for (const msg of dns1123LabelErrors(ref.namespace)) errs.push(field.invalid(at.child('namespace'), ref.namespace, msg));
  return errs;
}

/** The parent reference as upstream prints its internal struct in an immutability error. */
function parentValue(ref: ParentRef | null | undefined): unknown {
  return ref ? goStruct({ Group: ref.group ?? '', Resource: ref.resource ?? '', Namespace: ref.namespace ?? '', Name: ref.name ?? '' }) : null;
}

/** kubectl's PARENTREF column: `resource[.group][/namespace]/name`, lower-cased. */
function parentColumn(obj: KubeObject): string {
  const ref = parentOf(obj);
  if (!ref) return '<none>';
  const gr = ref.group ? `${ref.resource ?? ''}.${ref.group}` : (ref.resource ?? '');
  return `${gr.toLowerCase()}${ref.namespace ? `/${ref.namespace}` : ''}/${ref.name ?? ''}`;
}

/** networking.k8s.io/v1 IPAddress: one allocated IP, named by the address, with the object that holds it. */
export const ipAddresses = defineKind({
  group: 'networking.k8s.io',
  version: 'v1',
  kind: 'IPAddress',
  plural: 'ipaddresses',
  namespaced: false,
  shortNames: ['ip'],
  schemaMessage: 'k8s.io.api.networking.v1.IPAddress',
  nameRule: ipAddressNameErrors,
  tableColumns: [{ name: 'ParentRef', type: 'string', description: 'The object the IP address is allocated to.', cell: parentColumn }],
  strategy: {
    validate: (_ctx, obj) => validateParentRef(obj),
    validateUpdate: (_ctx, obj, old) =>
      canonicalJson(parentOf(obj) ?? null) === canonicalJson(parentOf(old) ?? null) ? [] : [field.immutable(field.path('spec', 'parentRef'), parentValue(parentOf(obj)))],
  },
});
