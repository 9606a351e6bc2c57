/**
 * Escalation prevention over HTTP. Needs ResourceStore to call KindStrategy.authorizeWrite (create:
 * after checkNamespace; update: on the desired object before mutating admission).
 */
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
  work = await mkdtemp(path.join(tmpdir(), 'pgkube-rbac-esc-'));
});
after(async () => {
  await srv.stop();
  await rm(work, { recursive: true, force: true });
});

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const ref = (kind: string, name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind, name });

async function until(fn: () => Promise<{ status: number }>, status: number) {
  let last = await fn();
  for (let i = 0; i < 50 && last.status !== status; i++) {
    await new Promise((r) => setTimeout(r, 100));
    last = await fn();
  }
  return last;
}

test('writing roles and bindings that grant more than one holds is refused unless escalate / bind is granted', async () => {
  const admin = client(srv.url, srv.adminAgent);
  // dave may manage roles and role bindings in default, and list configmaps there; nothing else.
  await admin.post(`${RBAC}/namespaces/default/roles`, {
    metadata: { name: 'rbac-manager' },
    rules: [
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: ['create', 'update', 'get'] },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['list'] },
    ],
  });
  await admin.post(`${RBAC}/namespaces/default/rolebindings`, {
    metadata: { name: 'dave-manages' },
    roleRef: ref('Role', 'rbac-manager'),
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'dave' }],
  });
  const dave = client(srv.url, await userAgent(srv, work, 'dave', ['dev']));
  const held = { metadata: { name: 'held' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }] };
  assert.equal((await until(() => dave.post(`${RBAC}/namespaces/default/roles`, held), 201)).status, 201);

  const more = { metadata: { name: 'more' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] };
  assertStatus(
    await dave.post(`${RBAC}/namespaces/default/roles`, more),
    403,
    'Forbidden',
    'roles.rbac.authorization.k8s.io "more" is forbidden: user "dave" (groups=["dev" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["get"]}',
  );
  // Binding a role one holds is fine; binding cluster-admin is not.
  const bindHeld = { metadata: { name: 'b1' }, roleRef: ref('Role', 'held'), subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'erin' }] };
  assert.equal((await dave.post(`${RBAC}/namespaces/default/rolebindings`, bindHeld)).status, 201);
  const bindAdmin = { metadata: { name: 'b2' }, roleRef: ref('ClusterRole', 'cluster-admin'), subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'dave' }] };
  const refused = await dave.post(`${RBAC}/namespaces/default/rolebindings`, bindAdmin);
  assert.equal(refused.status, 403);
  assert.match(refused.json.message, /^rolebindings\.rbac\.authorization\.k8s\.io "b2" is forbidden: user "dave" .* is attempting to grant RBAC permissions not currently held:\n/);

  // With escalate on roles and bind on cluster-admin, both go through.
  await admin.post(`${RBAC}/namespaces/default/roles`, {
    metadata: { name: 'escalator' },
    rules: [
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], verbs: ['escalate'] },
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['bind'], resourceNames: ['cluster-admin'] },
    ],
  });
  await admin.post(`${RBAC}/namespaces/default/rolebindings`, {
    metadata: { name: 'dave-escalates' },
    roleRef: ref('Role', 'escalator'),
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'dave' }],
  });
  assert.equal((await until(() => dave.post(`${RBAC}/namespaces/default/roles`, more), 201)).status, 201);
  assert.equal((await dave.post(`${RBAC}/namespaces/default/rolebindings`, bindAdmin)).status, 201);
});
