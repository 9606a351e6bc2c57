import assert from 'node:assert/strict';
import { serviceCIDRs } from '../../src/kinds/service-cidr.ts';
import { runKindSuite } from './kind-suite.ts';

const cidr = (cidrs: string[], extra: Record<string, unknown> = {}) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', spec: { cidrs }, ...extra });

// Expectations from upstream's ValidateServiceCIDR(Update) and apimachinery's IsValidCIDR (1.34).
runKindSuite({
  kind: serviceCIDRs,
  valid: [
    { name: 'single stack', object: cidr(['10.96.0.0/16']) },
    { name: 'dual stack', object: cidr(['10.96.0.0/16', 'fd00:10:96::/112']) },
  ],
  invalid: [
    { name: 'no CIDRs', object: cidr([]), errors: [{ field: 'spec.cidrs', message: 'Required value: at least one CIDR required' }] },
    { name: 'three CIDRs', object: cidr(['10.0.0.0/8', 'fd00::/64', '11.0.0.0/8']), errors: [{ field: 'spec.cidrs', message: 'Invalid value: {"CIDRs":["10.0.0.0/8","fd00::/64","11.0.0.0/8"]}: may only hold up to 2 values' }] },
    { name: 'two of one family', object: cidr(['10.0.0.0/8', '11.0.0.0/8']), errors: [{ field: 'spec.cidrs', message: 'Invalid value: ["10.0.0.0/8","11.0.0.0/8"]: may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64' }] },
    {
      name: 'strict CIDR rules',
      object: cidr(['10.0.0.1/8', 'FD00::/64']),
      errors: [
        { field: 'spec.cidrs[0]', message: 'Invalid value: "10.0.0.1/8": must not have bits set beyond the prefix length' },
        { field: 'spec.cidrs[1]', message: 'Invalid value: "FD00::/64": must be in canonical form ("fd00::/64")' },
      ],
    },
    { name: 'leading zeros', object: cidr(['010.0.0.0/8']), errors: [{ field: 'spec.cidrs[0]', message: 'Invalid value: "010.0.0.0/8": must not have leading 0s in IP or prefix length' }] },
    { name: 'not a CIDR', object: cidr(['10.0.0.0']), errors: [{ field: 'spec.cidrs[0]', message: 'Invalid value: "10.0.0.0": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)' }] },
    { name: 'IPv4-mapped IPv6', object: cidr(['::ffff:10.0.0.0/104']), errors: [{ field: 'spec.cidrs[0]', message: 'Invalid value: "::ffff:10.0.0.0/104": must not have an IPv4-mapped IPv6 address' }] },
  ],
  updates: [
    { name: 'a range cannot change', object: cidr(['10.96.0.0/16']), change: (o) => cidr(['10.97.0.0/16'], { metadata: o.metadata }), errors: [{ field: 'spec.cidrs[0]', message: 'Invalid value: "10.97.0.0/16": field is immutable' }] },
    { name: 'single stack may become dual stack', object: cidr(['10.96.0.0/16']), change: (o) => cidr(['10.96.0.0/16', 'fd00::/112'], { metadata: o.metadata }), expect: (o) => assert.equal((o.spec as { cidrs: string[] }).cidrs.length, 2) },
    { name: 'but not lose a range', object: cidr(['10.96.0.0/16', 'fd00::/112']), change: (o) => cidr(['10.96.0.0/16'], { metadata: o.metadata }), errors: [{ field: 'spec.cidrs', message: 'Invalid value: ["10.96.0.0/16"]: field is immutable' }] },
  ],
  defaults: [{ name: 'status starts empty, whatever the create says', object: cidr(['10.96.0.0/16'], { status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z', reason: 'x', message: '' }] } }), expect: (o) => assert.deepEqual(o.status, {}) }],
  columns: [{ name: 'CIDRs joined', object: cidr(['10.96.0.0/16', 'fd00::/112']), cells: ['10.96.0.0/16,fd00::/112'] }],
});
