import { ipAddresses } from '../../src/kinds/ip-address.ts';
import { runKindSuite } from './kind-suite.ts';

const ip = (name: string, parentRef: Record<string, unknown> | null = { resource: 'services', namespace: 'default', name: 'web' }) => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'IPAddress',
  metadata: { name },
  spec: parentRef ? { parentRef } : {},
});

// Expectations from upstream's ValidateIPAddress / ValidateIPAddressUpdate (1.34) and Go's netip errors.
runKindSuite({
  kind: ipAddresses,
  valid: [
    { name: 'an IPv4 address', object: ip('10.0.0.1') },
    { name: 'an IPv6 address in RFC 5952 form', object: ip('2001:db8::1') },
    { name: 'a parent in a named group', object: ip('10.0.0.2', { group: 'gateway.networking.k8s.io', resource: 'gateways', name: 'gw' }) },
  ],
  invalid: [
    { name: 'a leading zero', object: ip('10.0.0.01'), errors: [{ field: 'metadata.name', message: 'Invalid value: "10.0.0.01": ParseAddr("10.0.0.01"): IPv4 field has octet with leading zero' }] },
    { name: 'not an address', object: ip('web'), errors: [{ field: 'metadata.name', message: 'Invalid value: "web": ParseAddr("web"): unable to parse IP' }] },
    { name: 'IPv6 not in canonical form', object: ip('2001:db8:0:0:0:0:0:1'), errors: [{ field: 'metadata.name', message: 'Invalid value: "2001:db8:0:0:0:0:0:1": must be a canonical format IP address' }] },
    { name: 'no parentRef', object: ip('10.0.0.3', null), errors: [{ field: 'spec.parentRef', message: 'Required value' }] },
    {
      name: 'a parentRef without resource and name, and a path-breaking name',
      object: ip('10.0.0.4', { namespace: 'Bad_NS' }),
      errors: [
        { field: 'spec.parentRef.resource', message: 'Required value' },
        { field: 'spec.parentRef.name', message: 'Required value' },
        {
          field: 'spec.parentRef.namespace',
          message: `Invalid value: "Bad_NS": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
        },
      ],
    },
    { name: 'a parent name with / and %', object: ip('10.0.0.5', { resource: 'services', name: 'a/b%c' }), errors: [{ field: 'spec.parentRef.name', message: `Invalid value: "a/b%c": may not contain '/'` }, { field: 'spec.parentRef.name', message: `Invalid value: "a/b%c": may not contain '%'` }] },
  ],
  updates: [
    {
      name: 'the parentRef is immutable',
      object: ip('10.0.0.6'),
      change: (o) => ({ ...o, spec: { parentRef: { resource: 'services', namespace: 'default', name: 'other' } } }),
      errors: [{ field: 'spec.parentRef', message: 'Invalid value: {"Group":"","Resource":"services","Namespace":"default","Name":"other"}: field is immutable' }],
    },
  ],
  columns: [
    { name: 'ParentRef of a Service', object: ip('10.0.0.7'), cells: ['services/default/web'] },
    { name: 'ParentRef in a named group', object: ip('10.0.0.8', { group: 'gateway.networking.k8s.io', resource: 'Gateways', name: 'gw' }), cells: ['gateways.gateway.networking.k8s.io/gw'] },
  ],
});
