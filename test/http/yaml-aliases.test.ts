import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertStatus, createNamespace } from '../helpers/fixtures.ts';
import { client } from '../helpers/http.ts';
import { serveFile } from '../helpers/server.ts';

const LIMIT = 256 * 1024;
let cms: string;
const t = serveFile([`--max-request-body-bytes=${LIMIT}`], async () => {
  cms = `/api/v1/namespaces/${await createNamespace(t.api)}/configmaps`;
});

const YAML = { 'Content-Type': 'application/yaml' };

/**
 * The billion laughs of CVE-2019-11253 as the issue sent it: about 1 KB of nine nested anchors, nine
 * aliases each (9^9 strings once expanded), in a free-form field that would be stored.
 */
function laughs(name: string): string {
  const lines = [`      l1: &lol1 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]`];
  for (let i = 2; i <= 9; i++) lines.push(`      l${i}: &lol${i} [${Array(9).fill(`*lol${i - 1}`).join(', ')}]`);
  return [
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata:',
    `  name: ${name}`,
    '  managedFields:',
    '  - manager: laughs',
    '    operation: Update',
    '    fieldsType: FieldsV1',
    '    fieldsV1:',
    ...lines,
    '',
  ].join('\n');
}

test('a YAML body of nested aliases (billion laughs) is refused at once with 400 excessive aliasing, and nothing is stored', { timeout: 30_000 }, async () => {
  const body = laughs('laughs');
  assert.ok(body.length > 800 && body.length < 1100, `about 1 KB: ${body.length}`);
  // Another client is served meanwhile: the refusal does not hold the event loop.
  const [bomb, other] = await Promise.all([t.api.post(cms, body, YAML), t.api.get('/version')]);
  assertStatus(bomb, 400, 'BadRequest', /yaml: document contains excessive aliasing/);
  assert.equal(other.status, 200);
  assert.equal((await t.api.get(`${cms}/laughs`)).status, 404);
});

test('an update with the same body is refused the same way', { timeout: 30_000 }, async () => {
  const created = await t.api.post(cms, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: target\n', YAML);
  assert.equal(created.status, 201, created.text);
  assertStatus(await t.api.put(`${cms}/target`, laughs('target'), YAML), 400, 'BadRequest', /yaml: document contains excessive aliasing/);
});

test('a YAML body within the alias budget that expands past the request size limit is refused with 413', { timeout: 30_000 }, async () => {
  const big = 'x'.repeat(100 * 1024);
  const body = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: expands\ndata:\n  a: &big "${big}"\n  b: *big\n  c: *big\n`;
  assert.ok(body.length < LIMIT);
  assertStatus(await t.api.post(cms, body, YAML), 413, 'RequestEntityTooLarge', `Request entity too large: limit is ${LIMIT}`);
  assert.equal((await t.api.get(`${cms}/expands`)).status, 404);
});

test('ordinary anchors and aliases still work, and each aliased place is a value of its own', async () => {
  const body = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: anchors\n  labels: &l {app: web, tier: front}\n  annotations: *l\ndata:\n  <<: *l\n  extra: "1"\n';
  const res = await t.api.post(cms, body, YAML);
  assert.equal(res.status, 201, res.text);
  assert.deepEqual(res.json.metadata.labels, { app: 'web', tier: 'front' });
  assert.deepEqual(res.json.metadata.annotations, { app: 'web', tier: 'front' });
  assert.deepEqual(res.json.data, { app: 'web', tier: 'front', extra: '1' });
});
