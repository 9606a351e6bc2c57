import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { aggregatedRules, selectorMatches } from '../../src/controllers/cluster-role-aggregation.ts';
import { serveFile } from '../helpers/server.ts';

const t = serveFile();
const ROLES = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
const rule = (resource: string, verbs = ['get']) => ({ apiGroups: [''], resources: [resource], verbs });

/** Rules as stored (key order within a rule is storage's; deepEqual ignores it). */
async function rulesOf(name: string): Promise<unknown[]> {
  return ((await t.api.get(`${ROLES}/${name}`)).json.rules ?? []) as unknown[];
}

async function until(what: string, ok: () => Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('label selectors match as metav1.LabelSelector does', () => {
  assert.equal(selectorMatches({}, {}), true);
  assert.equal(selectorMatches({ matchLabels: { a: 'b' } }, { a: 'b', c: 'd' }), true);
  assert.equal(selectorMatches({ matchLabels: { a: 'b' } }, { a: 'c' }), false);
  assert.equal(selectorMatches({ matchExpressions: [{ key: 'a', operator: 'In', values: ['x', 'y'] }] }, { a: 'y' }), true);
  assert.equal(selectorMatches({ matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['x'] }] }, {}), true);
  assert.equal(selectorMatches({ matchExpressions: [{ key: 'a', operator: 'Exists' }] }, {}), false);
  assert.equal(selectorMatches({ matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] }, {}), true);
});

test('rules are taken in name order, each once, never from the role itself', () => {
  const role = (name: string, labels: Record<string, string>, rules: unknown[], aggregationRule?: unknown) =>
    ({ metadata: { name, labels }, rules, ...(aggregationRule ? { aggregationRule } : {}) }) as never;
  const agg = role('agg', { pick: 'yes' }, [rule('self')], { clusterRoleSelectors: [{ matchLabels: { pick: 'yes' } }] });
  const all = [agg, role('b', { pick: 'yes' }, [rule('pods'), rule('secrets')]), role('a', { pick: 'yes' }, [rule('secrets')]), role('c', {}, [rule('nodes')])];
  assert.deepEqual(aggregatedRules(agg, all), [rule('secrets'), rule('pods')]);
});

test('an aggregated ClusterRole follows the roles its selectors match', async () => {
  const agg = { metadata: { name: 'test-aggregate' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'test/aggregate': 'true' } }] } };
  assert.equal((await t.api.post(ROLES, agg)).status, 201);
  assert.equal((await t.api.post(ROLES, { metadata: { name: 'test-part-b', labels: { 'test/aggregate': 'true' } }, rules: [rule('pods')] })).status, 201);
  await until('filled', async () => isDeepStrictEqual(await rulesOf('test-aggregate'), [rule('pods')]));

  assert.equal((await t.api.post(ROLES, { metadata: { name: 'test-part-a', labels: { 'test/aggregate': 'true' } }, rules: [rule('secrets'), rule('pods')] })).status, 201);
  await until('second role added', async () => isDeepStrictEqual(await rulesOf('test-aggregate'), [rule('secrets'), rule('pods')]));

  const b = (await t.api.get(`${ROLES}/test-part-b`)).json;
  b.rules = [rule('nodes', ['list'])];
  assert.equal((await t.api.put(`${ROLES}/test-part-b`, b)).status, 200);
  await until('changed role followed', async () => isDeepStrictEqual(await rulesOf('test-aggregate'), [rule('secrets'), rule('pods'), rule('nodes', ['list'])]));

  // A rule put in by hand is put back in line.
  const a = (await t.api.get(`${ROLES}/test-aggregate`)).json;
  a.rules = [rule('configmaps')];
  assert.equal((await t.api.put(`${ROLES}/test-aggregate`, a)).status, 200);
  await until('restored', async () => isDeepStrictEqual(await rulesOf('test-aggregate'), [rule('secrets'), rule('pods'), rule('nodes', ['list'])]));

  assert.equal((await t.api.delete(`${ROLES}/test-part-a`)).status, 200);
  assert.equal((await t.api.delete(`${ROLES}/test-part-b`)).status, 200);
  await until('emptied', async () => (await rulesOf('test-aggregate')).length === 0);
});
