import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { assertStatus } from '../helpers/fixtures.ts';
import { client } from '../helpers/http.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { userAgent } from './rbac-user-agent.ts';

let srv: TestServer;
let work: string;
before(async () => {
  srv = await startTestServer();
  work = await mkdtemp(path.join(tmpdir(), 'pgkube-rbac-'));
});
after(async () => {
  await srv.stop();
  await rm(work, { recursive: true, force: true });
});

/** Waits for the informers to see a change: retries until the status is the one wanted. */
async function eventually(fn: () => Promise<{ status: number }>, status: number): Promise<{ status: number; body?: unknown }> {
  let last = await fn();
  for (let i = 0; i < 50 && last.status !== status; i++) {
    await new Promise((r) => setTimeout(r, 100));
    last = await fn();
  }
  return last;
}

const RBAC = '/apis/rbac.authorization.k8s.io/v1';

test('a user is refused, then allowed once a Role and RoleBinding grant it', async () => {
  const admin = client(srv.url, srv.adminAgent);
  const alice = client(srv.url, await userAgent(srv, work, 'alice', ['dev']));
  assertStatus(
    await alice.get('/api/v1/namespaces/default/configmaps'),
    403,
    'Forbidden',
    'configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "default"',
  );
  assert.equal(
    (await admin.post(`${RBAC}/namespaces/default/roles`, { metadata: { name: 'cm-reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }] })).status,
    201,
  );
  assert.equal(
    (
      await admin.post(`${RBAC}/namespaces/default/rolebindings`, {
        metadata: { name: 'devs-read-cms' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-reader' },
        subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'dev' }],
      })
    ).status,
    201,
  );
  assert.equal((await eventually(() => alice.get('/api/v1/namespaces/default/configmaps'), 200)).status, 200);
  // Only in that namespace, and only list.
  assert.equal((await alice.get('/api/v1/namespaces/kube-system/configmaps')).status, 403);
  assert.equal((await alice.get('/api/v1/namespaces/default/configmaps/x')).status, 403);
  // Removing the binding takes the grant away.
  assert.equal((await admin.delete(`${RBAC}/namespaces/default/rolebindings/devs-read-cms`)).status, 200);
  assert.equal((await eventually(() => alice.get('/api/v1/namespaces/default/configmaps'), 403)).status, 403);
});

test('authenticated users may read discovery (system:discovery) and review themselves (system:basic-user)', async () => {
  const carol = client(srv.url, await userAgent(srv, work, 'carol', []));
  assert.equal((await carol.get('/api')).status, 200);
  assert.equal((await carol.get('/apis')).status, 200);
  assert.equal((await carol.get('/version')).status, 200);
  const anonymous = client(srv.url, srv.anonymousAgent);
  assertStatus(await anonymous.get('/apis'), 403, 'Forbidden', 'forbidden: User "system:anonymous" cannot get path "/apis"');
});

test('anonymous reaches health and version through system:public-info-viewer, and nothing below them', async () => {
  const anonymous = client(srv.url, srv.anonymousAgent);
  assert.equal((await anonymous.get('/healthz')).status, 200);
  assert.equal((await anonymous.get('/livez')).status, 200);
  assert.equal((await anonymous.get('/readyz')).status, 200);
  assert.equal((await anonymous.get('/version')).status, 200);
  assertStatus(await anonymous.get('/livez/ping'), 403, 'Forbidden', 'forbidden: User "system:anonymous" cannot get path "/livez/ping"');
});

test('the bootstrap policy is labelled and annotated as upstream creates it', async () => {
  const admin = client(srv.url, srv.adminAgent);
  const reply = await admin.get(`${RBAC}/clusterroles/system:public-info-viewer`);
  assert.equal(reply.status, 200);
  const role = reply.json as { metadata: { labels: Record<string, string>; annotations: Record<string, string> }; rules: unknown[] };
  assert.equal(role.metadata.labels['kubernetes.io/bootstrapping'], 'rbac-defaults');
  assert.equal(role.metadata.annotations['rbac.authorization.kubernetes.io/autoupdate'], 'true');
  assert.deepEqual(role.rules, [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'] }]);
  const view = (await admin.get(`${RBAC}/clusterroles/view`)).json as { aggregationRule: unknown };
  assert.deepEqual(view.aggregationRule, { clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } }] });
  const binding = (await admin.get(`${RBAC}/clusterrolebindings/cluster-admin`)).json as { subjects: unknown };
  assert.deepEqual(binding.subjects, [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:masters' }]);
});

test('a starting replica puts back what an autoupdate role lost, and leaves autoupdate=false alone', async () => {
  const admin = client(srv.url, srv.adminAgent);
  const path1 = `${RBAC}/clusterroles/system:discovery`;
  const path2 = `${RBAC}/clusterrolebindings/system:basic-user`;
  const discovery = (await admin.get(path1)).json as { rules: unknown[] };
  assert.equal((await admin.put(path1, { ...discovery, rules: [] })).status, 200);
  const basic = (await admin.get(path2)).json as { metadata: { annotations: Record<string, string> }; subjects: unknown[] };
  basic.metadata.annotations['rbac.authorization.kubernetes.io/autoupdate'] = 'false';
  assert.equal((await admin.put(path2, { ...basic, subjects: [] })).status, 200);

  // A second replica on the same database reconciles at start.
  const replica = await startTestServer([], { database: srv.db });
  try {
    const after1 = (await admin.get(path1)).json as { rules: unknown[] };
    assert.deepEqual(after1.rules, discovery.rules);
    const after2 = (await admin.get(path2)).json as { subjects: unknown[] };
    assert.deepEqual(after2.subjects, []);
  } finally {
    await replica.server.stop();
    await rm(replica.dataDir, { recursive: true, force: true });
  }
});
