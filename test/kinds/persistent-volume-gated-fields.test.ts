import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RequestContext } from '../../src/api/request-context.ts';
import type { KubeObject } from '../../src/api/types.ts';
import { persistentVolumes } from '../../src/kinds/persistent-volume.ts';
import { openTestRegistry, type TestRegistry } from '../helpers/registry.ts';
import { gatedContext } from './gated-context.ts';

// Expectations from upstream's pkg/api/persistentvolume DropDisabledSpecFields and the volume
// strategy (1.34): volumeAttributesClassName belongs to VolumeAttributesClass.

type Obj = Record<string, any>;
const on = () => gatedContext({ VolumeAttributesClass: true });
const off = () => gatedContext({ VolumeAttributesClass: false });
let counter = 0;
const volume = (spec: Obj = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name: `volume-${++counter}` },
  spec: { capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOnce'], csi: { driver: 'csi.example.com', volumeHandle: `h-${counter}` }, ...spec },
});
const classOf = (o: KubeObject) => (o.spec as Obj).volumeAttributesClassName;

describe('PersistentVolume: gated fields (VolumeAttributesClass)', () => {
  let registry: TestRegistry;
  const store = () => registry.store('persistentvolumes');
  const create = async (ctx: RequestContext, spec: Obj = {}) => (await store().create(ctx, '', volume(spec))).object;
  const update = async (ctx: RequestContext, name: string, spec: Obj = {}) =>
    (await store().update(ctx, '', name, { build: (o) => ({ ...o!, metadata: { ...o!.metadata, labels: { touched: 'yes' } }, spec: { ...(o!.spec as Obj), ...spec } }) })).stored.object;
  before(async () => {
    registry = await openTestRegistry({ kinds: [persistentVolumes] });
  });
  after(async () => {
    await registry.close();
  });

  test('with the gate on, a create keeps the class', async () => {
    assert.equal(classOf(await create(on(), { volumeAttributesClassName: 'gold' })), 'gold');
  });
  test('with the gate off, a create drops it', async () => {
    assert.equal(classOf(await create(off(), { volumeAttributesClassName: 'gold' })), undefined);
  });
  test('with the gate off, an update keeps the class the stored volume names', async () => {
    const stored = await create(on(), { volumeAttributesClassName: 'gold' });
    assert.equal(classOf(await update(off(), stored.metadata!.name as string, { volumeAttributesClassName: 'silver' })), 'silver');
  });
  test('with the gate off, an update drops a class the stored volume did not name', async () => {
    const stored = await create(off());
    const updated = await update(off(), stored.metadata!.name as string, { volumeAttributesClassName: 'gold' });
    assert.equal(updated.metadata!.labels!.touched, 'yes');
    assert.equal(classOf(updated), undefined);
  });
});
