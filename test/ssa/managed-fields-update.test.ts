/**
 * Non-apply writes (create, update, patch) through FieldManager.update: what each manager is
 * recorded as owning, when entry times move, and what happens to managedFields a client sends
 * (upstream's fieldmanager_test.go and managedfieldsupdater_test.go, with this server's schemas).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { at, byManager, cm, configMaps, deployments, entriesOf, podManager, stamp, stored, type Obj } from './managed-fields-fixtures.ts';

describe('create', () => {
  test("records the creator's fields, exactly as kube-apiserver does for a ConfigMap", () => {
    const out = configMaps().update(null, cm({ key: 'value' }, { labels: { app: 'web' } }), 'kubectl-create', at(5)) as Obj;
    assert.equal(
      JSON.stringify(out.metadata.managedFields),
      JSON.stringify([
        {
          manager: 'kubectl-create',
          operation: 'Update',
          apiVersion: 'v1',
          time: '2024-01-01T00:00:05Z',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:data': { '.': {}, 'f:key': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } },
        },
      ]),
    );
    // The object itself is what was sent, plus managedFields.
    assert.deepEqual({ ...out, metadata: { ...out.metadata, managedFields: undefined } }, { ...cm({ key: 'value' }, { labels: { app: 'web' } }), metadata: { ...cm({}, { labels: { app: 'web' } }).metadata, managedFields: undefined } });
  });

  test("value structs of the kind's empty object get no entry of their own (Deployment)", () => {
    const body = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', labels: { app: 'nginx' } },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'nginx' } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
        template: { metadata: { labels: { app: 'nginx' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:latest' }] } },
      },
    };
    const out = deployments().update(null, body, 'kubectl-create', at(0)) as Obj;
    // As a real cluster shows it: no `.` under f:spec, f:strategy, f:template, its f:metadata and
    // f:spec, or f:containers (all present, empty or null, in a new Deployment); the label map, the
    // rollingUpdate struct and the container item are new as a whole.
    assert.deepEqual(out.metadata.managedFields[0].fieldsV1, {
      'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
      'f:spec': {
        'f:replicas': {},
        'f:selector': {},
        'f:strategy': { 'f:rollingUpdate': { '.': {}, 'f:maxSurge': {}, 'f:maxUnavailable': {} }, 'f:type': {} },
        'f:template': {
          'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
          'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
        },
      },
    });
  });

  test('a Pod: the status a create sends is not recorded (the main resource resets it)', () => {
    const body = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox' }] }, status: { phase: 'Running' } };
    const out = podManager().update(null, body, 'kubectl-run', at(0)) as Obj;
    assert.deepEqual(out.metadata.managedFields[0].fieldsV1, { 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } });
    // Recording never changes the object: the strategy drops status later.
    assert.deepEqual(out.status, { phase: 'Running' });
  });

  test('a manager with no name at all is "unknown"', () => {
    const out = configMaps().update(null, cm({ a: '1' }), '', at(0)) as Obj;
    assert.equal(out.metadata.managedFields[0].manager, 'unknown');
  });

  test('the input is not changed', () => {
    const body = cm({ a: '1' });
    const copy = structuredClone(body);
    configMaps().update(null, body, 'm', at(0));
    assert.deepEqual(body, copy);
  });
});

describe('update', () => {
  test('another manager takes the fields it changed; what it did not touch stays with the creator', () => {
    const fm = configMaps();
    const live = stored(fm.update(null, cm({ a: '1', b: '1' }), 'creator', at(1)));
    const out = fm.update(live, cm({ a: '2', b: '1', c: '3' }), 'editor', at(2)) as Obj;
    assert.deepEqual(entriesOf(out), [
      { manager: 'creator', operation: 'Update', apiVersion: 'v1', time: stamp(1), fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:b': {} } } },
      { manager: 'editor', operation: 'Update', apiVersion: 'v1', time: stamp(2), fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {}, 'f:c': {} } } },
    ]);
  });

  test("an updater's new fields join its earlier entry, which takes the new time", () => {
    const fm = configMaps();
    let live = stored(fm.update(null, cm({ a: '1' }), 'ctl', at(1)));
    live = fm.update(live, cm({ a: '1', b: '2' }), 'ctl', at(7)) as Obj;
    assert.deepEqual(entriesOf(live), [
      { manager: 'ctl', operation: 'Update', apiVersion: 'v1', time: stamp(7), fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} } } },
    ]);
  });

  test('an update that changes nothing keeps every entry and time, and records no new manager', () => {
    const fm = configMaps();
    const live = stored(fm.update(null, cm({ a: '1' }), 'ctl', at(1)));
    const again = fm.update(live, cm({ a: '1' }), 'ctl', at(9)) as Obj;
    assert.deepEqual(entriesOf(again), entriesOf(live));
    const other = fm.update(live, cm({ a: '1' }), 'someone-else', at(9)) as Obj;
    assert.deepEqual(entriesOf(other), entriesOf(live));
  });

  test('taking over fields does not touch the previous owner time; an owner left with nothing is dropped', () => {
    const fm = configMaps();
    let live = stored(fm.update(null, cm({ key_a: 'v' }), 'a', at(1)));
    live = fm.update(live, cm({ key_a: 'v', key_b: 'v' }), 'b', at(2)) as Obj;
    live = fm.update(live, cm({ key_a: 'v', key_b: 'new' }), 'a', at(3)) as Obj;
    const entries = byManager(live);
    assert.equal(entries.b, undefined);
    assert.equal(entries.a.time, stamp(3));
    assert.deepEqual(entries.a.fieldsV1, { 'f:data': { '.': {}, 'f:key_a': {}, 'f:key_b': {} } });
  });

  test('removing fields takes them from their owner', () => {
    const fm = configMaps();
    let live = stored(fm.update(null, cm({ a: '1' }, { labels: { x: 'y' } }), 'a', at(1)));
    // The whole label map goes: the map and its key leave the owner's set, which keeps its time.
    live = fm.update(live, cm({ a: '1' }), 'b', at(2)) as Obj;
    assert.deepEqual(entriesOf(live).map((e) => [e.manager, e.time, e.fieldsV1]), [['a', stamp(1), { 'f:data': { '.': {}, 'f:a': {} } }]]);
  });

  test('server-owned metadata and type fields are never recorded', () => {
    const fm = deployments();
    const body = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'b',
        namespace: 'b',
        uid: 'b',
        generation: 0,
        resourceVersion: 'b',
        creationTimestamp: '2024-01-01T00:00:00Z',
        managedFields: [{ manager: 'update', operation: 'Apply', apiVersion: 'apps/v1' }],
      },
    };
    const out = fm.update(null, body, 'fieldmanager_test', at(0)) as Obj;
    assert.equal(out.metadata.managedFields, undefined);
  });

  test('type fields and metadata itself are never recorded, even when the live object lacks them', () => {
    const out = configMaps().update({}, cm({ a: '1' }), 'm', at(0)) as Obj;
    assert.deepEqual(out.metadata.managedFields.map((e: Obj) => e.fieldsV1), [{ 'f:data': { '.': {}, 'f:a': {} } }]);
  });

  test('an object that does not fit the schema is kept without managedFields', () => {
    const fm = configMaps();
    const live = stored(fm.update(null, cm({ a: '1' }), 'a', at(1)));
    const bad = { ...cm({ a: '1' }), data: { a: 5 }, metadata: { ...live.metadata } };
    const out = fm.update(live, bad, 'b', at(2)) as Obj;
    assert.equal(out.metadata.managedFields, undefined);
    assert.deepEqual(out.data, { a: 5 });
  });
});

describe('managedFields sent by the client', () => {
  const liveWithTwoManagers = () => {
    const fm = configMaps();
    let live = stored(fm.update(null, cm({ a: '1' }), 'a', at(1)));
    live = stored(fm.update(live, cm({ a: '1', b: '1' }), 'b', at(2)));
    return { fm, live };
  };

  test('an empty list clears them, and nothing is tracked for the object afterwards', () => {
    const { fm, live } = liveWithTwoManagers();
    const cleared = fm.update(live, { ...cm({ a: '1', b: '1' }), metadata: { ...live.metadata, managedFields: [] } }, 'c', at(3)) as Obj;
    assert.equal(cleared.metadata.managedFields, undefined);
    const later = fm.update(cleared, cm({ a: '1', b: '1', c: '1' }), 'd', at(4)) as Obj;
    assert.equal(later.metadata.managedFields, undefined);
  });

  test('a list of one empty entry clears them too', () => {
    const { fm, live } = liveWithTwoManagers();
    const cleared = fm.update(live, { ...cm({ a: '1', b: '1' }), metadata: { ...live.metadata, managedFields: [{}] } }, 'c', at(3)) as Obj;
    assert.equal(cleared.metadata.managedFields, undefined);
  });

  test('a valid list replaces the stored one', () => {
    const { fm, live } = liveWithTwoManagers();
    const sent = [{ manager: 'someone', operation: 'Apply', apiVersion: 'v1', time: '2020-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } }];
    const out = fm.update(live, { ...cm({ a: '1', b: '1' }), metadata: { ...live.metadata, managedFields: sent } }, 'c', at(3)) as Obj;
    assert.deepEqual(entriesOf(out), sent);
  });

  test('a list that does not decode leaves the stored one in place', () => {
    const { fm, live } = liveWithTwoManagers();
    const garbage = [{ manager: 'x', operation: 'Update', apiVersion: 'v1' }];
    const out = fm.update(live, { ...cm({ a: '1', b: '1' }), metadata: { ...live.metadata, managedFields: garbage } }, 'c', at(3)) as Obj;
    assert.deepEqual(entriesOf(out), entriesOf(live));
  });

  test('no list at all leaves the stored one in place', () => {
    const { fm, live } = liveWithTwoManagers();
    const out = fm.update(live, cm({ a: '1', b: '1' }), 'c', at(3)) as Obj;
    assert.deepEqual(entriesOf(out), entriesOf(live));
  });
});

describe('subresources', () => {
  const podBody = (status: Obj, spec: Obj = { containers: [{ name: 'c', image: 'busybox' }] }) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec, status });

  test('a status write records its subresource and none of the spec', () => {
    const live = stored(podManager().update(null, podBody({}), 'kubectl-run', at(1)));
    const out = podManager('status').update(live, podBody({ phase: 'Running' }, { containers: [{ name: 'c', image: 'other' }] }), 'kubelet', at(2)) as Obj;
    assert.equal(
      JSON.stringify(byManager(out).kubelet),
      JSON.stringify({ manager: 'kubelet', operation: 'Update', apiVersion: 'v1', time: stamp(2), fieldsType: 'FieldsV1', fieldsV1: { 'f:status': { 'f:phase': {} } }, subresource: 'status' }),
    );
    // The spec change (which the strategy undoes) takes nothing from the creator either.
    assert.deepEqual(byManager(out)['kubectl-run'].fieldsV1, { 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } });
  });

  test('managedFields sent to a subresource are ignored, even an empty list', () => {
    const live = stored(podManager().update(null, podBody({}), 'kubectl-run', at(1)));
    const sent = [{ manager: 'test', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:x': {} } } } }];
    const withSent = podManager('status').update(live, { ...podBody({}), metadata: { ...live.metadata, managedFields: sent } }, 'kubelet', at(2)) as Obj;
    assert.deepEqual(entriesOf(withSent), entriesOf(live));
    const withEmpty = podManager('status').update(live, { ...podBody({}), metadata: { ...live.metadata, managedFields: [] } }, 'kubelet', at(2)) as Obj;
    assert.deepEqual(entriesOf(withEmpty), entriesOf(live));
  });
});
