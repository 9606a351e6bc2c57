import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { nodes } from '../../src/kinds/node.ts';
import { parseListQuery } from '../../src/registry/list-options.ts';
import { openTestRegistry, testContext, type TestRegistry } from '../helpers/registry.ts';
import { runKindSuite } from './kind-suite.ts';

const node = (spec: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Node', spec, ...extra });

// Expectations from upstream's ValidateNode(Update) and the node printer (1.34).
runKindSuite({
  kind: nodes,
  valid: [
    { name: 'a bare node', object: node() },
    { name: 'taints, dual-stack pod CIDRs, status', object: node({ taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }], podCIDRs: ['10.244.0.0/24', 'fd00:10:244::/64'], providerID: 'aws:///i-1' }, { status: { capacity: { cpu: '4', memory: '16Gi', pods: '110' } } }) },
  ],
  invalid: [
    {
      name: 'taints: key, value, effect, duplicates (under metadata.taints, as upstream)',
      object: node({ taints: [{ key: 'a b', value: 'x', effect: 'Sometimes' }, { key: 'k', effect: '' }, { key: 'k', effect: 'NoSchedule' }, { key: 'k', effect: 'NoSchedule' }] }),
      errors: [
        { field: 'metadata.taints[0].key', message: `Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')` },
        { field: 'metadata.taints[0].effect', message: 'Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"' },
        { field: 'metadata.taints[1].effect', message: 'Required value' },
        { field: 'metadata.taints[3]', message: 'Duplicate value: {"Key":"k","Value":"","Effect":"NoSchedule","TimeAdded":null}: taints must be unique by key and effect pair' },
      ],
    },
    {
      name: 'pod CIDRs: invalid, same family twice',
      object: node({ podCIDRs: ['10.0.0.0/8', '11.0.0.0/8', 'x'] }),
      errors: [
        { field: 'spec.podCIDRs[2]', message: 'Invalid value: "x": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)' },
        { field: 'spec.podCIDRs', message: 'Invalid value: ["10.0.0.0/8","11.0.0.0/8","x"]: may specify no more than one CIDR for each IP family' },
      ],
    },
    { name: 'negative capacity', object: node({}, { status: { capacity: { cpu: '-1' } } }), errors: [{ field: 'status.capacity.cpu', message: 'Invalid value: "-1": must be greater than or equal to 0' }] },
  ],
  updates: [
    { name: 'the provider ID is fixed once set', object: node({ providerID: 'a' }), change: (o) => ({ ...o, spec: { providerID: 'b' } }), errors: [{ field: 'spec.providerID', message: 'Forbidden: node updates may not change providerID except from "" to valid' }] },
    { name: 'pod CIDRs are fixed once set', object: node({ podCIDRs: ['10.0.0.0/24'] }), change: (o) => ({ ...o, spec: { podCIDRs: ['10.0.1.0/24'] } }), errors: [{ field: 'spec.podCIDRs', message: 'Forbidden: node updates may not change podCIDR except from "" to valid' }] },
    { name: 'a node may be cordoned', object: node(), change: (o) => ({ ...o, spec: { unschedulable: true } }), expect: (o) => assert.equal((o.spec as { unschedulable: boolean }).unschedulable, true) },
  ],
  statusUpdates: [
    {
      name: 'addresses are unique',
      object: node(),
      change: (o) => ({ ...o, status: { addresses: [{ type: 'InternalIP', address: '10.0.0.1' }, { type: 'InternalIP', address: '10.0.0.1' }] } }),
      errors: [{ field: 'status.addresses[1]', message: 'Duplicate value: {"Type":"InternalIP","Address":"10.0.0.1"}' }],
    },
  ],
  columns: [
    { name: 'no Ready condition, no roles', object: node(), cells: ['Unknown', '<none>', '', '<none>', '<none>', '<unknown>', '<unknown>', '<unknown>'] },
    {
      name: 'ready, cordoned, with roles and addresses',
      object: node({ unschedulable: true }, { metadata: { labels: { 'node-role.kubernetes.io/control-plane': '', 'kubernetes.io/role': 'master' } }, status: { conditions: [{ type: 'Ready', status: 'True' }], addresses: [{ type: 'InternalIP', address: '10.0.0.1' }], nodeInfo: { kubeletVersion: 'v1.34.0', osImage: 'Debian' } } }),
      cells: ['Ready,SchedulingDisabled', 'control-plane,master', 'v1.34.0', '10.0.0.1', '<none>', 'Debian', '<unknown>', '<unknown>'],
    },
  ],
});

let registry: TestRegistry;
before(async () => {
  registry = await openTestRegistry();
});
after(async () => {
  await registry.close();
});

test('spec.unschedulable selects nodes, an unset field reading false', async () => {
  const store = registry.store('nodes');
  await store.create(testContext(), '', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'open' } });
  await store.create(testContext(), '', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'cordoned' }, spec: { unschedulable: true } });
  const names = async (selector: string) => (await store.list(testContext(), undefined, parseListQuery(new URLSearchParams({ fieldSelector: selector })))).items.map((t) => JSON.parse(t).metadata.name);
  assert.deepEqual(await names('spec.unschedulable=false'), ['open']);
  assert.deepEqual(await names('spec.unschedulable=true'), ['cordoned']);
});
