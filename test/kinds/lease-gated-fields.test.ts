import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RequestContext } from '../../src/api/request-context.ts';
import type { KubeObject } from '../../src/api/types.ts';
import { leases } from '../../src/kinds/lease.ts';
import { namespaces } from '../../src/kinds/namespace.ts';
import { openTestRegistry, type TestRegistry } from '../helpers/registry.ts';
import { gatedContext } from './gated-context.ts';

// Expectations from upstream's lease strategy (1.34): strategy and preferredHolder belong to
// CoordinatedLeaderElection; with it off a create drops both and an update drops each one the
// stored lease lacks.

type Obj = Record<string, any>;
const on = () => gatedContext({ CoordinatedLeaderElection: true });
const off = () => gatedContext({ CoordinatedLeaderElection: false });
let counter = 0;
const lease = (spec: Obj): KubeObject => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: `lease-${++counter}` }, spec: { holderIdentity: 'a', ...spec } });
const pick = (o: KubeObject) => {
  const spec = o.spec as Obj;
  return { strategy: spec.strategy, preferredHolder: spec.preferredHolder };
};
const coordinated = { strategy: 'OldestEmulationVersion', preferredHolder: 'b' };

describe('Lease: gated fields (CoordinatedLeaderElection)', () => {
  let registry: TestRegistry;
  const store = () => registry.store('leases', 'coordination.k8s.io');
  const create = async (ctx: RequestContext, spec: Obj = {}) => (await store().create(ctx, 'default', lease(spec))).object;
  const update = async (ctx: RequestContext, name: string, spec: Obj) =>
    (await store().update(ctx, 'default', name, { build: (o) => ({ ...o!, spec: { ...(o!.spec as Obj), holderIdentity: 'c', ...spec } }) })).stored.object;
  before(async () => {
    registry = await openTestRegistry({ kinds: [namespaces, leases] });
  });
  after(async () => {
    await registry.close();
  });

  test('with the gate on, a create keeps both', async () => {
    assert.deepEqual(pick(await create(on(), coordinated)), coordinated);
  });
  test('with the gate off, a create drops both', async () => {
    assert.deepEqual(pick(await create(off(), coordinated)), { strategy: undefined, preferredHolder: undefined });
  });
  test('with the gate off, an update keeps what the stored lease set', async () => {
    const stored = await create(on(), coordinated);
    const updated = await update(off(), stored.metadata!.name as string, { preferredHolder: 'c' });
    assert.equal((updated.spec as Obj).holderIdentity, 'c');
    assert.deepEqual(pick(updated), { strategy: 'OldestEmulationVersion', preferredHolder: 'c' });
  });
  test('with the gate off, an update drops what the stored lease did not set, field by field', async () => {
    const plain = await create(off());
    assert.deepEqual(pick(await update(off(), plain.metadata!.name as string, coordinated)), { strategy: undefined, preferredHolder: undefined });
    // A stored strategy without a preferred holder: the strategy stays, a new preferred holder goes.
    const withStrategy = await create(on(), { strategy: 'OldestEmulationVersion' });
    assert.deepEqual(pick(await update(off(), withStrategy.metadata!.name as string, { preferredHolder: 'b' })), { strategy: 'OldestEmulationVersion', preferredHolder: undefined });
  });
});
