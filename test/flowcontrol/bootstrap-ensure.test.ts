/**
 * The API priority and fairness bootstrap pass (seeds/flowcontrol-bootstrap.ts) on the registry and
 * a real database: what it creates, what it restores, what it leaves to administrators and what it
 * deletes, with several replicas at once and past rows that cannot be read.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { NO_ADMISSION } from '../../src/admission/chain.ts';
import type { KubeObject, StoredKubeObject } from '../../src/api/types.ts';
import { AUTO_UPDATE_ANNOTATION } from '../../src/flowcontrol/bootstrap/default-objects.ts';
import { builtinKinds } from '../../src/kinds/index.ts';
import { ApiSurface } from '../../src/registry/api-surface.ts';
import type { ResourceStore } from '../../src/registry/resource-store.ts';
import { migrateUp, openDatabase, type Database } from '../../src/storage/postgres/database.ts';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage.ts';
import { CONFIG_PRODUCER_FIELD_MANAGER, ensureFlowControlBootstrap } from '../../seeds/flowcontrol-bootstrap.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { testContext } from '../helpers/registry.ts';
import { canonical, EXPECTED_FLOW_SCHEMAS, EXPECTED_PRIORITY_LEVELS } from './bootstrap-expected.ts';

const G = 'flowcontrol.apiserver.k8s.io';
type ManagedField = { manager: string; operation: string };
const silent = pino({ level: 'silent' });
let testDb: TestDatabase;
let database: Database;
let storage: PostgresStorage;
let surface: ApiSurface;
let sql: pg.Client;
const ctx = testContext();

before(async () => {
  testDb = await createTestDatabase();
  database = await openDatabase({ url: testDb.url, logger: silent });
  await migrateUp(database.db);
  storage = new PostgresStorage({ database, logger: silent });
  await storage.start();
  surface = new ApiSurface(builtinKinds, storage, NO_ADMISSION);
  sql = new pg.Client({ connectionString: testDb.url });
  await sql.connect();
});
after(async () => {
  await sql.end();
  await storage.close();
  await database.close();
  await testDb.drop();
});

const levels = (): ResourceStore => surface.storeFor(G, 'prioritylevelconfigurations');
const schemas = (): ResourceStore => surface.storeFor(G, 'flowschemas');
const pass = () => ensureFlowControlBootstrap(storage, builtinKinds);
const get = async (store: ResourceStore, name: string) => (await store.get(ctx, '', name)).object as StoredKubeObject & { spec: Record<string, unknown> };
async function all(store: ResourceStore): Promise<StoredKubeObject[]> {
  const page = await store.list(ctx, undefined, { watch: false, allowWatchBookmarks: false });
  return page.items.map((i) => JSON.parse(i) as StoredKubeObject);
}
/** Writes as an administrator would (generation goes up when the spec changes). */
async function edit(store: ResourceStore, name: string, change: (o: StoredKubeObject & { spec: Record<string, unknown> }) => void): Promise<void> {
  await store.update(ctx, '', name, {
    build: (current) => {
      const next = structuredClone(current!) as StoredKubeObject & { spec: Record<string, unknown> };
      change(next);
      return next;
    },
  });
}
const withShares = (shares: number) => (o: { spec: Record<string, unknown> }) => {
  (o.spec.limited as { nominalConcurrencyShares: number }).nominalConcurrencyShares = shares;
};
const annotate = (value: string | undefined) => (o: KubeObject) => {
  const annotations = { ...(o.metadata!.annotations ?? {}) };
  if (value === undefined) delete annotations[AUTO_UPDATE_ANNOTATION];
  else annotations[AUTO_UPDATE_ANNOTATION] = value;
  o.metadata!.annotations = annotations;
};

test('several replicas starting at once create each object once, all succeeding', async () => {
  const results = await Promise.all([pass(), pass(), pass()]);
  const created = results.flat().filter((c) => c.startsWith('created'));
  assert.equal(created.length, 8 + 11);
  assert.equal(new Set(created).size, created.length);
  // A later pass changes nothing.
  assert.deepEqual(await pass(), []);
});

test("the objects are 1.34's, by name and spec, annotated for auto-update and written by the config producer", async () => {
  const pls = await all(levels());
  const fss = await all(schemas());
  assert.deepEqual(pls.map((o) => o.metadata.name).sort(), Object.keys(EXPECTED_PRIORITY_LEVELS).sort());
  assert.deepEqual(fss.map((o) => o.metadata.name).sort(), Object.keys(EXPECTED_FLOW_SCHEMAS).sort());
  for (const [objects, expected] of [[pls, EXPECTED_PRIORITY_LEVELS], [fss, EXPECTED_FLOW_SCHEMAS]] as const) {
    for (const o of objects) {
      assert.deepEqual(canonical(o.spec), canonical(expected[o.metadata.name]), o.metadata.name);
      assert.deepEqual(o.metadata.annotations, { [AUTO_UPDATE_ANNOTATION]: 'true' }, o.metadata.name);
      assert.deepEqual((o.metadata.managedFields as ManagedField[] | undefined)?.map((m) => [m.manager, m.operation]), [[CONFIG_PRODUCER_FIELD_MANAGER, 'Update']], o.metadata.name);
    }
  }
});

test('a suggested object annotated "true" that someone changed gets its spec back on the next pass', async () => {
  await edit(levels(), 'workload-low', withShares(7));
  assert.deepEqual(await pass(), ['updated prioritylevelconfigurations/workload-low']);
  assert.deepEqual(canonical((await get(levels(), 'workload-low')).spec), canonical(EXPECTED_PRIORITY_LEVELS['workload-low']));
});

test('a suggested object annotated "false" keeps its changes, pass after pass', async () => {
  await edit(levels(), 'workload-high', (o) => {
    annotate('false')(o);
    withShares(3)(o);
  });
  assert.deepEqual(await pass(), []);
  assert.deepEqual(await pass(), []);
  const kept = await get(levels(), 'workload-high');
  assert.equal((kept.spec.limited as { nominalConcurrencyShares: number }).nominalConcurrencyShares, 3);
  assert.equal(kept.metadata.annotations?.[AUTO_UPDATE_ANNOTATION], 'false');
  // Back to "true", the spec is the server's again.
  await edit(levels(), 'workload-high', annotate('true'));
  assert.deepEqual(await pass(), ['updated prioritylevelconfigurations/workload-high']);
  assert.deepEqual(canonical((await get(levels(), 'workload-high')).spec), canonical(EXPECTED_PRIORITY_LEVELS['workload-high']));
});

test('a suggested object without the annotation that was changed is marked "false" and left alone', async () => {
  await edit(schemas(), 'service-accounts', (o) => {
    annotate(undefined)(o);
    o.spec.matchingPrecedence = 8000;
  });
  assert.deepEqual(await pass(), ['updated flowschemas/service-accounts']);
  const marked = await get(schemas(), 'service-accounts');
  assert.equal(marked.metadata.annotations?.[AUTO_UPDATE_ANNOTATION], 'false');
  assert.equal(marked.spec.matchingPrecedence, 8000);
  await edit(schemas(), 'service-accounts', annotate('true'));
  await pass();
});

test('a suggested object without the annotation, unchanged since created, is kept current and marked "true"', async () => {
  await schemas().delete(ctx, '', 'kube-scheduler', { dryRun: false });
  // Created by someone else with another spec and no annotation: generation 1, so the server takes it over.
  await schemas().create(ctx, '', { apiVersion: `${G}/v1`, kind: 'FlowSchema', metadata: { name: 'kube-scheduler' }, spec: { ...(EXPECTED_FLOW_SCHEMAS['kube-scheduler'] as object), matchingPrecedence: 850 } });
  assert.deepEqual(await pass(), ['updated flowschemas/kube-scheduler']);
  const taken = await get(schemas(), 'kube-scheduler');
  assert.equal(taken.spec.matchingPrecedence, 800);
  assert.equal(taken.metadata.annotations?.[AUTO_UPDATE_ANNOTATION], 'true');
});

test('a deleted suggested object is created again', async () => {
  await schemas().delete(ctx, '', 'probes', { dryRun: false });
  await levels().delete(ctx, '', 'node-high', { dryRun: false });
  assert.deepEqual((await pass()).sort(), ['created flowschemas/probes', 'created prioritylevelconfigurations/node-high']);
  assert.deepEqual(canonical((await get(schemas(), 'probes')).spec), canonical(EXPECTED_FLOW_SCHEMAS.probes));
});

test('mandatory objects are restored: re-created when deleted, annotated "true" whatever an administrator set', async () => {
  await schemas().delete(ctx, '', 'catch-all', { dryRun: false });
  await edit(levels(), 'exempt', annotate('false'));
  await edit(levels(), 'catch-all', annotate(undefined));
  assert.deepEqual((await pass()).sort(), ['created flowschemas/catch-all', 'updated prioritylevelconfigurations/catch-all', 'updated prioritylevelconfigurations/exempt']);
  assert.equal((await get(levels(), 'exempt')).metadata.annotations?.[AUTO_UPDATE_ANNOTATION], 'true');
  assert.equal((await get(levels(), 'catch-all')).metadata.annotations?.[AUTO_UPDATE_ANNOTATION], 'true');
  assert.deepEqual(canonical((await get(schemas(), 'catch-all')).spec), canonical(EXPECTED_FLOW_SCHEMAS['catch-all']));
});

test("the exempt level's tuned shares and lendable percent are the administrator's", async () => {
  await edit(levels(), 'exempt', (o) => {
    o.spec.exempt = { nominalConcurrencyShares: 10, lendablePercent: 20 };
  });
  assert.deepEqual(await pass(), []);
  assert.deepEqual((await get(levels(), 'exempt')).spec.exempt, { nominalConcurrencyShares: 10, lendablePercent: 20 });
});

test('objects of an older bootstrap configuration (annotated "true") are deleted; administrators\' objects stay', async () => {
  const fs = (name: string, annotations?: Record<string, string>) =>
    schemas().create(ctx, '', {
      apiVersion: `${G}/v1`,
      kind: 'FlowSchema',
      metadata: { name, ...(annotations ? { annotations } : {}) },
      spec: { ...(EXPECTED_FLOW_SCHEMAS['kube-scheduler'] as object), matchingPrecedence: 700 },
    });
  await fs('workload-leader-election', { [AUTO_UPDATE_ANNOTATION]: 'true' });
  await fs('mine');
  await fs('mine-too', { [AUTO_UPDATE_ANNOTATION]: 'false' });
  await levels().create(ctx, '', { apiVersion: `${G}/v1`, kind: 'PriorityLevelConfiguration', metadata: { name: 'retired', annotations: { [AUTO_UPDATE_ANNOTATION]: 'true' } }, spec: EXPECTED_PRIORITY_LEVELS['workload-low'] });
  assert.deepEqual(await pass(), ['deleted flowschemas/workload-leader-election', 'deleted prioritylevelconfigurations/retired']);
  const names = (await all(schemas())).map((o) => o.metadata.name);
  assert.ok(names.includes('mine') && names.includes('mine-too'));
  assert.ok(!names.includes('workload-leader-election'));
  for (const name of ['mine', 'mine-too']) await schemas().delete(ctx, '', name, { dryRun: false });
});

test('a stored object that cannot be read is left as it is and the rest of the pass goes on', async () => {
  const logs: Record<string, unknown>[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  const res = await sql.query(`update objects set object = jsonb_set(object, '{spec}', '5') where api_group = $1 and resource = 'prioritylevelconfigurations' and name = 'global-default'`, [G]);
  assert.equal(res.rowCount, 1);
  await schemas().delete(ctx, '', 'system-nodes', { dryRun: false });
  assert.deepEqual(await ensureFlowControlBootstrap(storage, builtinKinds, logger), ['created flowschemas/system-nodes']);
  assert.ok(logs.some((l) => l.name === 'global-default' && String(l.msg).includes('stored object cannot be read')), JSON.stringify(logs));
  await sql.query(`delete from objects where api_group = $1 and resource = 'prioritylevelconfigurations' and name = 'global-default'`, [G]);
});

test('with the flowcontrol API turned off (--runtime-config), nothing is read or written', async () => {
  await schemas().delete(ctx, '', 'kube-controller-manager', { dryRun: false });
  const withoutFlowControl = builtinKinds.filter((k) => k.group !== G);
  assert.deepEqual(await ensureFlowControlBootstrap(storage, withoutFlowControl), []);
  // One resource off: only the other is kept.
  const levelsOnly = builtinKinds.filter((k) => k.plural !== 'flowschemas');
  assert.deepEqual(await ensureFlowControlBootstrap(storage, levelsOnly), ['created prioritylevelconfigurations/global-default']);
  assert.deepEqual(await pass(), ['created flowschemas/kube-controller-manager']);
});
