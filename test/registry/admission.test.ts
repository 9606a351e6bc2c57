import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { forbidden } from '../../src/api/errors.ts';
import type { AdmissionAttributes } from '../../src/admission/attributes.ts';
import { handlesOperations, type AdmissionPlugin } from '../../src/admission/plugin.ts';
import { openTestRegistry, testContext, type TestRegistry } from '../helpers/registry.ts';

/** What the recorder saw, one line per call: phase, operation, name, and what came with it. */
const seen: string[] = [];

function describeCall(phase: string, a: AdmissionAttributes): string {
  const parts = [phase, a.operation, `${a.namespace}/${a.name}`];
  if (a.subresource) parts.push(`sub=${a.subresource}`);
  if (a.object) parts.push('object');
  if (a.oldObject) parts.push('old');
  if (a.dryRun) parts.push('dryRun');
  parts.push(String(a.options?.kind));
  return parts.join(' ');
}

const recorder: AdmissionPlugin = {
  name: 'Recorder',
  handles: handlesOperations('CREATE', 'UPDATE', 'DELETE'),
  admit: (a) => {
    seen.push(describeCall('admit', a));
    // A mutating plugin may change the object: every object it admits gets a label.
    if (a.object && a.resource.resource === 'configmaps') {
      const meta = (a.object.metadata ??= {});
      meta.labels = { ...(meta.labels ?? {}), admitted: 'yes' };
    }
  },
  validate: (a) => {
    seen.push(describeCall('validate', a));
    if (a.object?.metadata?.labels?.deny === 'yes') throw forbidden({ group: '', resource: a.resource.resource }, a.name, 'denied by the test');
    if (a.object?.metadata?.labels?.warn === 'yes') a.context.warnings.push('careful with that object');
  },
};

let registry: TestRegistry;
before(async () => {
  registry = await openTestRegistry({ plugins: [recorder] });
});
after(async () => {
  await registry.close();
});

const cm = (name: string, labels: Record<string, string> = {}) => ({ metadata: { name, labels }, data: { a: '1' } });

describe('admission in the store', () => {
  test('create: mutating before the kind rules, validating after them, then the write', async () => {
    seen.length = 0;
    const stored = await registry.store('configmaps').create(testContext(), 'default', cm('first'));
    assert.deepEqual(seen, ['admit CREATE default/first object CreateOptions', 'validate CREATE default/first object CreateOptions']);
    assert.equal(stored.object.metadata.labels?.admitted, 'yes');
  });

  test('create: an object the kind refuses never reaches validating admission', async () => {
    seen.length = 0;
    await assert.rejects(registry.store('configmaps').create(testContext(), 'default', cm('Not_Valid')), { code: 422 });
    assert.deepEqual(seen, ['admit CREATE default/Not_Valid object CreateOptions']);
  });

  test('a validating refusal stores nothing', async () => {
    await assert.rejects(registry.store('configmaps').create(testContext(), 'default', cm('refused', { deny: 'yes' })), {
      code: 403,
      message: 'configmaps "refused" is forbidden: denied by the test',
    });
    await assert.rejects(registry.store('configmaps').get(testContext(), 'default', 'refused'), { code: 404 });
  });

  test('update: both phases see the stored object as oldObject; dry run and subresource reach the plugins', async () => {
    const store = registry.store('configmaps');
    await store.create(testContext(), 'default', cm('updated'));
    seen.length = 0;
    const { stored } = await store.update(testContext({ dryRun: true }), 'default', 'updated', {
      build: (current) => ({ ...current!, data: { a: '2' } }),
    });
    assert.equal((stored.object.data as Record<string, string> | undefined)?.a, '2');
    assert.deepEqual(seen, ['admit UPDATE default/updated object old dryRun UpdateOptions', 'validate UPDATE default/updated object old dryRun UpdateOptions']);
    assert.equal(((await store.get(testContext(), 'default', 'updated')).object.data as Record<string, string> | undefined)?.a, '1');
  });

  test('warnings from plugins reach the request context', async () => {
    const ctx = testContext();
    await registry.store('configmaps').create(ctx, 'default', cm('warned', { warn: 'yes' }));
    assert.deepEqual(ctx.warnings, ['careful with that object']);
  });

  test('delete: the object being deleted is oldObject, with the DeleteOptions', async () => {
    const store = registry.store('configmaps');
    await store.create(testContext(), 'default', cm('deleted'));
    seen.length = 0;
    await store.delete(testContext(), 'default', 'deleted', { dryRun: false });
    assert.deepEqual(seen, ['admit DELETE default/deleted old DeleteOptions', 'validate DELETE default/deleted old DeleteOptions']);
  });

  test('a delete of a missing object is a 404 before admission', async () => {
    seen.length = 0;
    await assert.rejects(registry.store('configmaps').delete(testContext(), 'default', 'never-was', { dryRun: false }), { code: 404 });
    assert.deepEqual(seen, []);
  });
});

describe('NamespaceLifecycle', () => {
  for (const name of ['default', 'kube-system', 'kube-public']) {
    test(`${name} may not be deleted, not even in a dry run`, async () => {
      for (const dryRun of [true, false]) {
        await assert.rejects(registry.store('namespaces').delete(testContext({ dryRun }), '', name, { dryRun }), {
          code: 403,
          reason: 'Forbidden',
          message: `namespaces "${name}" is forbidden: this namespace may not be deleted`,
        });
      }
      assert.equal((await registry.store('namespaces').get(testContext(), '', name)).object.metadata.deletionTimestamp, undefined);
    });
  }

  test('kube-node-lease and other namespaces may be deleted', async () => {
    const outcome = await registry.store('namespaces').delete(testContext({ dryRun: true }), '', 'kube-node-lease', { dryRun: true });
    assert.equal(outcome.gone, false);
  });

  test('a create in a missing namespace is a 404 for the namespace', async () => {
    await assert.rejects(registry.store('configmaps').create(testContext(), 'nowhere', cm('x')), {
      code: 404,
      message: 'namespaces "nowhere" not found',
    });
  });

  test('a create in a terminating namespace is refused with the NamespaceTerminating cause', async () => {
    const namespaces = registry.store('namespaces');
    await namespaces.create(testContext(), '', { metadata: { name: 'leaving' } });
    await registry.store('configmaps').create(testContext(), 'leaving', cm('before'));
    await namespaces.delete(testContext(), '', 'leaving', { dryRun: false });
    await assert.rejects(registry.store('configmaps').create(testContext(), 'leaving', cm('after')), (err: { code: number; status: { details?: { causes?: { reason: string }[] } } }) => {
      assert.equal(err.code, 403);
      assert.equal(err.status.details?.causes?.[0]?.reason, 'NamespaceTerminating');
      return true;
    });
    // Updates of what is left are still allowed (the namespace controller needs them).
    const { stored } = await registry.store('configmaps').update(testContext(), 'leaving', 'before', { build: (c) => ({ ...c!, data: { a: '3' } }) });
    assert.equal((stored.object.data as Record<string, string> | undefined)?.a, '3');
  });
});
