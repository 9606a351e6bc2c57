import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { builtinKinds } from '../../src/kinds/index.ts';
import type { KindDefinition } from '../../src/registry/kind.ts';
import { enabledKinds } from '../../src/registry/runtime-config.ts';
import { statusSubresource } from '../../src/registry/subresources.ts';
import { openTestRegistry, testContext, type TestRegistry } from '../helpers/registry.ts';
import { gadgetKind } from '../helpers/test-kinds.ts';

/**
 * A kind made for these tests (stored apart from ConfigMaps, though it borrows their schema): it has
 * graceful deletion, returns deleted objects, defaults a field, warns, and has a status subresource.
 */
const gadgets: KindDefinition = gadgetKind({
  returnDeletedObject: true,
  subresources: [statusSubresource()],
  strategy: {
    default: (_ctx, obj) => {
      obj.data = { color: 'grey', ...((obj.data as Record<string, string> | undefined) ?? {}) };
    },
    warningsOnCreate: (_ctx, obj) => ((obj.data as Record<string, string>).color === 'red' ? ['red gadgets fade'] : []),
    warningsOnUpdate: (_ctx, obj, old) => ((obj.data as Record<string, string>).color !== (old.data as Record<string, string>).color ? ['color changed'] : []),
  },
  deleteStrategy: {
    // 30 s unless the client names a period, as a pod's terminationGracePeriodSeconds would.
    gracePeriodSeconds: (_ctx, _obj, requested) => requested ?? 30,
  },
});

let registry: TestRegistry;
before(async () => {
  registry = await openTestRegistry({ kinds: [...builtinKinds, gadgets] });
});
after(async () => {
  await registry.close();
});

const store = () => registry.store('gadgets', 'test.example.com');
const body = (name: string, data?: Record<string, string>) => ({ apiVersion: 'test.example.com/v1', kind: 'Gadget', metadata: { name }, ...(data ? { data } : {}) });

describe('kind data', () => {
  test('the defaulting hook runs on every write body', async () => {
    const created = await store().create(testContext(), 'default', body('plain'));
    assert.equal((created.object.data as Record<string, string> | undefined)?.color, 'grey');
    const { stored } = await store().replace(testContext(), 'default', 'plain', { ...created.object, data: {} });
    assert.equal((stored.object.data as Record<string, string> | undefined)?.color, 'grey');
  });

  test('warning hooks of create and update reach the context', async () => {
    const ctx = testContext();
    const created = await store().create(ctx, 'default', body('red', { color: 'red' }));
    assert.deepEqual(ctx.warnings, ['red gadgets fade']);
    const update = testContext();
    await store().update(update, 'default', 'red', { build: () => ({ ...created.object, data: { color: 'blue' } }) });
    assert.deepEqual(update.warnings, ['color changed']);
  });

  test('graceful deletion: marked with the grace period; a later delete may only shorten it', async () => {
    await store().create(testContext(), 'default', body('graceful'));
    const first = await store().delete(testContext(), 'default', 'graceful', { dryRun: false });
    assert.equal(first.gone, false);
    const marked = first.object.object.metadata;
    assert.equal(marked.deletionGracePeriodSeconds, 30);
    const delay = Date.parse(marked.deletionTimestamp!) - Date.now();
    assert.ok(delay > 25_000 && delay <= 31_000, `deletionTimestamp ${marked.deletionTimestamp} is ~30 s ahead`);

    // A longer period changes nothing.
    const longer = await store().delete(testContext(), 'default', 'graceful', { dryRun: false, gracePeriodSeconds: 60 });
    assert.equal(longer.gone, false);
    assert.equal(longer.object.resourceVersion, first.object.resourceVersion);

    // A shorter one moves the deletion time earlier.
    const shorter = await store().delete(testContext(), 'default', 'graceful', { dryRun: false, gracePeriodSeconds: 10 });
    assert.equal(shorter.gone, false);
    assert.equal(shorter.object.object.metadata.deletionGracePeriodSeconds, 10);
    assert.ok(Date.parse(shorter.object.object.metadata.deletionTimestamp!) < Date.parse(marked.deletionTimestamp!));

    // Zero deletes now; this kind answers with the deleted object, not a Status.
    const now = await store().delete(testContext(), 'default', 'graceful', { dryRun: false, gracePeriodSeconds: 0 });
    assert.equal(now.gone, true);
    assert.equal(now.gone && now.status, undefined);
    assert.equal(now.object.object.metadata.name, 'graceful');
    await assert.rejects(store().get(testContext(), 'default', 'graceful'), { code: 404 });
  });

  test('a grace period of 0 at the first delete removes the object at once', async () => {
    await store().create(testContext(), 'default', body('quick'));
    const outcome = await store().delete(testContext(), 'default', 'quick', { dryRun: false, gracePeriodSeconds: 0 });
    assert.equal(outcome.gone, true);
  });

  test('kinds without a delete strategy delete at once and answer with a Status', async () => {
    await registry.store('configmaps').create(testContext(), 'default', { metadata: { name: 'gone-now' } });
    const outcome = await registry.store('configmaps').delete(testContext(), 'default', 'gone-now', { dryRun: false, gracePeriodSeconds: 30 });
    assert.equal(outcome.gone, true);
    assert.equal(outcome.gone && outcome.status?.status, 'Success');
  });

  test('the status subresource writes status and metadata, and keeps the rest', async () => {
    const created = await store().create(testContext(), 'default', body('with-status', { color: 'green' }));
    const { stored } = await store().update(testContext({ subresource: 'status' }), 'default', 'with-status', {
      build: (current) => ({ ...current!, metadata: { ...current!.metadata, labels: { seen: 'yes' } }, data: { color: 'pink' }, status: { ok: true } }),
    });
    assert.deepEqual(stored.object.status, { ok: true });
    assert.equal(stored.object.metadata.labels?.seen, 'yes');
    assert.equal((stored.object.data as Record<string, string> | undefined)?.color, 'green');
    // And the main resource keeps status as stored.
    const main = await store().update(testContext(), 'default', 'with-status', {
      build: (current) => ({ ...current!, status: { ok: false } }),
    });
    assert.deepEqual(main.stored.object.status, { ok: true });
    assert.notEqual(created.object.metadata.resourceVersion, main.stored.object.metadata.resourceVersion);
  });
});

describe('enabledByDefault', () => {
  const beta = gadgetKind({ version: 'v1beta1', enabledByDefault: false });

  test('a kind off by default is served only when --runtime-config turns it on', () => {
    assert.deepEqual(enabledKinds([gadgets, beta], []).map((k) => k.version), ['v1']);
    assert.deepEqual(enabledKinds([gadgets, beta], ['test.example.com/v1beta1=true']).map((k) => k.version), ['v1', 'v1beta1']);
    assert.deepEqual(enabledKinds([gadgets, beta], ['api/all=true']).map((k) => k.version), ['v1', 'v1beta1']);
    assert.deepEqual(enabledKinds([gadgets, beta], ['api/all=false', 'test.example.com/v1=true']).map((k) => k.version), ['v1']);
  });
});
