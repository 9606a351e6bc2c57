import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RequestContext } from '../../src/api/request-context.ts';
import type { KubeObject } from '../../src/api/types.ts';
import { csiNodes } from '../../src/kinds/csi-node.ts';
import { openTestRegistry, type TestRegistry } from '../helpers/registry.ts';
import { gatedContext } from './gated-context.ts';

// Expectations from upstream's ValidateCSINodeUpdate (1.34): an installed driver's entry is
// immutable; MutableCSINodeAllocatableCount (off by default) lets its allocatable count change.

type Obj = Record<string, any>;
const on = () => gatedContext({ MutableCSINodeAllocatableCount: true });
const off = () => gatedContext({ MutableCSINodeAllocatableCount: false });
let counter = 0;
const csiNode = (drivers: Obj[]): KubeObject => ({ apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', metadata: { name: `node-${++counter}` }, spec: { drivers } });
const driver = (allocatable?: Obj) => ({ name: 'a.example.com', nodeID: 'n1', ...(allocatable ? { allocatable } : {}) });

describe('CSINode: the allocatable count under MutableCSINodeAllocatableCount', () => {
  let registry: TestRegistry;
  const store = () => registry.store('csinodes', 'storage.k8s.io');
  const replaceDrivers = async (ctx: RequestContext, name: string, drivers: Obj[]) => (await store().update(ctx, '', name, { build: (o) => ({ ...o!, spec: { drivers } }) })).stored.object;
  const causes = (err: unknown) => ((err as { status?: { details?: { causes?: { field?: string; message?: string }[] } } }).status?.details?.causes ?? []).map((c) => [c.field, c.message]);
  before(async () => {
    registry = await openTestRegistry({ kinds: [csiNodes] });
  });
  after(async () => {
    await registry.close();
  });

  test('with the gate on, the count may change', async () => {
    const stored = (await store().create(on(), '', csiNode([driver({ count: 1 })]))).object;
    const updated = await replaceDrivers(on(), stored.metadata!.name as string, [driver({ count: 5 })]);
    assert.deepEqual((updated.spec as Obj).drivers[0].allocatable, { count: 5 });
  });

  test('with the gate off, the count is as immutable as the rest of the entry (and shown in the error)', async () => {
    const stored = (await store().create(off(), '', csiNode([driver({ count: 1 })]))).object;
    const name = stored.metadata!.name as string;
    await assert.rejects(replaceDrivers(off(), name, [driver({ count: 5 })]), (err) => {
      assert.deepEqual(causes(err), [['spec.drivers', 'Invalid value: {"Name":"a.example.com","NodeID":"n1","TopologyKeys":null,"Allocatable":{"Count":5}}: field is immutable']]);
      return true;
    });
    await assert.rejects(replaceDrivers(off(), name, [driver()]), (err) => {
      assert.deepEqual(causes(err), [['spec.drivers', 'Invalid value: {"Name":"a.example.com","NodeID":"n1","TopologyKeys":null,"Allocatable":null}: field is immutable']]);
      return true;
    });
    // The same entry again is no change.
    await replaceDrivers(off(), name, [driver({ count: 1 })]);
  });

  test('with the gate on, other changes are still refused and shown without the allocatable', async () => {
    const stored = (await store().create(on(), '', csiNode([driver({ count: 1 })]))).object;
    await assert.rejects(replaceDrivers(on(), stored.metadata!.name as string, [{ ...driver({ count: 2 }), nodeID: 'n2' }]), (err) => {
      assert.deepEqual(causes(err), [['spec.drivers', 'Invalid value: {"Name":"a.example.com","NodeID":"n2","TopologyKeys":null,"Allocatable":null}: field is immutable']]);
      return true;
    });
  });
});
