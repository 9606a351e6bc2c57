import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { assertStatus } from '../helpers/fixtures.ts';
import { client } from '../helpers/http.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { userAgent } from './rbac-user-agent.ts';

let srv: TestServer;
let work: string;
before(async () => {
  srv = await startTestServer();
  work = await mkdtemp(path.join(tmpdir(), 'pgkube-default-roles-'));
});
after(async () => {
  await srv.stop();
  await rm(work, { recursive: true, force: true });
});

const RBAC = '/apis/rbac.authorization.k8s.io/v1';

/** Retries until `ok` holds (the aggregation controller and the authorizer's informers catch up). */
async function until<T>(what: string, fn: () => Promise<T>, ok: (v: T) => boolean, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}: ${JSON.stringify(v).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function rulesOf(name: string): Promise<unknown[]> {
  const res = await client(srv.url, srv.adminAgent).get(`${RBAC}/clusterroles/${name}`);
  assert.equal(res.status, 200, res.text);
  return (res.json.rules ?? []) as unknown[];
}

/** Binds a ClusterRole to a user in one namespace. */
async function bindInNamespace(namespace: string, clusterRole: string, userName: string): Promise<void> {
  const res = await client(srv.url, srv.adminAgent).post(`${RBAC}/namespaces/${namespace}/rolebindings`, {
    metadata: { name: `${userName}-${clusterRole}` },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: clusterRole },
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: userName }],
  });
  assert.equal(res.status, 201, res.text);
}

test('admin, edit and view hold the union of the roles that aggregate into them', async () => {
  const [aggAdmin, aggEdit, aggView] = await Promise.all(['admin', 'edit', 'view'].map((r) => rulesOf(`system:aggregate-to-${r}`)));
  // Name order: edit takes system:aggregate-to-edit, then view; admin takes edit, then system:aggregate-to-admin.
  const view = aggView!;
  const edit = [...aggEdit!, ...view];
  const admin = [...edit, ...aggAdmin!];
  assert.equal(new Set(admin.map((r) => JSON.stringify(r))).size, admin.length, 'no rule is in two aggregated roles');
  for (const [name, want] of [['view', view], ['edit', edit], ['admin', admin]] as const) {
    await until(`${name} aggregated`, () => rulesOf(name), (got) => isDeepStrictEqual(got, want));
  }
});

test('a user bound to edit in a namespace may create configmaps there, but not roles', async () => {
  const admin = client(srv.url, srv.adminAgent);
  assert.equal((await admin.post('/api/v1/namespaces', { metadata: { name: 'team-edit' } })).status, 201);
  await bindInNamespace('team-edit', 'edit', 'erin');
  const erin = client(srv.url, await userAgent(srv, work, 'erin', ['devs']));
  let n = 0;
  const created = await until(
    'edit to allow configmaps',
    () => erin.post('/api/v1/namespaces/team-edit/configmaps', { metadata: { name: `cm-${n++}` }, data: { a: 'b' } }),
    (r) => r.status === 201,
  );
  assert.equal(created.json.metadata.namespace, 'team-edit');
  assertStatus(
    await erin.post(`${RBAC}/namespaces/team-edit/roles`, { metadata: { name: 'mine' }, rules: [] }),
    403,
    'Forbidden',
    'roles.rbac.authorization.k8s.io is forbidden: User "erin" cannot create resource "roles" in API group "rbac.authorization.k8s.io" in the namespace "team-edit"',
  );
  // The binding is namespaced: nothing elsewhere.
  assert.equal((await erin.post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'elsewhere' } })).status, 403);
});

test('a user bound to view may read configmaps but not secrets', async () => {
  const admin = client(srv.url, srv.adminAgent);
  assert.equal((await admin.post('/api/v1/namespaces', { metadata: { name: 'team-view' } })).status, 201);
  assert.equal((await admin.post('/api/v1/namespaces/team-view/secrets', { metadata: { name: 's' }, stringData: { k: 'v' } })).status, 201);
  await bindInNamespace('team-view', 'view', 'vic');
  const vic = client(srv.url, await userAgent(srv, work, 'vic', []));
  await until('view to allow configmaps', () => vic.get('/api/v1/namespaces/team-view/configmaps'), (r) => r.status === 200);
  assertStatus(
    await vic.get('/api/v1/namespaces/team-view/secrets/s'),
    403,
    'Forbidden',
    'secrets "s" is forbidden: User "vic" cannot get resource "secrets" in API group "" in the namespace "team-view"',
  );
  assert.equal((await vic.get('/api/v1/namespaces/team-view/secrets')).status, 403);
  assert.equal((await vic.post('/api/v1/namespaces/team-view/configmaps', { metadata: { name: 'no' } })).status, 403);
});
