/**
 * A fresh server serves Kubernetes 1.34's API priority and fairness configuration: every mandatory
 * and suggested object, with upstream's spec and the auto-update annotation, and each schema's
 * Dangling condition False since every level it names exists.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AUTO_UPDATE_ANNOTATION } from '../../src/flowcontrol/bootstrap/default-objects.ts';
import { assertStatus, eventually } from '../helpers/fixtures.ts';
import { serveFile } from '../helpers/server.ts';
import { canonical, EXPECTED_FLOW_SCHEMAS, EXPECTED_PRIORITY_LEVELS } from './bootstrap-expected.ts';

const t = serveFile();
const BASE = '/apis/flowcontrol.apiserver.k8s.io/v1';

type Item = { metadata: { name: string; annotations?: Record<string, string> }; spec: unknown; status?: { conditions?: { type: string; status: string; reason: string; message: string }[] } };
const list = async (resource: string): Promise<Item[]> => {
  const res = await t.api.get(`${BASE}/${resource}`);
  assert.equal(res.status, 200, res.text);
  return res.json.items;
};

test('every mandatory and suggested priority level and schema is there, as upstream 1.34 makes it', async () => {
  for (const [resource, expected] of [['prioritylevelconfigurations', EXPECTED_PRIORITY_LEVELS], ['flowschemas', EXPECTED_FLOW_SCHEMAS]] as const) {
    const items = await list(resource);
    assert.deepEqual(items.map((i) => i.metadata.name).sort(), Object.keys(expected).sort(), resource);
    for (const item of items) {
      assert.deepEqual(canonical(item.spec), canonical(expected[item.metadata.name]), item.metadata.name);
      assert.equal(item.metadata.annotations?.[AUTO_UPDATE_ANNOTATION], 'true', item.metadata.name);
    }
  }
});

test('every bootstrap schema is marked not dangling, its level found', async () => {
  await eventually(async () => (await list('flowschemas')).every((fs) => fs.status?.conditions?.some((c) => c.type === 'Dangling' && c.status === 'False')), 'Dangling=False on every schema');
  for (const fs of await list('flowschemas')) {
    const c = fs.status!.conditions!.find((x) => x.type === 'Dangling')!;
    const level = (fs.spec as { priorityLevelConfiguration: { name: string } }).priorityLevelConfiguration.name;
    assert.deepEqual([c.reason, c.message], ['Found', `This FlowSchema references the PriorityLevelConfiguration object named "${level}" and it exists`]);
  }
});

test('a schema naming a missing level is marked dangling through the API', async () => {
  const body = { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name: 'points-nowhere' }, spec: { priorityLevelConfiguration: { name: 'nowhere' }, rules: [] } };
  assert.equal((await t.api.post(`${BASE}/flowschemas`, body)).status, 201);
  const c = await eventually(async () => {
    const res = await t.api.get(`${BASE}/flowschemas/points-nowhere`);
    return (res.json as Item).status?.conditions?.find((x) => x.type === 'Dangling');
  }, 'the Dangling condition');
  assert.deepEqual([c.status, c.reason], ['True', 'NotFound']);
});

test("the mandatory objects' specs still cannot be changed through the API", async () => {
  const res = await t.api.get(`${BASE}/prioritylevelconfigurations/catch-all`);
  const body = res.json;
  body.spec.limited.nominalConcurrencyShares = 50;
  assertStatus(await t.api.put(`${BASE}/prioritylevelconfigurations/catch-all`, body), 422, 'Invalid', /spec of 'catch-all' must equal the fixed value/);
});
