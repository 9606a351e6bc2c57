/**
 * Non-apply writes through the Updater, ignored (reset) fields, duplicates, untyped (deduced) values
 * and schema reconciliation, ported from structured-merge-diff's merge tests (duplicates_test,
 * ignore_test, multiple_appliers_test's deduced case, schema_change_test) onto real kinds.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { messageSchema, type FieldNode, type ObjectSchema } from '../../src/schema/type-schema.ts';
import { pathString, type JsonValue, type PathElement } from '../../src/ssa/fieldpath/path-element.ts';
import { ConflictsError, Updater, type ManagedFieldSets, type UpdaterOptions } from '../../src/ssa/updater.ts';
import { Cluster, P, set as setOf, sorted } from './fixtures.ts';

const deployment = messageSchema('k8s.io.api.apps.v1.Deployment');
const pod = messageSchema('k8s.io.api.core.v1.Pod');
const configMap = messageSchema('k8s.io.api.core.v1.ConfigMap');

describe('update: ownership of a non-apply write', () => {
  test('the creator owns what it added, parents included; a later writer takes what it changes', () => {
    const c = new Cluster(pod);
    c.update('creator', { spec: { hostname: 'h', priority: 1 } });
    assert.deepEqual(c.paths('creator'), ['.spec', '.spec.hostname', '.spec.priority']);
    c.update('editor', { spec: { hostname: 'h2', priority: 1, subdomain: 's' } });
    assert.deepEqual(c.paths('creator'), ['.spec', '.spec.priority']);
    assert.deepEqual(c.paths('editor'), ['.spec.hostname', '.spec.subdomain']);
  });

  test('removing a field takes it away from every owner, and the remover does not own it', () => {
    const c = new Cluster(pod);
    c.apply('applier', { spec: { hostname: 'h', subdomain: 's' } });
    c.update('remover', { spec: { subdomain: 's' } });
    assert.deepEqual(c.paths('applier'), ['.spec.subdomain']);
    assert.equal(c.paths('remover'), undefined, 'an update that only removes leaves no set');
  });

  test('update returns the new object itself and never conflicts', () => {
    const c = new Cluster(pod);
    c.apply('applier', { spec: { hostname: 'h' } });
    const next = { spec: { hostname: 'other' } };
    const r = c.updater.update(c.live, next, 'v1', c.managers, 'kubectl-edit');
    assert.equal(r.object, next);
    assert.equal(r.managers.has('applier'), false);
    assert.deepEqual(r.managers.get('kubectl-edit')?.applied, false);
  });

  test('an applier that then updates becomes an update set (applied: false), keeping untouched fields', () => {
    const c = new Cluster(pod);
    c.apply('m', { spec: { hostname: 'h', subdomain: 's' } });
    c.update('m', { spec: { hostname: 'h2', subdomain: 's' } });
    assert.deepEqual(c.paths('m'), ['.spec.hostname', '.spec.subdomain']);
    assert.equal(c.managers.get('m')?.applied, false);
  });

  test('a granular map created by an update is owned as a whole too (the `.` of FieldsV1)', () => {
    const c = new Cluster(configMap);
    c.update('creator', { metadata: { name: 'x' } });
    c.update('labeler', { metadata: { name: 'x', labels: { a: '1' } } });
    assert.deepEqual(c.paths('labeler'), ['.metadata.labels', '.metadata.labels.a']);
  });
});

describe('update: duplicates (duplicates_test)', () => {
  const fin = (...items: string[]): JsonValue => ({ metadata: { finalizers: items } });
  const F = (v: string): string => `.metadata.finalizers[="${v}"]`;

  test('a duplicated set item is owned once, as the item', () => {
    const c = new Cluster(configMap);
    c.update('updater', fin('1', '1', '3', '4'));
    assert.deepEqual(c.paths('updater'), sorted(['.metadata', '.metadata.finalizers', F('1'), F('3'), F('4')]));
  });

  test('adding a duplicate moves the item to the writer', () => {
    const c = new Cluster(configMap);
    c.update('one', fin('1', '3', '4'));
    c.update('two', fin('1', '1', '3', '4'));
    assert.deepEqual(c.paths('one'), sorted(['.metadata', '.metadata.finalizers', F('3'), F('4')]));
    assert.deepEqual(c.paths('two'), [F('1')]);
  });

  test('removing a duplicate moves the item to the writer', () => {
    const c = new Cluster(configMap);
    c.update('one', fin('1', '1', '3', '4'));
    c.update('two', fin('1', '3', '4'));
    assert.deepEqual(c.paths('one'), sorted(['.metadata', '.metadata.finalizers', F('3'), F('4')]));
    assert.deepEqual(c.paths('two'), [F('1')]);
  });

  test('applying a duplicated item conflicts with its owner; forcing collapses the duplicates', () => {
    const c = new Cluster(configMap);
    c.update('updater', fin('1', '1', '3', '4'));
    assert.throws(() => c.apply('applier', fin('1')), (e: unknown) => {
      assert.ok(e instanceof ConflictsError);
      assert.deepEqual(e.conflicts.map((x) => `${x.manager} ${pathString(x.path)}`), [`updater ${F('1')}`]);
      return true;
    });
    c.apply('applier', fin('1'), { force: true });
    assert.deepEqual(c.live, fin('1', '3', '4'));
    assert.deepEqual(c.paths('updater'), sorted(['.metadata', '.metadata.finalizers', F('3'), F('4')]));
    assert.deepEqual(c.paths('applier'), [F('1')]);
  });

  test('duplicated list-map items are owned as the item only, their fields not at all', () => {
    const c = new Cluster(deployment);
    c.update('updater', { spec: { template: { spec: { containers: [{ name: 'a', image: '1' }, { name: 'a', image: '2' }, { name: 'b', image: '3' }] } } } });
    const C = '.spec.template.spec.containers';
    assert.deepEqual(
      c.paths('updater'),
      sorted(['.spec', '.spec.template', '.spec.template.spec', C, `${C}[name="a"]`, `${C}[name="b"]`, `${C}[name="b"].image`, `${C}[name="b"].name`]),
    );
  });
});

describe('ignored (reset) fields', () => {
  const statusIgnored = (version = 'v1'): UpdaterOptions => ({ ignoredFields: new Map([[version, setOf(P('status'))]]) });

  test('an update does not own ignored fields, however deep', () => {
    const c = new Cluster(pod, statusIgnored());
    c.update('writer', { spec: { priority: 1 }, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } });
    assert.deepEqual(c.paths('writer'), ['.spec', '.spec.priority']);
  });

  test('an apply does not own ignored fields, and changing them conflicts with nobody', () => {
    const c = new Cluster(pod, statusIgnored());
    c.apply('one', { spec: { priority: 1 }, status: { phase: 'Pending' } });
    assert.deepEqual(c.paths('one'), ['.spec.priority']);
    c.apply('two', { status: { phase: 'Running' } });
    assert.deepEqual((c.live as { status: JsonValue }).status, { phase: 'Running' });
    assert.equal(c.managers.has('two'), false, 'its whole set was ignored');
  });

  test('ignored fields are looked up by each set’s own apiVersion', () => {
    // Only v1 ignores .status: a manager recorded at v2 owns it and conflicts with a v1 applier.
    const c = new Cluster(pod, statusIgnored('v1'));
    c.apply('old', { status: { phase: 'Pending' } }, { version: 'v2' });
    assert.deepEqual(c.paths('old'), ['.status.phase']);
    assert.throws(() => c.apply('new', { status: { phase: 'Running' } }), { name: 'ConflictsError', message: 'conflict with "old": .status.phase' });
  });

  test('an unchanged ignored field is no reason to take anything from anyone', () => {
    const c = new Cluster(pod, statusIgnored());
    c.apply('one', { spec: { priority: 1 } });
    c.update('kubelet', { spec: { priority: 1 }, status: { phase: 'Running' } });
    assert.deepEqual(c.paths('one'), ['.spec.priority']);
    assert.equal(c.managers.has('kubelet'), false);
  });
});

/** A custom resource whose spec preserves unknown fields: upstream's deduced type below `.spec`. */
function untypedSpecSchema(): ObjectSchema {
  const node: FieldNode = { name: 'spec', schema: { kind: 'any' }, required: false, goType: '', goElementType: '', patchStrategies: [], patchMergeKey: '' };
  return { kind: 'object', goName: 'Example', typeMeta: true, atomic: false, fields: new Map([['spec', node]]) };
}

describe('untyped values (deduced_test, multiple appliers over a recursive map)', () => {
  test('maps are granular key by key, lists atomic', () => {
    const c = new Cluster(untypedSpecSchema());
    c.apply('one', { spec: { a: { b: 1 }, list: [1, 2] } });
    assert.deepEqual(c.paths('one'), ['.spec.a', '.spec.a.b', '.spec.list']);
    c.apply('two', { spec: { a: { c: 2 } } });
    assert.deepEqual(c.live, { spec: { a: { b: 1, c: 2 }, list: [1, 2] } });
    assert.throws(() => c.apply('two', { spec: { list: [3] } }), { message: 'conflict with "one": .spec.list' });
  });

  test('appliers and updaters over a recursive map: the last applier drops out, dangling owned values stay', () => {
    const c = new Cluster(untypedSpecSchema());
    c.apply('apply-one', { spec: { a: { b: null }, c: { d: null } } });
    c.apply('apply-two', { spec: { a: null, c: { d: null } } }, { version: 'v2' });
    c.update('controller-one', { spec: { a: { b: { c: null } }, c: { d: { e: null } } } }, 'v3');
    c.update('controller-two', { spec: { a: { b: { c: { d: null } } }, c: { d: { e: { f: null } } } } }, 'v2');
    c.update('controller-one', { spec: { a: { b: { c: { d: { e: null } } } }, c: { d: { e: { f: { g: null } } } } } }, 'v3');
    c.apply('apply-one', {}, { version: 'v4' });
    assert.deepEqual(c.live, { spec: { a: null, c: { d: { e: { f: { g: null } } } } } });
    assert.equal(c.managers.has('apply-one'), false);
    assert.deepEqual(c.paths('apply-two'), ['.spec.a', '.spec.c', '.spec.c.d']);
    assert.deepEqual(c.paths('controller-one'), ['.spec.c.d.e', '.spec.c.d.e.f.g']);
    assert.deepEqual(c.paths('controller-two'), ['.spec.c.d.e.f']);
  });
});

describe('sets recorded under an older schema (schema_change_test)', () => {
  test('granular ownership inside a now-atomic struct collapses onto the struct', () => {
    const updater = new Updater(deployment);
    const live = { spec: { selector: { matchLabels: { app: 'x' } } } };
    const stale: ManagedFieldSets = new Map([['one', { set: setOf(P('spec', 'selector', 'matchLabels', 'app')), apiVersion: 'apps/v1', applied: true }]]);
    const r = updater.update(live, live, 'apps/v1', stale, 'other');
    assert.deepEqual(r.managers.get('one')?.set.paths().map(pathString), ['.spec.selector']);
    assert.equal(r.managers.get('one')?.applied, true);
    assert.throws(() => updater.apply(live, { spec: { selector: { matchLabels: { app: 'y' } } } }, 'apps/v1', stale, 'two', false), {
      message: 'conflict with "one": .spec.selector',
    });
  });

  test('set items inside a now-atomic list collapse onto the list; fields unknown to the schema are kept', () => {
    const updater = new Updater(deployment);
    const item: PathElement = { kind: 'key', fields: [['name', 'a']] };
    const C = ['spec', 'template', 'spec', 'containers'];
    const stale: ManagedFieldSets = new Map([
      [
        'one',
        {
          set: setOf(P(...C, item, 'args', { kind: 'value', value: 'x' }), P(...C, item, 'image'), P('spec', 'gone')),
          apiVersion: 'apps/v1',
          applied: false,
        },
      ],
    ]);
    const live = { spec: { template: { spec: { containers: [{ name: 'a', image: 'i', args: ['x'] }] } } } };
    const r = updater.update(live, live, 'apps/v1', stale, 'other');
    assert.deepEqual(
      r.managers.get('one')?.set.paths().map(pathString).sort(),
      sorted(['.spec.gone', '.spec.template.spec.containers[name="a"].args', '.spec.template.spec.containers[name="a"].image']),
    );
  });

  test('sets that agree with the schema are passed through as the same objects', () => {
    const updater = new Updater(deployment);
    const vs = { set: setOf(P('spec', 'replicas')), apiVersion: 'apps/v1', applied: true };
    const r = updater.update({ spec: { replicas: 1 } }, { spec: { replicas: 1 } }, 'apps/v1', new Map([['one', vs]]), 'other');
    assert.equal(r.managers.get('one'), vs);
  });
});
