/**
 * The customresource strategy through the generic store (no HTTP): ratcheting of value validation
 * on updates, generation without a status subresource, CEL rules skipped after blocking errors,
 * and defaults applied to controller writes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiError } from '../../src/api/errors.ts';
import type { KubeObject } from '../../src/api/types.ts';
import { customResourceKinds } from '../../src/crd/serving/kinds.ts';
import type { CustomResourceDefinition } from '../../src/crd/validation/types.ts';
import { namespaces } from '../../src/kinds/namespace.ts';
import type { ResourceStore } from '../../src/registry/resource-store.ts';
import { openTestRegistry, testContext, type TestRegistry } from '../helpers/registry.ts';
import { GROUP, widget, widgetCrd } from './cr-fixtures.ts';

let reg: TestRegistry;

/** The v1 kind of a CRD changed by `edit` (a fresh copy of the fixture). */
function v1Kind(edit: (crd: CustomResourceDefinition) => void = () => {}) {
  const crd = structuredClone(widgetCrd());
  edit(crd);
  return customResourceKinds(crd)[0]!;
}

function swap(edit: (crd: CustomResourceDefinition) => void): ResourceStore {
  reg.surface.remove(GROUP, 'v1', 'widgets');
  return reg.surface.add(v1Kind(edit));
}

async function refused(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof ApiError, String(e));
    return e;
  }
  assert.fail('not refused');
}

before(async () => {
  reg = await openTestRegistry({ kinds: [namespaces, v1Kind()] });
});
after(async () => {
  await reg?.close();
});

const store = () => reg.store('widgets', GROUP);
const update = (name: string, change: (o: KubeObject) => void, ctx = testContext()) =>
  store().update(ctx, 'default', name, {
    build: (current) => {
      change(current!);
      return current!;
    },
  });

describe('ratcheting', () => {
  it('an update keeps a value the schema has since tightened, and refuses a new invalid one', async () => {
    await store().create(testContext(), 'default', widget('ratchet', { replicas: 1, color: 'red' }));
    swap((crd) => {
      crd.spec!.versions![0]!.schema!.openAPIV3Schema!.properties!.spec!.properties!.color!.enum = ['blue', 'green'];
    });
    const ok = await update('ratchet', (o) => ((o.spec as Record<string, unknown>).replicas = 2));
    assert.equal((ok.stored.object.spec as Record<string, unknown>).color, 'red');
    const err = await refused(update('ratchet', (o) => ((o.spec as Record<string, unknown>).color = 'pink')));
    assert.equal(err.status.code, 422);
    assert.match(err.message, /spec\.color: Unsupported value: "pink": supported values: "blue", "green"/);
    swap(() => {});
  });
});

describe('generation without a status subresource', () => {
  it('bumps on status changes too, and status is written by the main resource', async () => {
    const s = swap((crd) => {
      delete crd.spec!.versions![0]!.subresources;
    });
    const created = await s.create(testContext(), 'default', { ...widget('nostat'), status: { phase: 'A' } });
    assert.equal(created.object.metadata.generation, 1);
    assert.deepEqual(created.object.status, { phase: 'A' });
    const r = await update('nostat', (o) => (o.status = { phase: 'B' }));
    assert.equal(r.stored.object.metadata.generation, 2);
    const labels = await update('nostat', (o) => (o.metadata!.labels = { a: 'b' }));
    assert.equal(labels.stored.object.metadata.generation, 2);
    swap(() => {});
  });
});

describe('validation order', () => {
  it('skips the CEL rules after a blocking schema error, and says so', async () => {
    const err = await refused(store().create(testContext(), 'default', widget('blocked', { replicas: 'x' })));
    assert.equal(err.status.code, 422);
    assert.match(err.message, /some validation rules were not checked because the object was invalid; correct the existing errors to complete validation/);
  });

  it('a controller write (no HTTP) is pruned and defaulted as well', async () => {
    const created = await store().create(testContext(), 'default', widget('ctl', { replicas: 1, stray: true }));
    assert.deepEqual(created.object.spec, { replicas: 1, color: 'blue' });
  });

  it('refuses a bad status replicas path value through the status subresource', async () => {
    await store().create(testContext(), 'default', widget('st-bad'));
    const err = await refused(update('st-bad', (o) => (o.status = { replicas: -3 }), testContext({ subresource: 'status' })));
    assert.equal(err.status.code, 422);
    assert.match(err.message, /\.status\.replicas: Invalid value: -3: should be a non-negative integer/);
  });
});
