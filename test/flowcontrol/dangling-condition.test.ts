/**
 * The FlowSchema Dangling condition (src/controllers/flow-schema-dangling.ts) on the registry and a
 * real database: True while the referenced PriorityLevelConfiguration is missing, False once it
 * exists, with upstream's reasons and messages, written by server-side apply of the status only when
 * it changes, and throttled past six writes a minute.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pino from 'pino';
import type { StoredKubeObject } from '../../src/api/types.ts';
import { CONFIG_CONSUMER_FIELD_MANAGER, FlowSchemaDanglingController } from '../../src/controllers/flow-schema-dangling.ts';
import { eventually } from '../helpers/fixtures.ts';
import { openTestRegistry, testContext, type TestRegistry } from '../helpers/registry.ts';

const G = 'flowcontrol.apiserver.k8s.io';
const ctx = testContext();
let reg: TestRegistry;
let controller: FlowSchemaDanglingController;
/** How far the controller's clock is ahead of the real one. */
let clockAhead = 0;
before(async () => {
  reg = await openTestRegistry();
  controller = new FlowSchemaDanglingController(reg.store('flowschemas', G), reg.store('prioritylevelconfigurations', G), pino({ level: 'silent' }), { throttleDelayMs: () => 1500, now: () => Date.now() + clockAhead });
  await controller.start();
});
after(async () => {
  controller.stop();
  await reg.close();
});

type Condition = { type: string; status: string; reason: string; message: string; lastTransitionTime: string };
type FlowSchema = StoredKubeObject & { status?: { conditions?: Condition[] } };

const schemas = () => reg.store('flowschemas', G);
const levels = () => reg.store('prioritylevelconfigurations', G);
const getSchema = async (name: string) => (await schemas().get(ctx, '', name)).object as FlowSchema;
const dangling = async (name: string) => (await getSchema(name)).status?.conditions?.find((c) => c.type === 'Dangling');
const missing = (pl: string) => `This FlowSchema references the PriorityLevelConfiguration object named "${pl}" but there is no such object`;
const found = (pl: string) => `This FlowSchema references the PriorityLevelConfiguration object named "${pl}" and it exists`;

async function createSchema(name: string, priorityLevel: string): Promise<void> {
  await schemas().create(ctx, '', {
    apiVersion: `${G}/v1`,
    kind: 'FlowSchema',
    metadata: { name },
    spec: { priorityLevelConfiguration: { name: priorityLevel }, matchingPrecedence: 500, rules: [{ subjects: [{ kind: 'Group', group: { name: 'g' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/x'] }] }] },
  });
}
const createLevel = (name: string) =>
  levels().create(ctx, '', { apiVersion: `${G}/v1`, kind: 'PriorityLevelConfiguration', metadata: { name }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Reject' } } } });
const deleteLevel = (name: string) => levels().delete(ctx, '', name, { dryRun: false });
const until = (name: string, status: string) => eventually(async () => ((await dangling(name))?.status === status ? dangling(name) : undefined), `Dangling=${status} on ${name}`);

test('a schema whose level is missing is marked Dangling True, NotFound, by the config consumer through the status', async () => {
  const before = Date.now() - 1000;
  await createSchema('orphan', 'nowhere');
  const c = (await until('orphan', 'True'))!;
  assert.deepEqual({ ...c, lastTransitionTime: undefined }, { type: 'Dangling', status: 'True', reason: 'NotFound', message: missing('nowhere'), lastTransitionTime: undefined });
  assert.match(c.lastTransitionTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.ok(Date.parse(c.lastTransitionTime) >= before);
  const managed = (await getSchema('orphan')).metadata.managedFields as { manager: string; operation: string; subresource?: string }[];
  const entry = managed.find((m) => m.manager === CONFIG_CONSUMER_FIELD_MANAGER);
  assert.deepEqual([entry?.operation, entry?.subresource], ['Apply', 'status']);
});

test('creating the level turns it False, Found; deleting it turns it True again, each with a new transition time', async () => {
  const first = (await dangling('orphan'))!;
  await new Promise((r) => setTimeout(r, 1100));
  await createLevel('nowhere');
  const c = (await until('orphan', 'False'))!;
  assert.deepEqual([c.reason, c.message], ['Found', found('nowhere')]);
  assert.ok(Date.parse(c.lastTransitionTime) > Date.parse(first.lastTransitionTime), 'the transition time moved');
  await deleteLevel('nowhere');
  const again = (await until('orphan', 'True'))!;
  assert.deepEqual([again.reason, again.message], ['NotFound', missing('nowhere')]);
});

test('pointing a schema at another level rewrites the message, and nothing is written once it is right', async () => {
  await createLevel('somewhere');
  await schemas().update(ctx, '', 'orphan', {
    build: (current) => ({ ...current!, spec: { ...(current!.spec as object), priorityLevelConfiguration: { name: 'somewhere' } } }),
  });
  await eventually(async () => (await dangling('orphan'))?.message === found('somewhere'), 'the message names the new level');
  const settled = (await getSchema('orphan')).metadata.resourceVersion;
  await new Promise((r) => setTimeout(r, 500));
  assert.equal((await getSchema('orphan')).metadata.resourceVersion, settled, 'no write when the condition is already right');
});

test("other writers' conditions stay", async () => {
  await schemas().update(testContext({ subresource: 'status' }), '', 'orphan', {
    build: (current) => {
      const next = structuredClone(current!) as FlowSchema;
      next.status!.conditions!.push({ type: 'Other', status: 'True', reason: 'Mine', message: 'm', lastTransitionTime: '2024-01-01T00:00:00Z' });
      return next;
    },
  });
  await deleteLevel('somewhere');
  await until('orphan', 'True');
  assert.deepEqual((await getSchema('orphan')).status?.conditions?.map((c) => c.type).sort(), ['Dangling', 'Other']);
});

test('past six writes of one schema in a minute, the next waits until the minute has moved on', async () => {
  await createSchema('flapping', 'flap');
  await until('flapping', 'True'); // write 1
  for (let i = 0; i < 5; i++) {
    // writes 2 to 6
    if (i % 2 === 0) await createLevel('flap');
    else await deleteLevel('flap');
    await until('flapping', i % 2 === 0 ? 'False' : 'True');
  }
  await deleteLevel('flap'); // the seventh write is held back
  await new Promise((r) => setTimeout(r, 1000));
  assert.equal((await dangling('flapping'))?.status, 'False', 'held back');
  // Still within the minute, the delayed pass holds it back again.
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal((await dangling('flapping'))?.status, 'False', 'held back again');
  clockAhead = 61_000;
  await until('flapping', 'True');
});
