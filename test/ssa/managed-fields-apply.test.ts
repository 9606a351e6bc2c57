/**
 * Server-side apply through FieldManager.apply: creating, changing, removing, no-ops, conflicts
 * and force, the first apply to an untracked object, and the 400s for bodies apply refuses
 * (upstream's fieldmanager_test.go, skipnonapplied_test.go, managedfieldsupdater_test.go and the
 * apply integration tests, with this server's schemas).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FieldManager } from '../../src/registry/managed-fields/index.ts';
import { messageSchema } from '../../src/schema/type-schema.ts';
import { apiErrorOf, at, byManager, cm, configMaps, deployments, entriesOf, podManager, stamp, stored, type Obj } from './managed-fields-fixtures.ts';

const deployment = (spec: Obj): Obj => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'deployment', labels: { app: 'nginx' } }, spec });
const nginxSpec = (container: Obj = { name: 'nginx', image: 'nginx:latest' }) => ({
  replicas: 3,
  selector: { matchLabels: { app: 'nginx' } },
  template: { metadata: { labels: { app: 'nginx' } }, spec: { containers: [container] } },
});

describe('apply creates', () => {
  test('the object is the configuration, and the applier owns exactly what it applied', () => {
    const out = configMaps().apply(null, cm({ key: 'value' }, { labels: { 'test-label': 'test' } }), 'apply_test', false, at(3)) as Obj;
    assert.equal(
      JSON.stringify(out),
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: 'cm',
          namespace: 'default',
          labels: { 'test-label': 'test' },
          managedFields: [
            {
              manager: 'apply_test',
              operation: 'Apply',
              apiVersion: 'v1',
              time: stamp(3),
              fieldsType: 'FieldsV1',
              // An applier owns the leaves it applied, not the maps around them.
              fieldsV1: { 'f:data': { 'f:key': {} }, 'f:metadata': { 'f:labels': { 'f:test-label': {} } } },
            },
          ],
        },
        data: { key: 'value' },
      }),
    );
  });

  test("what only the kind's empty object held stays out of the created object", () => {
    const pod = podManager().apply(null, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] } }, 'apply_test', false, at(0)) as Obj;
    assert.deepEqual(Object.keys(pod), ['apiVersion', 'kind', 'metadata', 'spec']);
    const dep = deployments().apply(null, deployment(nginxSpec()), 'apply_test', false, at(0)) as Obj;
    assert.deepEqual(Object.keys(dep.spec).sort(), ['replicas', 'selector', 'template']);
    assert.equal(dep.status, undefined);
    assert.deepEqual(dep.metadata.managedFields[0].fieldsV1['f:spec']['f:template']['f:spec'], { 'f:containers': { 'k:{"name":"nginx"}': { '.': {}, 'f:image': {}, 'f:name': {} } } });
  });

  test('a configuration with nothing but identity leaves no managedFields at all', () => {
    const fm = configMaps();
    const first = stored(fm.apply(null, cm(), 'apply_test', false, at(1)));
    assert.equal(first.metadata.managedFields, undefined);
    const again = fm.apply(first, cm(), 'apply_test', false, at(2)) as Obj;
    assert.equal(again.metadata.managedFields, undefined);
  });

  test('labels are recorded (TestApplyDoesNotStripLabels)', () => {
    const out = podManager().apply(null, { apiVersion: 'v1', kind: 'Pod', metadata: { labels: { a: 'b' } } }, 'fieldmanager_test', false, at(0)) as Obj;
    assert.deepEqual(entriesOf(out).map((e) => e.fieldsV1), [{ 'f:metadata': { 'f:labels': { 'f:a': {} } } }]);
  });
});

describe('apply changes', () => {
  test('a changed value moves the time; a second applier of the same value shares the field', () => {
    const fm = configMaps();
    let live = stored(fm.apply(null, cm({ a: '1' }), 'one', false, at(1)));
    live = fm.apply(live, cm({ a: '2' }), 'one', false, at(2)) as Obj;
    assert.equal(live.data.a, '2');
    assert.equal(byManager(live).one.time, stamp(2));
    // Same value, new applier: no conflict, both own .data.a.
    live = fm.apply(live, cm({ a: '2' }), 'two', false, at(3)) as Obj;
    assert.deepEqual(byManager(live).one.fieldsV1, { 'f:data': { 'f:a': {} } });
    assert.deepEqual(byManager(live).two.fieldsV1, { 'f:data': { 'f:a': {} } });
  });

  test('a field the applier stops applying is removed when nobody else owns it', () => {
    const fm = deployments();
    const withPort = nginxSpec({ name: 'nginx', image: 'nginx:latest', ports: [{ containerPort: 80, protocol: 'TCP' }] });
    let live = stored(fm.apply(null, deployment(withPort), 'apply_test', false, at(1)));
    assert.deepEqual(live.spec.template.spec.containers[0].ports, [{ containerPort: 80, protocol: 'TCP' }]);
    live = fm.apply(live, deployment(nginxSpec()), 'apply_test', false, at(2)) as Obj;
    assert.deepEqual(live.spec.template.spec.containers, [{ name: 'nginx', image: 'nginx:latest' }]);
  });

  test('a field another applier still owns stays', () => {
    const fm = configMaps();
    let live = stored(fm.apply(null, cm({ a: '1', b: '1' }), 'one', false, at(1)));
    live = fm.apply(live, cm({ b: '1' }), 'two', false, at(2)) as Obj;
    live = fm.apply(live, cm({ a: '1' }), 'one', false, at(3)) as Obj;
    assert.deepEqual(live.data, { a: '1', b: '1' });
    assert.deepEqual(byManager(live).one.fieldsV1, { 'f:data': { 'f:a': {} } });
    live = fm.apply(live, cm({}), 'two', false, at(4)) as Obj;
    assert.deepEqual(live.data, { a: '1' });
  });

  test('the live object is not changed', () => {
    const fm = configMaps();
    const live = stored(fm.apply(null, cm({ a: '1' }), 'one', false, at(1)));
    const copy = structuredClone(live);
    fm.apply(live, cm({ a: '2' }), 'one', false, at(2));
    assert.deepEqual(live, copy);
  });

  test('the kind defaulting runs on a changed result only', () => {
    let calls = 0;
    const fm = configMaps({ defaulter: (o) => ((o.metadata.annotations ??= {}).defaulted = String(++calls)) });
    const live = stored(fm.apply(null, cm({ a: '1' }), 'one', false, at(1)));
    assert.equal(live.metadata.annotations.defaulted, '1');
    // Defaulted fields belong to nobody.
    assert.deepEqual(byManager(live).one.fieldsV1, { 'f:data': { 'f:a': {} } });
    const same = fm.apply(live, cm({ a: '1' }), 'one', false, at(2)) as Obj;
    assert.equal(calls, 1);
    assert.deepEqual(same, live);
  });
});

describe('no-op applies', () => {
  test('re-applying the same configuration changes nothing, times included (TestApplyDoesNotChangeManagedFields)', () => {
    const fm = deployments();
    const { replicas: _none, ...withoutReplicas } = nginxSpec();
    let live = stored(fm.apply(null, deployment(withoutReplicas), 'fieldmanager_z', false, at(1)));
    live = stored(fm.apply(live, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'deployment' }, spec: { replicas: 101 } }, 'fieldmanager_b', false, at(2)));
    const again = fm.apply(live, deployment(withoutReplicas), 'fieldmanager_z', false, at(9)) as Obj;
    assert.deepEqual(again, live);
    assert.equal(again.spec.replicas, 101);
  });

  test('a new applier of values already there gets an entry without a time (TestNoOpChanges)', () => {
    const fm = podManager();
    const body = { apiVersion: 'v1', kind: 'Pod', metadata: { labels: { a: 'b' } } };
    const live = stored(fm.apply(null, body, 'fieldmanager_test_apply', false, at(1)));
    const out = fm.apply(live, body, 'fieldmanager_test_apply_other', false, at(2)) as Obj;
    assert.deepEqual(entriesOf(out), [
      // Sorted first: an entry without a time counts as the epoch.
      { manager: 'fieldmanager_test_apply_other', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:a': {} } } } },
      { manager: 'fieldmanager_test_apply', operation: 'Apply', apiVersion: 'v1', time: stamp(1), fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:a': {} } } } },
    ]);
    // An update that changes nothing changes nothing either.
    const updated = fm.update(out, { ...body, metadata: { ...out.metadata, managedFields: undefined } }, 'fieldmanager_test_update', at(3)) as Obj;
    assert.deepEqual(updated, out);
  });
});

describe('conflicts', () => {
  test('one conflict: 409 with the field and the updater it belongs to (TestUpdateApplyConflict)', () => {
    const fm = deployments();
    const live = stored(fm.update(null, deployment(nginxSpec()), 'fieldmanager_test', at(1)));
    const err = apiErrorOf(() => fm.apply(live, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'deployment' }, spec: { replicas: 101 } }, 'fieldmanager_conflict', false, at(2)));
    assert.deepEqual(err.status, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "fieldmanager_test" using apps/v1: .spec.replicas',
      reason: 'Conflict',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "fieldmanager_test" using apps/v1', field: '.spec.replicas' }] },
      code: 409,
    });
  });

  test('several conflicts with several managers', () => {
    const fm = configMaps();
    let live = stored(fm.update(null, cm({ x: '0', z: '0' }), 'kubectl-edit', at(1)));
    live = stored(fm.apply(live, cm({ y: '0' }), 'controller', false, at(2)));
    const err = apiErrorOf(() => fm.apply(live, cm({ x: '1', y: '1', z: '1' }), 'me', false, at(3)));
    assert.equal(err.code, 409);
    assert.equal(err.status.message, 'Apply failed with 3 conflicts: conflicts with "controller":\n- .data.y\nconflicts with "kubectl-edit" using v1:\n- .data.x\n- .data.z');
    assert.deepEqual(err.status.details!.causes, [
      { reason: 'FieldManagerConflict', message: 'conflict with "controller"', field: '.data.y' },
      { reason: 'FieldManagerConflict', message: 'conflict with "kubectl-edit" using v1', field: '.data.x' },
      { reason: 'FieldManagerConflict', message: 'conflict with "kubectl-edit" using v1', field: '.data.z' },
    ]);
  });

  test('force takes the fields over', () => {
    const fm = configMaps();
    const live = stored(fm.update(null, cm({ x: '0', keep: '0' }), 'kubectl-edit', at(1)));
    const out = fm.apply(live, cm({ x: '1' }), 'me', true, at(2)) as Obj;
    assert.deepEqual(out.data, { x: '1', keep: '0' });
    assert.deepEqual(entriesOf(out), [
      { manager: 'me', operation: 'Apply', apiVersion: 'v1', time: stamp(2), fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:x': {} } } },
      { manager: 'kubectl-edit', operation: 'Update', apiVersion: 'v1', time: stamp(1), fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:keep': {} } } },
    ]);
  });

  test('a subresource updater is named with its subresource', () => {
    const schema = messageSchema('k8s.io.api.apps.v1.Deployment');
    const main = new FieldManager({ schema, apiVersion: 'apps/v1', kind: 'Deployment', subresource: '' });
    const status = new FieldManager({ schema, apiVersion: 'apps/v1', kind: 'Deployment', subresource: 'status' });
    let live = stored(main.apply(null, deployment(nginxSpec()), 'owner', false, at(1)));
    live = stored(status.update(live, { ...live, status: { replicas: 3 } }, 'controller', at(2)));
    const err = apiErrorOf(() => main.apply(live, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'deployment' }, status: { replicas: 5 } }, 'owner', false, at(3)));
    assert.equal(err.status.message, 'Apply failed with 1 conflict: conflict with "controller" with subresource "status" using apps/v1: .status.replicas');
  });
});

describe('the first apply to an object that tracks nothing (skip-non-applied)', () => {
  test('what is already there is recorded as "before-first-apply", and conflicts until forced', () => {
    const fm = podManager();
    // An object whose managedFields were cleared: updates keep tracking nothing.
    let live = stored(fm.update(null, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'pod', labels: { app: 'my-nginx' } } }, 'creator', at(1)));
    live = stored(fm.update(live, { ...live, metadata: { ...live.metadata, managedFields: [] } }, 'resetter', at(2)));
    assert.equal(live.metadata.managedFields, undefined);
    live = stored(fm.update(live, { ...live, metadata: { ...live.metadata, labels: { app: 'my-nginx', more: 'x' } } }, 'untracked', at(3)));
    assert.equal(live.metadata.managedFields, undefined);

    const config = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'pod', labels: { app: 'nginx' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:latest' }] } };
    const err = apiErrorOf(() => fm.apply(live, config, 'fieldmanager_test_apply', false, at(4)));
    assert.equal(err.status.message, 'Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .metadata.labels.app');

    const out = fm.apply(live, config, 'fieldmanager_test_apply', true, at(5)) as Obj;
    assert.deepEqual(
      entriesOf(out).map((e) => [e.manager, e.operation, e.time, e.fieldsV1]),
      [
        ['fieldmanager_test_apply', 'Apply', stamp(5), { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } }],
        ['before-first-apply', 'Update', stamp(5), { 'f:metadata': { 'f:labels': { '.': {}, 'f:more': {} } } }],
      ],
    );
  });

  test('nothing is recorded for before-first-apply when the object is new', () => {
    const out = podManager().apply(null, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'pod', labels: { app: 'nginx' } } }, 'fieldmanager_test_apply', false, at(1)) as Obj;
    assert.deepEqual(entriesOf(out).map((e) => e.manager), ['fieldmanager_test_apply']);
  });
});

describe('configurations apply refuses (400)', () => {
  const live = () => stored(configMaps().apply(null, cm({ a: '1' }), 'one', false, at(1)));

  test('another version or kind, or none', () => {
    const dep = deployments();
    assert.deepEqual(apiErrorOf(() => dep.apply(null, { apiVersion: 'apps/v1beta1', kind: 'Deployment' }, 'm', false)).status, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'invalid object type: apps/v1beta1, Kind=Deployment',
      reason: 'BadRequest',
      code: 400,
    });
    assert.equal(apiErrorOf(() => dep.apply(null, { apiVersion: 'apps/v1' }, 'm', false)).status.message, 'invalid object type: apps/v1, Kind=');
    assert.equal(apiErrorOf(() => dep.apply(null, {}, 'm', false)).status.message, 'invalid object type: /, Kind=');
    assert.equal(apiErrorOf(() => dep.apply(null, { apiVersion: 'a/b/c', kind: 'Deployment' }, 'm', false)).status.message, 'invalid object type: /, Kind=');
    assert.equal(apiErrorOf(() => configMaps().apply(live(), { apiVersion: 'v1', kind: 'Secret' }, 'm', false)).status.message, 'invalid object type: /v1, Kind=Secret');
  });

  test('metadata.managedFields in the configuration, even an empty list', () => {
    for (const managedFields of [[{ manager: 'test' }], []]) {
      const err = apiErrorOf(() => configMaps().apply(live(), cm({ a: '2' }, { managedFields }), 'm', false));
      assert.equal(err.code, 400);
      assert.equal(err.status.message, 'metadata.managedFields must be nil');
    }
  });

  test('a field the schema does not declare (upstream answers this 500; here it is a 400)', () => {
    const err = apiErrorOf(() => configMaps().apply(live(), { ...cm({ a: '1' }), spec: { x: 1 } }, 'm', false));
    assert.equal(err.code, 400);
    assert.equal(err.reason, 'BadRequest');
    assert.equal(err.status.message, 'failed to create typed patch object (default/cm; /v1, Kind=ConfigMap): .spec: field not declared in schema');
  });

  test('a value of the wrong type', () => {
    const err = apiErrorOf(() => deployments().apply(null, deployment({ replicas: 'three' }), 'm', false));
    assert.equal(err.code, 400);
    assert.match(err.message, /^failed to create typed patch object \(\/deployment; apps\/v1, Kind=Deployment\): \.spec\.replicas: expected numeric \(int or float\), got string/);
  });

  test('duplicate items of an associative list', () => {
    const err = apiErrorOf(() => podManager().apply(null, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'a', image: 'x' }, { name: 'a', image: 'y' }] } }, 'm', false));
    assert.equal(err.code, 400);
    assert.match(err.message, /^failed to create typed patch object \(\/p; \/v1, Kind=Pod\): \.spec\.containers: duplicate entries for key \[name="a"\]/);
  });
});
