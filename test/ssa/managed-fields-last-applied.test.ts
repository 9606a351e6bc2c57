/**
 * kubectl moving between client-side and server-side apply: conflicts its last-applied annotation
 * accounts for are forgiven, and the annotation follows what kubectl applies server-side
 * (upstream's lastappliedmanager_test.go, lastappliedupdater_test.go and fieldmanager_test.go).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FieldManager, LAST_APPLIED_ANNOTATION } from '../../src/registry/managed-fields/index.ts';
import { buildLastApplied } from '../../src/registry/managed-fields/last-applied.ts';
import { apiErrorOf, at, byManager, configMaps, deployments, stored, type Obj } from './managed-fields-fixtures.ts';

const lastAppliedOf = (obj: Obj): string | undefined => obj.metadata?.annotations?.[LAST_APPLIED_ANNOTATION];

/** A Deployment in upstream's tests' shape. */
function deployment(o: { labels?: Obj; replicas?: number; selector?: string; template?: string; containers?: Obj[] }): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'my-deployment', ...(o.labels ? { labels: o.labels } : {}) },
    spec: {
      ...(o.replicas !== undefined ? { replicas: o.replicas } : {}),
      ...(o.selector ? { selector: { matchLabels: { app: o.selector } } } : {}),
      template: { metadata: { labels: { app: o.template ?? 'my-app' } }, spec: { containers: o.containers ?? [{ name: 'my-c', image: 'my-image' }] } },
    },
  };
}

/** The object client-side apply leaves: `original`, annotated with `lastApplied`, written as an update. */
function clientSideApplied(fm: FieldManager, original: Obj, lastApplied: Obj | string, manager = 'test_client_side_apply'): Obj {
  const annotated = structuredClone(original);
  annotated.metadata.annotations = { [LAST_APPLIED_ANNOTATION]: typeof lastApplied === 'string' ? lastApplied : buildLastApplied(lastApplied) };
  return stored(fm.update(null, annotated, manager, at(1)));
}

describe('the last-applied annotation as kube-apiserver writes it', () => {
  test("the configuration without the annotation, as Go's json.Encoder writes a map", () => {
    const config = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'cm', annotations: { [LAST_APPLIED_ANNOTATION]: 'old', b: 'x<y' } }, data: { z: '1', a: '2' } };
    assert.equal(buildLastApplied(config), '{"apiVersion":"v1","data":{"a":"2","z":"1"},"kind":"ConfigMap","metadata":{"annotations":{"b":"x\\u003cy"},"name":"cm"}}\n');
    // An annotation map left empty stays, empty.
    assert.equal(buildLastApplied({ ...config, metadata: { name: 'cm', annotations: { [LAST_APPLIED_ANNOTATION]: 'old' } } }), '{"apiVersion":"v1","data":{"a":"2","z":"1"},"kind":"ConfigMap","metadata":{"annotations":{},"name":"cm"}}\n');
  });
});

describe('from client-side to server-side apply (kubectl)', () => {
  test('kubectl takes over what its last-applied configuration describes, and the annotation follows', () => {
    const fm = deployments();
    const original = deployment({ labels: { app: 'my-app' }, replicas: 100, selector: 'my-app', containers: [{ name: 'my-c', image: 'my-image-v1' }] });
    const live = clientSideApplied(fm, original, original, 'kubectl-client-side-apply');

    const config = deployment({ labels: { app: 'my-app-v2' }, replicas: 8, selector: 'my-app-v2', template: 'my-app-v2', containers: [{ name: 'my-c', image: 'my-image-v2' }] });
    const out = fm.apply(live, config, 'kubectl', false, at(2)) as Obj;

    assert.equal(out.spec.replicas, 8);
    assert.equal(out.spec.template.spec.containers[0].image, 'my-image-v2');
    assert.equal(lastAppliedOf(out), buildLastApplied(config));
    const entries = byManager(out);
    assert.deepEqual(entries.kubectl.fieldsV1['f:spec']['f:replicas'], {});
    // The client-side applier loses every value kubectl changed, and keeps the annotation, the maps and
    // the container item it created, and the container name kubectl applied unchanged.
    assert.deepEqual(entries['kubectl-client-side-apply'].fieldsV1, {
      'f:metadata': { 'f:annotations': { '.': {}, [`f:${LAST_APPLIED_ANNOTATION}`]: {} }, 'f:labels': {} },
      'f:spec': { 'f:template': { 'f:metadata': { 'f:labels': {} }, 'f:spec': { 'f:containers': { 'k:{"name":"my-c"}': { '.': {}, 'f:name': {} } } } } },
    });
  });

  test('conflicts the annotation does not account for stand, only those (TestApplyUsingLastAppliedAnnotation)', () => {
    const fm = deployments();
    const lastApplied = deployment({ replicas: 3, selector: 'my-app', containers: [{ name: 'my-c', image: 'my-image-v1' }, { name: 'my-c2', image: 'my-image2' }] });
    // Live: a label last-applied does not have, replicas and an image it disagrees with, a container it lacks.
    const original = deployment({ labels: { app: 'my-app' }, replicas: 100, selector: 'my-app', containers: [{ name: 'my-c', image: 'my-image-v2' }] });
    const live = clientSideApplied(fm, original, lastApplied);
    const config = deployment({ labels: { app: 'my-new-label' }, replicas: 333, selector: 'my-new-label', template: 'my-new-label', containers: [{ name: 'my-c', image: 'my-image-new' }] });

    const err = apiErrorOf(() => fm.apply(live, config, 'kubectl', false, at(2)));
    const manager = 'conflict with "test_client_side_apply" using apps/v1';
    assert.deepEqual(err.status.details!.causes, [
      { reason: 'FieldManagerConflict', message: manager, field: '.metadata.labels.app' },
      { reason: 'FieldManagerConflict', message: manager, field: '.spec.replicas' },
      { reason: 'FieldManagerConflict', message: manager, field: '.spec.template.spec.containers[name="my-c"].image' },
    ]);
    assert.equal(
      err.status.message,
      'Apply failed with 3 conflicts: conflicts with "test_client_side_apply" using apps/v1:\n- .metadata.labels.app\n- .spec.replicas\n- .spec.template.spec.containers[name="my-c"].image',
    );
    // Force resolves them all.
    const forced = fm.apply(live, config, 'kubectl', true, at(3)) as Obj;
    assert.equal(forced.spec.replicas, 333);
  });

  test('one field changed behind the annotation is the one conflict', () => {
    const fm = deployments();
    const lastApplied = deployment({ labels: { app: 'my-app' }, replicas: 3, selector: 'my-app' });
    const live = clientSideApplied(fm, deployment({ labels: { app: 'my-app' }, replicas: 100, selector: 'my-app' }), lastApplied);
    const err = apiErrorOf(() => fm.apply(live, deployment({ labels: { app: 'my-new-label' }, replicas: 3 }), 'kubectl', false, at(2)));
    assert.equal(err.status.message, 'Apply failed with 1 conflict: conflict with "test_client_side_apply" using apps/v1: .spec.replicas');
  });

  test('a manager other than kubectl gets every conflict', () => {
    const fm = deployments();
    const original = deployment({ labels: { app: 'my-app' }, replicas: 3, selector: 'my-app' });
    const live = clientSideApplied(fm, original, original);
    const err = apiErrorOf(() => fm.apply(live, deployment({ labels: { app: 'my-new-label' }, replicas: 3 }), 'not_kubectl', false, at(2)));
    assert.equal(err.status.message, 'Apply failed with 1 conflict: conflict with "test_client_side_apply" using apps/v1: .metadata.labels.app');
    // And kubectl, whose annotation matches the live object, gets none.
    assert.equal((fm.apply(live, deployment({ labels: { app: 'my-new-label' }, replicas: 3 }), 'kubectl', false, at(2)) as Obj).metadata.labels.app, 'my-new-label');
  });

  test('an annotation that is not an object of this version forgives nothing; force still works and fixes it', () => {
    const fm = deployments();
    const original = deployment({ labels: { app: 'my-app-v1' }, replicas: 1 });
    for (const bad of ['invalid-object', '{"apiVersion":"apps/v1beta1","kind":"Deployment"}', '{"apiVersion":"apps/v1"}']) {
      const live = clientSideApplied(fm, original, bad, 'kubectl-client-side-apply-test');
      assert.equal(lastAppliedOf(live), bad);
      const config = deployment({ labels: { app: 'my-app-v2' }, replicas: 100 });
      assert.equal(apiErrorOf(() => fm.apply(live, config, 'kubectl', false, at(2))).code, 409);
      const forced = fm.apply(live, config, 'kubectl', true, at(3)) as Obj;
      assert.equal(lastAppliedOf(forced), buildLastApplied(config));
    }
  });
});

describe('the annotation on server-side apply', () => {
  const config = (data: Record<string, string>, annotation?: string) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'cm', namespace: 'default', ...(annotation ? { annotations: { [LAST_APPLIED_ANNOTATION]: annotation } } : {}) },
    data,
  });

  test('only kubectl updates it, and only where it exists (TestLastAppliedUpdater)', () => {
    const fm = configMaps();
    let live = stored(fm.apply(null, config({ k: 'v' }, 'nonempty'), 'NOT-KUBECTL', false, at(1)));
    assert.equal(lastAppliedOf(live), 'nonempty');
    live = stored(fm.apply(live, config({ k: 'v' }), 'kubectl', false, at(2)));
    assert.equal(lastAppliedOf(live), buildLastApplied(config({ k: 'v' })));

    const plain = stored(configMaps().apply(null, config({ k: 'v' }), 'kubectl', false, at(1)));
    assert.equal(plain.metadata.annotations, undefined);
  });

  test('kept in step even when the apply changes nothing else', () => {
    const fm = configMaps();
    const live = stored(fm.apply(null, config({ k: 'v' }, 'stale'), 'NOT-KUBECTL', false, at(1)));
    const out = fm.apply(live, config({ k: 'v' }), 'kubectl', false, at(2)) as Obj;
    assert.equal(lastAppliedOf(out), buildLastApplied(config({ k: 'v' })));
  });

  test('dropped when it would take the annotations past 256 KiB (TestLargeLastApplied)', () => {
    const fm = configMaps();
    const live = stored(fm.apply(null, config({ k: 'v' }, 'nonempty'), 'kubectl', false, at(1)));
    assert.notEqual(lastAppliedOf(live), 'nonempty');
    const big: Record<string, string> = {};
    for (let i = 0; i < 9999; i++) big[`this-key-is-very-long-so-as-to-create-a-very-large-serialized-fieldset-${i}`] = 'A';
    const out = fm.apply(live, config(big, 'nonempty'), 'kubectl', false, at(2)) as Obj;
    assert.equal(lastAppliedOf(out), undefined);
    assert.deepEqual(out.metadata.annotations, {});
  });
});

describe('from server-side back to client-side apply', () => {
  test("an update by kubectl's client-side apply takes the fields it changes from kubectl's apply", () => {
    const fm = configMaps();
    const applied = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default' }, data: { a: '1', b: '1' } };
    const live = stored(fm.apply(null, applied, 'kubectl', false, at(1)));
    const csa = structuredClone(live);
    csa.data.a = '2';
    csa.metadata.annotations = { [LAST_APPLIED_ANNOTATION]: buildLastApplied({ ...applied, data: { a: '2', b: '1' } }) };
    const out = fm.update(live, csa, 'kubectl-client-side-apply', at(2)) as Obj;
    assert.deepEqual(
      out.metadata.managedFields.map((e: Obj) => [e.manager, e.operation, e.fieldsV1]),
      [
        ['kubectl', 'Apply', { 'f:data': { 'f:b': {} } }],
        ['kubectl-client-side-apply', 'Update', { 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:annotations': { '.': {}, [`f:${LAST_APPLIED_ANNOTATION}`]: {} } } }],
      ],
    );
  });
});
