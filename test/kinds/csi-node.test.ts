import assert from 'node:assert/strict';
import { csiNodes } from '../../src/kinds/csi-node.ts';
import { runKindSuite } from './kind-suite.ts';

const node = (drivers: Record<string, unknown>[]) => ({ apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', spec: { drivers } });

// Expectations from upstream's ValidateCSINode / ValidateCSINodeUpdate (1.34, MutableCSINodeAllocatableCount on).
runKindSuite({
  kind: csiNodes,
  featureGates: { MutableCSINodeAllocatableCount: true },
  valid: [
    { name: 'no drivers', object: node([]) },
    { name: 'two drivers with topology and a count', object: node([{ name: 'a.example.com', nodeID: 'n1', topologyKeys: ['topology.example.com/zone'], allocatable: { count: 10 } }, { name: 'b.example.com', nodeID: 'n1' }]) },
  ],
  invalid: [
    {
      name: 'a driver without name and node ID',
      object: node([{}]),
      errors: [
        { field: 'spec.drivers[0].name', message: 'Required value' },
        {
          field: 'spec.drivers[0].name',
          message: `Invalid value: "": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
        },
        { field: 'spec.drivers[0].nodeID', message: 'Required value' },
      ],
    },
    {
      name: 'a node ID over 192 characters, a negative count, a repeated driver and topology key',
      object: node([
        { name: 'a.example.com', nodeID: 'x'.repeat(193), allocatable: { count: -1 } },
        { name: 'a.example.com', nodeID: 'n', topologyKeys: ['zone', 'zone'] },
      ]),
      errors: [
        { field: 'spec.drivers[0].nodeID', message: `Invalid value: "${'x'.repeat(193)}": must be 192 characters or less` },
        { field: 'spec.drivers[0].allocatable.count', message: 'Invalid value: -1: must be greater than or equal to 0' },
        { field: 'spec.drivers[1].name', message: 'Duplicate value: "a.example.com"' },
        { field: 'spec.drivers[1]', message: 'Duplicate value: "zone"' },
      ],
    },
    { name: 'a driver name over 63 bytes', object: node([{ name: `${'a'.repeat(60)}.com`, nodeID: 'n' }]), errors: [{ field: 'spec.drivers[0].name', message: 'Too long: may not be more than 63 bytes' }] },
  ],
  updates: [
    {
      name: "an installed driver's node ID is immutable",
      object: node([{ name: 'a.example.com', nodeID: 'n1' }]),
      change: (o) => ({ ...o, spec: { drivers: [{ name: 'a.example.com', nodeID: 'n2' }] } }),
      errors: [{ field: 'spec.drivers', message: 'Invalid value: {"Name":"a.example.com","NodeID":"n2","TopologyKeys":null,"Allocatable":null}: field is immutable' }],
    },
    {
      name: 'its allocatable count may change, and drivers may come and go',
      object: node([{ name: 'a.example.com', nodeID: 'n1', allocatable: { count: 1 } }]),
      change: (o) => ({ ...o, spec: { drivers: [{ name: 'a.example.com', nodeID: 'n1', allocatable: { count: 5 } }, { name: 'b.example.com', nodeID: 'n1' }] } }),
      expect: (o) => assert.equal((o.spec as { drivers: unknown[] }).drivers.length, 2),
    },
  ],
  columns: [{ name: 'Drivers counts them', object: node([{ name: 'a.example.com', nodeID: 'n' }]), cells: [1] }],
});
