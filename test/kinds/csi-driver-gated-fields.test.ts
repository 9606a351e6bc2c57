import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RequestContext } from '../../src/api/request-context.ts';
import type { KubeObject } from '../../src/api/types.ts';
import { csiDrivers } from '../../src/kinds/csi-driver.ts';
import { openTestRegistry, type TestRegistry } from '../helpers/registry.ts';
import { gatedContext } from './gated-context.ts';

// Expectations from upstream's CSIDriver strategy, v1 defaults and validation (1.34):
// seLinuxMount belongs to SELinuxMountReadWriteOncePod (defaulted and required only while it is on),
// nodeAllocatableUpdatePeriodSeconds to MutableCSINodeAllocatableCount.

type Obj = Record<string, any>;
const GATES = ['SELinuxMountReadWriteOncePod', 'MutableCSINodeAllocatableCount'];
const gates = (off: readonly string[] = []): RequestContext => gatedContext(Object.fromEntries(GATES.map((g) => [g, !off.includes(g)])));
let counter = 0;
const driver = (spec: Obj = {}): KubeObject => ({ apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: `gated-${++counter}.csi.example.com` }, spec });
const specOf = (o: KubeObject) => o.spec as Obj;

const RULES = [
  { gate: 'SELinuxMountReadWriteOncePod', field: 'seLinuxMount', value: true },
  { gate: 'MutableCSINodeAllocatableCount', field: 'nodeAllocatableUpdatePeriodSeconds', value: 60 },
] as const;

describe('CSIDriver: gated fields', () => {
  let registry: TestRegistry;
  const store = () => registry.store('csidrivers', 'storage.k8s.io');
  const create = async (ctx: RequestContext, spec: Obj = {}) => (await store().create(ctx, '', driver(spec))).object;
  const update = async (ctx: RequestContext, name: string, spec: Obj) => (await store().update(ctx, '', name, { build: (o) => ({ ...o!, spec: { ...specOf(o!), ...spec } }) })).stored.object;
  before(async () => {
    registry = await openTestRegistry({ kinds: [csiDrivers] });
  });
  after(async () => {
    await registry.close();
  });

  for (const rule of RULES) {
    describe(rule.gate, () => {
      test('with the gate on, a create keeps the field', async () => {
        assert.equal(specOf(await create(gates(), { [rule.field]: rule.value }))[rule.field], rule.value);
      });
      test('with the gate off, a create drops it', async () => {
        assert.equal(specOf(await create(gates([rule.gate]), { [rule.field]: rule.value }))[rule.field], undefined);
      });
      test('with the gate off, an update keeps it when the stored driver set it', async () => {
        const stored = await create(gates(), { [rule.field]: rule.value });
        const updated = await update(gates([rule.gate]), stored.metadata!.name as string, { requiresRepublish: true });
        assert.equal(specOf(updated).requiresRepublish, true);
        assert.equal(specOf(updated)[rule.field], rule.value);
      });
      test('with the gate off, an update drops it when the stored driver did not set it', async () => {
        const stored = await create(gates([rule.gate]));
        assert.equal(specOf(await update(gates([rule.gate]), stored.metadata!.name as string, { [rule.field]: rule.value }))[rule.field], undefined);
      });
    });
  }

  test('seLinuxMount is defaulted (and so present) only while its gate is on', async () => {
    assert.equal(specOf(await create(gates())).seLinuxMount, false);
    assert.equal('seLinuxMount' in specOf(await create(gates(['SELinuxMountReadWriteOncePod']))), false);
  });

  test('while its gate is off, seLinuxMount is not required: an update may clear it', async () => {
    const stored = await create(gates(), { seLinuxMount: true });
    const withoutSeLinuxMount = (o: KubeObject) => {
      const { seLinuxMount: _dropped, ...rest } = specOf(o);
      return { ...o, spec: rest };
    };
    const clear = (ctx: RequestContext) => store().update(ctx, '', stored.metadata!.name as string, { build: (o) => withoutSeLinuxMount(o!) });
    assert.equal('seLinuxMount' in specOf((await clear(gates(['SELinuxMountReadWriteOncePod']))).stored.object), false);
    // With the gate on, the default fills it in again.
    assert.equal(specOf((await clear(gates())).stored.object).seLinuxMount, false);
  });

  test('seLinuxMount is required only while its gate is on (the kind rules, before any default)', () => {
    const bare = driver({ attachRequired: true, podInfoOnMount: false, storageCapacity: false });
    const fields = (ctx: RequestContext) => csiDrivers.strategy.validate!(ctx, bare).map((e) => `${e.field}: ${e.type}`);
    assert.deepEqual(fields(gates()), ['spec.seLinuxMount: FieldValueRequired']);
    assert.deepEqual(fields(gates(['SELinuxMountReadWriteOncePod'])), []);
  });
});
