/**
 * Server-side apply through the Updater, ported from structured-merge-diff's merge tests
 * (set_test, key_test, multiple_appliers_test, nested_test, leaf_test, obsolete versions) onto real kinds:
 * finalizers (a set), containers (keyed by name), env inside containers (a nested list map),
 * Deployment/Pod scalars, nodeSelector (an atomic map).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { messageSchema } from '../../src/schema/type-schema.ts';
import { pathString, type JsonValue } from '../../src/ssa/fieldpath/path-element.ts';
import { ConflictsError, Updater } from '../../src/ssa/updater.ts';
import { Cluster, sorted } from './fixtures.ts';

const deployment = messageSchema('k8s.io.api.apps.v1.Deployment');
const pod = messageSchema('k8s.io.api.core.v1.Pod');
const configMap = messageSchema('k8s.io.api.core.v1.ConfigMap');

function finalizers(...items: string[]): JsonValue {
  return { metadata: { finalizers: items } };
}
const FIN = (v: string): string => `.metadata.finalizers[="${v}"]`;

function containers(...items: JsonValue[]): JsonValue {
  return { spec: { template: { spec: { containers: items } } } };
}
const C = '.spec.template.spec.containers';
function liveContainers(cluster: Cluster): JsonValue {
  const live = cluster.live as { spec: { template: { spec: { containers: JsonValue } } } };
  return live.spec.template.spec.containers;
}

describe('sets (finalizers): set_test', () => {
  const cm = (): Cluster => new Cluster(configMap);

  test('apply twice grows the set in the configuration order', () => {
    const c = cm();
    c.apply('default', finalizers('a', 'c'));
    c.apply('default', finalizers('a', 'b', 'c', 'd'));
    assert.deepEqual(c.live, finalizers('a', 'b', 'c', 'd'));
    assert.deepEqual(c.owned(), { default: { paths: sorted(['a', 'b', 'c', 'd'].map(FIN)), version: 'v1', applied: true } });
  });

  test('apply, update, apply without overlap interleaves new items after their predecessors', () => {
    const c = cm();
    c.apply('default', finalizers('a', 'c'));
    c.update('controller', finalizers('a', 'b', 'c', 'd'));
    c.apply('default', finalizers('a', 'aprime', 'c', 'cprime'));
    assert.deepEqual(c.live, finalizers('a', 'b', 'aprime', 'c', 'd', 'cprime'));
    assert.deepEqual(c.paths('default'), sorted(['a', 'aprime', 'c', 'cprime'].map(FIN)));
    assert.deepEqual(c.paths('controller'), sorted(['b', 'd'].map(FIN)));
  });

  test('apply, update at another version, apply with overlap: both own the shared item', () => {
    const c = cm();
    c.apply('default', finalizers('a', 'c'));
    c.update('controller', finalizers('a', 'b', 'c', 'd'), 'v2');
    c.apply('default', finalizers('a', 'b', 'c'));
    assert.deepEqual(c.live, finalizers('a', 'b', 'c', 'd'));
    assert.deepEqual(c.owned(), {
      default: { paths: sorted(['a', 'b', 'c'].map(FIN)), version: 'v1', applied: true },
      controller: { paths: sorted(['b', 'd'].map(FIN)), version: 'v2', applied: false },
    });
  });

  test('apply twice with another order reorders the live set', () => {
    const c = cm();
    c.apply('default', finalizers('a', 'b', 'c', 'd'));
    c.apply('default', finalizers('a', 'd', 'c', 'b'));
    assert.deepEqual(c.live, finalizers('a', 'd', 'c', 'b'));
  });

  test('a reorder by an updater takes no ownership, and the applier can reorder back', () => {
    const c = cm();
    c.apply('default', finalizers('a', 'b', 'c', 'd'));
    c.update('controller', finalizers('a', 'd', 'c', 'b'));
    assert.equal(c.managers.has('controller'), false);
    c.apply('default', finalizers('a', 'b', 'c', 'd'), { version: 'v2' });
    assert.deepEqual(c.live, finalizers('a', 'b', 'c', 'd'));
    assert.deepEqual(c.owned(), { default: { paths: sorted(['a', 'b', 'c', 'd'].map(FIN)), version: 'v2', applied: true } });
  });

  test('items the applier stops applying are removed', () => {
    const c = cm();
    c.apply('default', finalizers('a', 'b', 'c', 'd'));
    c.apply('default', { metadata: { finalizers: ['a', 'c', 'e'] } }, { version: 'v2' });
    assert.deepEqual(c.live, finalizers('a', 'c', 'e'));
    assert.deepEqual(c.owned(), { default: { paths: sorted(['a', 'c', 'e'].map(FIN)), version: 'v2', applied: true } });
  });
});

describe('list maps (containers by name): key_test and multiple appliers', () => {
  const dep = (): Cluster => new Cluster(deployment);

  test('an item the applier no longer applies is replaced by the new one', () => {
    const c = dep();
    c.apply('default', containers({ name: 'a', image: 'one' }));
    c.apply('default', containers({ name: 'b', image: 'two' }));
    assert.deepEqual(liveContainers(c), [{ name: 'b', image: 'two' }]);
    assert.deepEqual(c.paths('default'), sorted([`${C}[name="b"]`, `${C}[name="b"].name`, `${C}[name="b"].image`]));
  });

  test('remove one: items of another applier stay', () => {
    const c = dep();
    c.apply('apply-one', containers({ name: 'a' }, { name: 'b' }));
    c.apply('apply-two', containers({ name: 'c' }), { version: 'v2' });
    c.apply('apply-one', containers({ name: 'a' }), { version: 'v3' });
    assert.deepEqual(liveContainers(c), [{ name: 'a' }, { name: 'c' }]);
    assert.deepEqual(c.owned(), {
      'apply-one': { paths: sorted([`${C}[name="a"]`, `${C}[name="a"].name`]), version: 'v3', applied: true },
      'apply-two': { paths: sorted([`${C}[name="c"]`, `${C}[name="c"].name`]), version: 'v2', applied: true },
    });
  });

  test('remove one, keep one that another applier also applies', () => {
    const c = dep();
    c.apply('apply-one', containers({ name: 'a' }, { name: 'b' }, { name: 'c' }));
    c.apply('apply-two', containers({ name: 'c' }, { name: 'd' }), { version: 'v2' });
    c.apply('apply-one', containers({ name: 'a' }), { version: 'v3' });
    assert.deepEqual(liveContainers(c), [{ name: 'a' }, { name: 'c' }, { name: 'd' }]);
    assert.deepEqual(c.paths('apply-two'), sorted([`${C}[name="c"]`, `${C}[name="c"].name`, `${C}[name="d"]`, `${C}[name="d"].name`]));
  });

  test('two appliers of the same value share ownership without conflict', () => {
    const c = dep();
    c.apply('apply-one', containers({ name: 'a', image: 'x' }));
    c.apply('apply-two', containers({ name: 'a', image: 'x' }), { version: 'v2' });
    assert.equal(c.lastApplyResult, null, 'nothing changed in the object');
    const shared = sorted([`${C}[name="a"]`, `${C}[name="a"].name`, `${C}[name="a"].image`]);
    assert.deepEqual(c.paths('apply-one'), shared);
    assert.deepEqual(c.paths('apply-two'), shared);
  });

  test('a different value conflicts with the owner, and the live object stays', () => {
    const c = dep();
    c.apply('apply-one', containers({ name: 'a', image: 'x' }));
    assert.deepEqual(c.conflicts('apply-two', containers({ name: 'a', image: 'y' }), 'v2'), [`apply-one ${C}[name="a"].image`]);
    assert.deepEqual(liveContainers(c), [{ name: 'a', image: 'x' }]);
    assert.deepEqual(Object.keys(c.owned()), ['apply-one']);
  });

  test('forcing takes the field: the old owner keeps the rest, the forcer owns what it applied', () => {
    const c = dep();
    c.apply('apply-one', containers({ name: 'a', image: 'x', workingDir: '/w' }));
    c.apply('apply-two', containers({ name: 'a', image: 'y' }), { force: true });
    assert.deepEqual(liveContainers(c), [{ name: 'a', image: 'y', workingDir: '/w' }]);
    assert.deepEqual(c.paths('apply-one'), sorted([`${C}[name="a"]`, `${C}[name="a"].name`, `${C}[name="a"].workingDir`]));
    assert.deepEqual(c.paths('apply-two'), sorted([`${C}[name="a"]`, `${C}[name="a"].name`, `${C}[name="a"].image`]));
  });

  test('live item order after merging, as upstream walks the two lists', () => {
    const c = dep();
    c.update('controller', containers({ name: 'x' }, { name: 'a' }, { name: 'y' }, { name: 'b' }, { name: 'z' }));
    c.apply('default', containers({ name: 'b' }, { name: 'new' }, { name: 'a' }));
    // Live-only items are emitted as the live walk reaches them; the live `a` waits for the configuration
    // to reach it, so `z` (met first) precedes the configuration's `new` and `a`.
    assert.deepEqual(
      (liveContainers(c) as { name: string }[]).map((x) => x.name),
      ['x', 'y', 'b', 'z', 'new', 'a'],
    );
  });
});

describe('nested list maps (env inside containers): nested and multiple appliers tests', () => {
  const env = (...names: string[]): JsonValue => names.map((name) => ({ name }));
  const E = (container: string, name: string): string[] => [`${C}[name="${container}"].env[name="${name}"]`, `${C}[name="${container}"].env[name="${name}"].name`];
  const item = (name: string): string[] => [`${C}[name="${name}"]`, `${C}[name="${name}"].name`];

  test('remove one, keep one with sub-items of another applier', () => {
    const c = new Cluster(deployment);
    c.apply('apply-one', containers({ name: 'a' }, { name: 'b', env: env('c') }));
    c.apply('apply-two', containers({ name: 'b', env: env('d') }), { version: 'v2' });
    c.apply('apply-one', containers({ name: 'a' }), { version: 'v3' });
    assert.deepEqual(liveContainers(c), [{ name: 'a' }, { name: 'b', env: env('d') }]);
    assert.deepEqual(c.paths('apply-one'), sorted(item('a')));
    assert.deepEqual(c.paths('apply-two'), sorted([...item('b'), ...E('b', 'd')]));
  });

  test('a dangling sub-item added by an updater survives the applier dropping its parent item', () => {
    const c = new Cluster(deployment);
    c.apply('apply-one', containers({ name: 'a' }, { name: 'b', env: env('c') }));
    c.apply('apply-two', containers({ name: 'b', env: env('d') }), { version: 'v2' });
    c.update('controller', containers({ name: 'a' }, { name: 'b', env: env('c', 'd', 'e') }), 'v2');
    c.apply('apply-one', containers({ name: 'a' }), { version: 'v3' });
    assert.deepEqual(liveContainers(c), [{ name: 'a' }, { name: 'b', env: env('d', 'e') }]);
    assert.deepEqual(c.paths('controller'), sorted(E('b', 'e')));
    assert.deepEqual(c.paths('apply-two'), sorted([...item('b'), ...E('b', 'd')]));
  });

  test('an item only an updater added sub-items to is removed with them when its applier drops it', () => {
    const c = new Cluster(deployment);
    c.apply('apply-one', containers({ name: 'a' }, { name: 'b', env: env('c') }));
    c.apply('apply-two', containers({ name: 'a', env: env('b') }), { version: 'v2' });
    c.update('controller', containers({ name: 'a', env: env('b') }, { name: 'b', env: env('c', 'd') }), 'v2');
    c.apply('apply-one', containers({ name: 'a' }), { version: 'v3' });
    assert.deepEqual(liveContainers(c), [{ name: 'a', env: env('b') }]);
    assert.deepEqual(c.owned(), {
      'apply-one': { paths: sorted(item('a')), version: 'v3', applied: true },
      'apply-two': { paths: sorted([...item('a'), ...E('a', 'b')]), version: 'v2', applied: true },
    });
  });
});

describe('scalars and structs: leaf_test and field unsetting', () => {
  const podSpec = (spec: Record<string, JsonValue>): JsonValue => ({ spec });

  test('apply, update, apply with a conflict on the updater’s field, then force', () => {
    const c = new Cluster(pod);
    c.apply('default', podSpec({ priority: 1, hostname: 'string' }));
    c.update('controller', podSpec({ priority: 1, hostname: 'controller string', hostNetwork: true }), 'v2');
    assert.deepEqual(c.conflicts('default', podSpec({ priority: 2, hostname: 'user string' })), ['controller .spec.hostname']);
    c.apply('default', podSpec({ priority: 2, hostname: 'user string' }), { force: true });
    assert.deepEqual(c.live, podSpec({ priority: 2, hostname: 'user string', hostNetwork: true }));
    assert.deepEqual(c.owned(), {
      default: { paths: ['.spec.hostname', '.spec.priority'], version: 'v1', applied: true },
      controller: { paths: ['.spec.hostNetwork'], version: 'v2', applied: false },
    });
  });

  test('an updater that changed the applied value takes the field; the applier then omitting it removes nothing', () => {
    const c = new Cluster(pod);
    c.apply('default', podSpec({ priority: 2 }));
    c.update('controller', podSpec({ priority: 1 }));
    assert.deepEqual(Object.keys(c.owned()), ['controller'], 'the applier lost its only field');
    c.apply('default', {});
    assert.equal(c.lastApplyResult, null);
    assert.deepEqual(c.live, podSpec({ priority: 1 }));
    assert.deepEqual(c.owned(), { controller: { paths: ['.spec.priority'], version: 'v1', applied: false } });
  });

  test('unset a scalar owned alone: removed', () => {
    const c = new Cluster(deployment);
    c.apply('apply-one', { spec: { minReadySeconds: 1, revisionHistoryLimit: 5 } });
    c.apply('apply-one', { spec: { minReadySeconds: 1 } }, { version: 'v2' });
    assert.deepEqual(c.live, { spec: { minReadySeconds: 1 } });
    assert.deepEqual(c.owned(), { 'apply-one': { paths: ['.spec.minReadySeconds'], version: 'v2', applied: true } });
  });

  test('unset a scalar shared with another applier: kept, owned by the other only', () => {
    const c = new Cluster(deployment);
    c.apply('apply-one', { spec: { minReadySeconds: 1, revisionHistoryLimit: 5 } });
    c.apply('apply-two', { spec: { revisionHistoryLimit: 5 } }, { version: 'v2' });
    c.apply('apply-one', { spec: { minReadySeconds: 1 } }, { version: 'v3' });
    assert.deepEqual(c.live, { spec: { minReadySeconds: 1, revisionHistoryLimit: 5 } });
    assert.deepEqual(c.paths('apply-one'), ['.spec.minReadySeconds']);
    assert.deepEqual(c.paths('apply-two'), ['.spec.revisionHistoryLimit']);
  });

  test('unset a scalar shared with an updater: kept; the updater (which created the object) also owns .spec', () => {
    const c = new Cluster(deployment);
    c.update('updater', { spec: { minReadySeconds: 1, revisionHistoryLimit: 5 } });
    c.apply('applier', { spec: { minReadySeconds: 1, revisionHistoryLimit: 5 } }, { version: 'v2' });
    c.apply('applier', { spec: { minReadySeconds: 1 } }, { version: 'v3' });
    assert.deepEqual(c.live, { spec: { minReadySeconds: 1, revisionHistoryLimit: 5 } });
    assert.deepEqual(c.owned(), {
      updater: { paths: ['.spec', '.spec.minReadySeconds', '.spec.revisionHistoryLimit'], version: 'v1', applied: false },
      applier: { paths: ['.spec.minReadySeconds'], version: 'v3', applied: true },
    });
  });

  test('an updater changing an applied field claims it', () => {
    const c = new Cluster(deployment);
    c.apply('applier', { spec: { minReadySeconds: 1, revisionHistoryLimit: 5 } });
    c.update('updater', { spec: { minReadySeconds: 1, revisionHistoryLimit: 6 } }, 'v2');
    assert.deepEqual(c.paths('updater'), ['.spec.revisionHistoryLimit']);
    assert.deepEqual(c.paths('applier'), ['.spec.minReadySeconds']);
  });

  test('unset a nested struct owned alone: the whole struct goes', () => {
    const c = new Cluster(deployment);
    c.apply('apply-one', { spec: { minReadySeconds: 1, strategy: { type: 'Recreate' } } });
    c.apply('apply-one', { spec: { minReadySeconds: 1 } });
    assert.deepEqual(c.live, { spec: { minReadySeconds: 1 } });
  });

  test('unset a nested struct shared with another applier: kept', () => {
    const c = new Cluster(deployment);
    c.apply('apply-one', { spec: { minReadySeconds: 1, strategy: { type: 'Recreate' } } });
    c.apply('apply-two', { spec: { strategy: { type: 'Recreate' } } });
    c.apply('apply-one', { spec: { minReadySeconds: 1 } });
    assert.deepEqual(c.live, { spec: { minReadySeconds: 1, strategy: { type: 'Recreate' } } });
    assert.deepEqual(c.paths('apply-one'), ['.spec.minReadySeconds']);
    assert.deepEqual(c.paths('apply-two'), ['.spec.strategy.type']);
  });

  test('removing a map key leaves the map itself when another manager owns it (as upstream, a null map)', () => {
    const c = new Cluster(configMap);
    c.update('creator', { metadata: { labels: { keep: 'x' } } });
    c.apply('applier', { metadata: { labels: { keep: 'x', mine: 'y' } } });
    c.update('creator', { metadata: { labels: { mine: 'y' } } });
    // The creator removed `keep` and owns `.metadata.labels`; the applier now drops `mine`.
    c.apply('applier', { metadata: {} });
    assert.deepEqual(c.live, { metadata: { labels: null } });
  });
});

describe('atomic fields', () => {
  test('atomic map (nodeSelector): any change conflicts on the whole map; force replaces it whole', () => {
    const c = new Cluster(pod);
    c.apply('apply-one', { spec: { nodeSelector: { field1: 'a' } } });
    assert.deepEqual(c.conflicts('apply-two', { spec: { nodeSelector: { field2: 'b' } } }), ['apply-one .spec.nodeSelector']);
    c.apply('apply-two', { spec: { nodeSelector: { field2: 'b' } } }, { force: true });
    assert.deepEqual(c.live, { spec: { nodeSelector: { field2: 'b' } } });
    assert.deepEqual(c.owned(), { 'apply-two': { paths: ['.spec.nodeSelector'], version: 'v1', applied: true } });
  });

  test('atomic list (args) is replaced whole by the applied value, owned as one field', () => {
    const c = new Cluster(deployment);
    c.apply('one', containers({ name: 'a', args: ['x', 'y'] }));
    c.apply('one', containers({ name: 'a', args: ['z'] }));
    assert.deepEqual(liveContainers(c), [{ name: 'a', args: ['z'] }]);
    assert.ok(c.paths('one')!.includes(`${C}[name="a"].args`));
    assert.ok(!c.paths('one')!.some((p) => p.startsWith(`${C}[name="a"].args[`)));
  });

  test('atomic struct (LabelSelector): another applier conflicts on .spec.selector, not on its leaves', () => {
    const c = new Cluster(deployment);
    c.apply('one', { spec: { selector: { matchLabels: { app: 'x' } } } });
    assert.deepEqual(c.paths('one'), ['.spec.selector']);
    assert.deepEqual(c.conflicts('two', { spec: { selector: { matchLabels: { app: 'x', tier: 'y' } } } }), ['one .spec.selector']);
  });
});

describe('conflicts', () => {
  test('several conflicts: sorted by manager, then set order; message grouped as upstream prints it', () => {
    const c = new Cluster(pod);
    c.update('mid', { spec: { schedulerName: 's' } });
    c.update('zeta', { spec: { schedulerName: 's', hostname: 'h', priority: 1 } });
    c.apply('alpha', { spec: { hostNetwork: false, subdomain: 's' } });
    let error: unknown;
    try {
      c.apply('me', { spec: { hostname: 'other', priority: 2, hostNetwork: true, subdomain: 'x', schedulerName: 't' } });
    } catch (e) {
      error = e;
    }
    assert.ok(error instanceof ConflictsError);
    assert.deepEqual(
      error.conflicts.map((x) => `${x.manager} ${pathString(x.path)}`),
      ['alpha .spec.hostNetwork', 'alpha .spec.subdomain', 'mid .spec.schedulerName', 'zeta .spec.hostname', 'zeta .spec.priority'],
    );
    assert.equal(
      error.message,
      [
        'conflicts with "alpha":',
        '- .spec.hostNetwork',
        '- .spec.subdomain',
        'conflicts with "mid":',
        '- .spec.schedulerName',
        'conflicts with "zeta":',
        '- .spec.hostname',
        '- .spec.priority',
      ].join('\n'),
    );
  });

  test('one conflict prints on one line; the managers given are untouched', () => {
    const c = new Cluster(pod);
    c.apply('a', { spec: { hostname: 'x' } });
    const before = c.managers;
    const snapshot = JSON.stringify([...before].map(([m, v]) => [m, v.set.paths().map(pathString)]));
    assert.throws(() => c.updater.apply(c.live, { spec: { hostname: 'y' } }, 'v1', before, 'b', false), {
      name: 'ConflictsError',
      message: 'conflict with "a": .spec.hostname',
    });
    assert.equal(JSON.stringify([...before].map(([m, v]) => [m, v.set.paths().map(pathString)])), snapshot);
  });

  test('a manager at another apiVersion conflicts on the same paths (no conversion: one schema per kind)', () => {
    const c = new Cluster(pod);
    c.apply('old', { spec: { hostname: 'x' } }, { version: 'v1beta1' });
    assert.deepEqual(c.conflicts('new', { spec: { hostname: 'y' } }, 'v1'), ['old .spec.hostname']);
  });
});

describe('no-op detection and purity', () => {
  test('re-applying the same configuration returns null and keeps the managers', () => {
    const c = new Cluster(deployment);
    c.apply('one', containers({ name: 'a', image: 'x' }));
    const managers = c.owned();
    c.apply('one', containers({ name: 'a', image: 'x' }));
    assert.equal(c.lastApplyResult, null);
    assert.deepEqual(c.owned(), managers);
  });

  test('apply never mutates its inputs', () => {
    const updater = new Updater(deployment);
    const live = { spec: { replicas: 1, template: { spec: { containers: [{ name: 'a', image: 'x' }] } } } };
    const config: JsonValue = { spec: { template: { spec: { containers: [{ name: 'a', image: 'y' }, { name: 'b' }] } } } };
    const liveCopy = structuredClone(live);
    const configCopy = structuredClone(config);
    const r = updater.apply(live, config, 'v1', new Map(), 'm', true);
    assert.deepEqual(live, liveCopy);
    assert.deepEqual(config, configCopy);
    assert.deepEqual(r.object, { spec: { replicas: 1, template: { spec: { containers: [{ name: 'a', image: 'y' }, { name: 'b' }] } } } });
  });
});

describe('schema errors', () => {
  test('a configuration with duplicate items is rejected; a live object with duplicates is accepted', () => {
    const updater = new Updater(configMap);
    assert.throws(() => updater.apply({}, finalizers('a', 'a'), 'v1', new Map(), 'm', false), {
      name: 'SchemaError',
      message: '.metadata.finalizers: duplicate entries for key [="a"]',
    });
    const r = updater.apply(finalizers('a', 'a', 'b'), finalizers('c'), 'v1', new Map(), 'm', false);
    assert.deepEqual(r.object, finalizers('a', 'a', 'b', 'c'));
  });

  test('an undeclared field in the configuration is a SchemaError naming the subject', () => {
    const updater = new Updater(configMap);
    try {
      updater.apply({}, { spec: {} }, 'v1', new Map(), 'm', false);
      assert.fail('expected SchemaError');
    } catch (e) {
      assert.equal((e as Error).message, '.spec: field not declared in schema');
      assert.equal((e as { subject?: string }).subject, 'config');
    }
  });
});
