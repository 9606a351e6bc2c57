import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { testContext } from '../helpers/registry.ts';
import { networkPolicies } from '../../src/kinds/network-policy.ts';
import { runKindSuite } from './kind-suite.ts';

const policy = (spec: Record<string, unknown>) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', spec });

// Expectations from upstream's ValidateNetworkPolicy(Update) and the v1 defaults (1.34).
runKindSuite({
  kind: networkPolicies,
  valid: [
    { name: 'deny all (empty spec)', object: policy({}) },
    {
      name: 'every peer and port form',
      object: policy({
        podSelector: { matchLabels: { app: 'web' } },
        ingress: [{ from: [{ podSelector: {} }, { namespaceSelector: { matchLabels: { team: 'a' } }, podSelector: { matchLabels: { role: 'db' } } }, { ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }], ports: [{ port: 80 }, { port: 'http', protocol: 'TCP' }, { port: 8000, endPort: 9000, protocol: 'UDP' }] }],
        egress: [{ to: [{ ipBlock: { cidr: '2001:db8::/32', except: ['2001:db8:1::/48'] } }] }],
        policyTypes: ['Ingress', 'Egress'],
      }),
    },
  ],
  invalid: [
    {
      name: 'ports: protocol, range, names, endPort rules',
      object: policy({ ingress: [{ ports: [{ protocol: 'ICMP', port: 0 }, { port: 9000, endPort: 8000 }, { port: 'Bad--', endPort: 1 }, { endPort: 5 }] }] }),
      errors: [
        { field: 'spec.ingress[0].ports[0].protocol', message: 'Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"' },
        { field: 'spec.ingress[0].ports[0].port', message: 'Invalid value: 0: must be between 1 and 65535, inclusive' },
        { field: 'spec.ingress[0].ports[1].endPort', message: 'Invalid value: 8000: must be greater than or equal to `port`' },
        { field: 'spec.ingress[0].ports[2].endPort', message: 'Invalid value: 1: may not be specified when `port` is non-numeric' },
        { field: 'spec.ingress[0].ports[2].port', message: 'Invalid value: "Bad--": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)' },
        { field: 'spec.ingress[0].ports[2].port', message: 'Invalid value: "Bad--": must not contain consecutive hyphens' },
        { field: 'spec.ingress[0].ports[2].port', message: 'Invalid value: "Bad--": must not begin or end with a hyphen' },
        { field: 'spec.ingress[0].ports[3].endPort', message: 'Invalid value: 5: may not be specified when `port` is not specified' },
      ],
    },
    {
      name: 'peers: none given, ipBlock with another peer, bad and outside excepts',
      object: policy({ egress: [{ to: [{}, { ipBlock: { cidr: '10.0.0.0/8' }, podSelector: {} }, { ipBlock: { cidr: '10.0.0.0/8', except: ['11.0.0.0/16', '10.0.0.0/8', 'nope'] } }, { ipBlock: { cidr: '' } }] }] }),
      errors: [
        { field: 'spec.egress[0].to[0]', message: 'Required value: must specify a peer' },
        { field: 'spec.egress[0].to[1]', message: 'Forbidden: may not specify both ipBlock and another peer' },
        { field: 'spec.egress[0].to[2].ipBlock.except[0]', message: 'Invalid value: "11.0.0.0/16": must be a strict subset of `cidr`' },
        { field: 'spec.egress[0].to[2].ipBlock.except[1]', message: 'Invalid value: "10.0.0.0/8": must be a strict subset of `cidr`' },
        { field: 'spec.egress[0].to[2].ipBlock.except[2]', message: 'Invalid value: "nope": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)' },
        { field: 'spec.egress[0].to[3].ipBlock.cidr', message: 'Required value' },
      ],
    },
    {
      name: 'policy types',
      object: policy({ policyTypes: ['Ingress', 'Sideways'] }),
      errors: [{ field: 'spec.policyTypes[1]', message: 'Unsupported value: "Sideways": supported values: "Ingress", "Egress"' }],
    },
    {
      name: 'more than two policy types',
      object: policy({ policyTypes: ['Ingress', 'Egress', 'Ingress'] }),
      errors: [{ field: 'spec.policyTypes', message: 'Invalid value: ["Ingress","Egress","Ingress"]: may not specify more than two policyTypes' }],
    },
  ],
  updates: [
    {
      name: 'a spec change bumps the generation',
      object: policy({}),
      change: (o) => ({ ...o, spec: { ...(o.spec as object), policyTypes: ['Egress'] } }),
      expect: (o) => assert.equal(o.metadata?.generation, 2),
    },
  ],
  defaults: [
    { name: 'Ingress only without egress rules; protocol TCP', object: policy({ ingress: [{ ports: [{ port: 80 }] }] }), expect: (o) => assert.deepEqual(o.spec, { podSelector: {}, ingress: [{ ports: [{ port: 80, protocol: 'TCP' }] }], policyTypes: ['Ingress'] }) },
    { name: 'Ingress and Egress with egress rules', object: policy({ egress: [{}] }), expect: (o) => assert.deepEqual((o.spec as { policyTypes: string[] }).policyTypes, ['Ingress', 'Egress']) },
  ],
  columns: [
    { name: 'an empty selector selects every pod', object: policy({}), cells: ['<none>'] },
    { name: 'the pod selector', object: policy({ podSelector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }, { key: 'canary', operator: 'DoesNotExist' }] } }), cells: ['app=web,!canary,tier in (a,b)'] },
  ],
});

// apimachinery's GetWarningsForCIDR on ipBlocks, and upstream's allowance to keep stored CIDRs on update.
describe('NetworkPolicy CIDR warnings and update allowances', () => {
  const warn = (cidr: string) => networkPolicies.strategy.warningsOnCreate!(testContext(), policy({ ingress: [{ from: [{ ipBlock: { cidr } }] }] }) as never);
  test('a canonical CIDR draws no warning', () => assert.deepEqual(warn('10.0.0.0/8'), []));
  test('bits past the prefix are ambiguous', () =>
    assert.deepEqual(warn('10.1.2.3/8'), ['spec.ingress[0].from[0].ipBlock.cidr: CIDR value "10.1.2.3/8" is ambiguous in this context (should be "10.0.0.0/8" or "10.1.2.3/32"?)']));
  test('leading zeros are non-standard', () =>
    assert.deepEqual(warn('010.0.0.0/8'), ['spec.ingress[0].from[0].ipBlock.cidr: non-standard CIDR value "010.0.0.0/8" will be considered invalid in a future Kubernetes release: use "10.0.0.0/8"']));
  test('IPv6 outside RFC 5952 form', () =>
    assert.deepEqual(warn('2001:DB8::/32'), ['spec.ingress[0].from[0].ipBlock.cidr: IPv6 CIDR value "2001:DB8::/32" should be in RFC 5952 canonical format ("2001:db8::/32")']));
});
