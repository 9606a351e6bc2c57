/**
 * After start the bootstrap pass runs again and again (upstream: every minute), so that a change to
 * an auto-updated object is undone without a restart; the period is shortened here.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pino from 'pino';
import type { StoredKubeObject } from '../../src/api/types.ts';
import { builtinKinds } from '../../src/kinds/index.ts';
import { ENSURE_PERIOD_MS, FlowControlBootstrapUpkeep } from '../../seeds/flowcontrol-bootstrap-upkeep.ts';
import { eventually } from '../helpers/fixtures.ts';
import { openTestRegistry, testContext, type TestRegistry } from '../helpers/registry.ts';

const G = 'flowcontrol.apiserver.k8s.io';
let reg: TestRegistry;
before(async () => {
  reg = await openTestRegistry();
});
after(async () => {
  await reg.close();
});

const ctx = testContext();
const shares = async (name: string) =>
  ((await reg.store('prioritylevelconfigurations', G).get(ctx, '', name)).object as StoredKubeObject & { spec: { limited: { nominalConcurrencyShares: number } } }).spec.limited.nominalConcurrencyShares;

test("upstream's period is a minute", () => {
  assert.equal(ENSURE_PERIOD_MS, 60_000);
});

test('each period a pass undoes changes to auto-updated objects and re-creates deleted ones; none runs after stop', async () => {
  const upkeep = new FlowControlBootstrapUpkeep({ storage: reg.storage, kinds: builtinKinds, logger: pino({ level: 'silent' }), periodMs: 150 });
  // The start-up pass, as the server runs it before serving.
  assert.equal((await upkeep.runPass()).length, 19);
  upkeep.start();
  try {
    await reg.store('prioritylevelconfigurations', G).update(ctx, '', 'system', {
      build: (current) => ({ ...current!, spec: { ...(current!.spec as object), limited: { ...((current!.spec as { limited: object }).limited), nominalConcurrencyShares: 1 } } }),
    });
    await reg.store('flowschemas', G).delete(ctx, '', 'probes', { dryRun: false });
    await eventually(async () => (await shares('system')) === 30, 'the system level restored');
    await eventually(() => reg.store('flowschemas', G).get(ctx, '', 'probes').then(() => true, () => false), 'the probes schema re-created');
  } finally {
    await upkeep.stop();
  }
  await reg.store('flowschemas', G).delete(ctx, '', 'probes', { dryRun: false });
  await new Promise((r) => setTimeout(r, 500));
  await assert.rejects(reg.store('flowschemas', G).get(ctx, '', 'probes'), { reason: 'NotFound' });
});

test('concurrent asks for a pass share the one under way', async () => {
  const upkeep = new FlowControlBootstrapUpkeep({ storage: reg.storage, kinds: builtinKinds, logger: pino({ level: 'silent' }) });
  await reg.store('flowschemas', G).delete(ctx, '', 'exempt', { dryRun: false });
  const [a, b] = [upkeep.runPass(), upkeep.runPass()];
  assert.equal(a, b);
  assert.deepEqual(await a, ['created flowschemas/probes', 'created flowschemas/exempt']);
});
