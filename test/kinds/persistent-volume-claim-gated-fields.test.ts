import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RequestContext } from '../../src/api/request-context.ts';
import type { KubeObject } from '../../src/api/types.ts';
import { namespaces } from '../../src/kinds/namespace.ts';
import { persistentVolumeClaims } from '../../src/kinds/persistent-volume-claim.ts';
import { openTestRegistry, type TestRegistry } from '../helpers/registry.ts';
import { gatedContext } from './gated-context.ts';

// Expectations from upstream's pkg/api/persistentvolumeclaim DropDisabledFields and
// DropDisabledFieldsFromStatus and the claim strategies (1.34).

type Obj = Record<string, any>;
const GATES = ['VolumeAttributesClass', 'CrossNamespaceVolumeDataSource'];
const gates = (off: readonly string[] = []): RequestContext => gatedContext(Object.fromEntries(GATES.map((g) => [g, !off.includes(g)])));
let counter = 0;
const claim = (spec: Obj = {}): KubeObject => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: `claim-${++counter}` }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec } });
const specOf = (o: KubeObject) => o.spec as Obj;
const statusOf = (o: KubeObject) => (o.status ?? {}) as Obj;
const crossNamespaceRef = { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'snap', namespace: 'backups' };

interface Rule {
  readonly gate: string;
  readonly uses: Obj;
  readonly read: (spec: Obj) => unknown;
}

const SPEC_RULES: readonly Rule[] = [
  { gate: 'VolumeAttributesClass', uses: { volumeAttributesClassName: 'gold' }, read: (s) => s.volumeAttributesClassName },
  // Upstream drops the whole reference, not just its namespace.
  { gate: 'CrossNamespaceVolumeDataSource', uses: { dataSourceRef: crossNamespaceRef }, read: (s) => s.dataSourceRef },
];

describe('PersistentVolumeClaim: gated fields', () => {
  let registry: TestRegistry;
  const store = () => registry.store('persistentvolumeclaims');
  const create = async (ctx: RequestContext, spec: Obj = {}) => (await store().create(ctx, 'default', claim(spec))).object;
  const relabel = async (ctx: RequestContext, name: string, spec?: Obj) =>
    (await store().update(ctx, 'default', name, { build: (o) => ({ ...o!, metadata: { ...o!.metadata, labels: { touched: 'yes' } }, spec: spec ? { ...specOf(o!), ...spec } : o!.spec }) })).stored.object;
  const writeStatus = async (ctx: RequestContext, name: string, status: Obj) =>
    (await store().update({ ...ctx, subresource: 'status' }, 'default', name, { build: (o) => ({ ...o!, status: { ...statusOf(o!), ...status } }) })).stored.object;
  before(async () => {
    registry = await openTestRegistry({ kinds: [namespaces, persistentVolumeClaims] });
  });
  after(async () => {
    await registry.close();
  });

  for (const rule of SPEC_RULES) {
    describe(rule.gate, () => {
      const used = () => rule.read(structuredClone(rule.uses));
      test('with the gate on, a create keeps the field', async () => {
        assert.deepEqual(rule.read(specOf(await create(gates(), rule.uses))), used());
      });
      test('with the gate off, a create drops it', async () => {
        assert.equal(rule.read(specOf(await create(gates([rule.gate]), rule.uses))), undefined);
      });
      test('with the gate off, an update keeps it when the stored claim used it', async () => {
        const stored = await create(gates(), rule.uses);
        const updated = await relabel(gates([rule.gate]), stored.metadata!.name as string);
        assert.equal(updated.metadata!.labels!.touched, 'yes');
        assert.deepEqual(rule.read(specOf(updated)), used());
      });
      test('with the gate off, an update drops it when the stored claim did not use it', async () => {
        const stored = await create(gates([rule.gate]));
        assert.equal(rule.read(specOf(await relabel(gates([rule.gate]), stored.metadata!.name as string, rule.uses))), undefined);
      });
    });
  }

  test('CrossNamespaceVolumeDataSource: a reference within the namespace is kept with the gate off', async () => {
    const local = { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'snap' };
    assert.deepEqual(specOf(await create(gates(['CrossNamespaceVolumeDataSource']), { dataSource: local, dataSourceRef: local })).dataSourceRef, local);
  });

  describe('VolumeAttributesClass in the status (through persistentvolumeclaims/status)', () => {
    const modifying = { currentVolumeAttributesClassName: 'silver', modifyVolumeStatus: { targetVolumeAttributesClassName: 'gold', status: 'InProgress' } };
    const read = (o: KubeObject) => [statusOf(o).currentVolumeAttributesClassName, statusOf(o).modifyVolumeStatus];
    test('with the gate on, a status write keeps the class and the modify status', async () => {
      const stored = await create(gates());
      assert.deepEqual(read(await writeStatus(gates(), stored.metadata!.name as string, modifying)), [modifying.currentVolumeAttributesClassName, modifying.modifyVolumeStatus]);
    });
    test('with the gate off, a status write drops them when the stored status lacks them', async () => {
      const stored = await create(gates());
      const written = await writeStatus(gates(['VolumeAttributesClass']), stored.metadata!.name as string, { ...modifying, phase: 'Bound' });
      assert.deepEqual(read(written), [undefined, undefined]);
      assert.equal(statusOf(written).phase, 'Bound');
    });
    test('with the gate off, a status write keeps each one the stored status has', async () => {
      const stored = await create(gates());
      const name = stored.metadata!.name as string;
      await writeStatus(gates(), name, { currentVolumeAttributesClassName: 'silver' });
      assert.deepEqual(read(await writeStatus(gates(['VolumeAttributesClass']), name, modifying)), ['silver', undefined]);
      const other = await create(gates());
      await writeStatus(gates(), other.metadata!.name as string, { modifyVolumeStatus: { status: 'Pending' } });
      assert.deepEqual(read(await writeStatus(gates(['VolumeAttributesClass']), other.metadata!.name as string, modifying)), [undefined, modifying.modifyVolumeStatus]);
    });
  });
});
