/**
 * A server whose database holds a Namespace and a ClusterRole that cannot be read (rows changed
 * through SQL while it was down) starts all the same: its informers leave them out, warning of each,
 * and clients meet them as before (a list of the resource answers StorageReadError), so that the
 * operator can remove them with the unsafe delete.
 */
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { test } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { assertStatus, create, createNamespace, eventually } from '../helpers/fixtures.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { client } from '../helpers/http.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const GATE = '--feature-gates=AllowUnsafeMalformedObjectDeletion=true';
const OPTION = 'ignoreStoreReadErrorWithClusterBreakingPotential';
const CLUSTER_ROLES = '/apis/rbac.authorization.k8s.io/v1/clusterroles';

/** Stops a server but keeps its database, for the next one. */
async function stopKeepingDatabase(srv: TestServer): Promise<void> {
  srv.adminAgent.destroy();
  srv.anonymousAgent.destroy();
  await srv.server.stop();
  await rm(srv.dataDir, { recursive: true, force: true });
}

/** Sets a field of a stored object to a value of the wrong JSON type, as a hand edit in psql would. */
async function corrupt(dbUrl: string, group: string, resource: string, name: string, field: string): Promise<void> {
  const sql = new pg.Client({ connectionString: dbUrl });
  await sql.connect();
  try {
    const res = await sql.query(
      `update objects set object = jsonb_set(object, $4::text[], '5') where api_group = $1 and resource = $2 and namespace = '' and name = $3`,
      [group, resource, name, [field]],
    );
    assert.equal(res.rowCount, 1, `no row ${resource}/${name}`);
  } finally {
    await sql.end();
  }
}

test('a server starts past a corrupt Namespace and ClusterRole; the unsafe delete removes them and their lists work again', { timeout: 90_000 }, async () => {
  const db = await createTestDatabase();
  const first = await startTestServer([GATE], { database: db });
  let second: TestServer | undefined;
  try {
    const api = client(first.url, first.adminAgent);
    const broken = await createNamespace(api);
    const fine = await createNamespace(api);
    await create(api, CLUSTER_ROLES, { metadata: { name: `${broken}-role` }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] });
    await stopKeepingDatabase(first);

    await corrupt(db.url, '', 'namespaces', broken, 'spec');
    await corrupt(db.url, 'rbac.authorization.k8s.io', 'clusterroles', `${broken}-role`, 'rules');
    // A role of the bootstrap policy too, which every start reconciles.
    await corrupt(db.url, 'rbac.authorization.k8s.io', 'clusterroles', 'system:basic-user', 'rules');

    const logs: Record<string, unknown>[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
    second = await startTestServer([GATE], { database: db, logger });
    const api2 = client(second.url, second.adminAgent);
    const namespaceKey = `/registry/namespaces/${broken}`;
    const roleKey = `/registry/rbac.authorization.k8s.io/clusterroles/${broken}-role`;

    // Its informers warned of both, with why.
    const warned = (key: string) => logs.filter((l) => l.key === key && String(l.msg).startsWith('informer left out an object that cannot be read'));
    assert.ok(warned(namespaceKey).length > 0, 'the namespace is warned of');
    assert.match(String(warned(namespaceKey)[0]!.reason), /Namespace\.spec/);
    assert.ok(warned(roleKey).length > 0, 'the cluster role is warned of');
    assert.match(String(warned(roleKey)[0]!.reason), /ClusterRole\.rules/);

    assert.ok(
      logs.some((l) => l.name === 'system:basic-user' && String(l.msg).startsWith('RBAC bootstrap policy: stored object cannot be read')),
      'the bootstrap policy leaves the corrupt role as it is, and says so',
    );

    // Clients meet them as before; no request parameter spares them.
    for (const path of ['/api/v1/namespaces', '/api/v1/namespaces?skipUnreadable=true', '/api/v1/namespaces?limit=50']) {
      const s = assertStatus(await api2.get(path), 500, 'StorageReadError', 'failed to read one or more namespaces from the storage');
      assert.deepEqual(s.details.causes.map((c: { field: string }) => c.field), [namespaceKey], path);
    }
    assertStatus(await api2.get(`/api/v1/namespaces/${broken}`), 500, 'InternalError');
    assertStatus(await api2.get(CLUSTER_ROLES), 500, 'StorageReadError', 'failed to read one or more clusterroles.rbac.authorization.k8s.io from the storage');

    // Namespace lifecycle admission looks up a namespace its informer lacks, and meets the corrupt object.
    assertStatus(await api2.post(`/api/v1/namespaces/${broken}/configmaps`, { metadata: { name: 'x' } }), 500, 'InternalError', /corrupt object.*Namespace\.spec/);
    // The server works: namespace lifecycle admission and RBAC answer from their informers.
    await create(api2, `/api/v1/namespaces/${fine}/configmaps`, { metadata: { name: 'after-restart' } });
    assert.equal((await api2.get(`/api/v1/namespaces/${fine}/configmaps/after-restart`)).status, 200);

    // The unsafe delete removes them; the lists answer again.
    const deleted = await api2.delete(`/api/v1/namespaces/${broken}?${OPTION}=true`);
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal((await api2.delete(`${CLUSTER_ROLES}/${broken}-role?${OPTION}=true`)).status, 200);
    assert.equal((await api2.delete(`${CLUSTER_ROLES}/system:basic-user?${OPTION}=true`)).status, 200);
    const namespaces = await api2.get('/api/v1/namespaces');
    assert.equal(namespaces.status, 200, namespaces.text);
    const names = namespaces.json.items.map((n: { metadata: { name: string } }) => n.metadata.name);
    assert.ok(names.includes(fine) && !names.includes(broken));
    assert.equal((await api2.get(CLUSTER_ROLES)).status, 200);
    // And the namespace informers have caught up with the deletion: creating in it is refused as in any missing namespace.
    await eventually(async () => (await api2.post(`/api/v1/namespaces/${broken}/configmaps`, { metadata: { name: 'x' } })).status === 404, 'the namespace is gone');
  } finally {
    if (second) await second.stop();
    else {
      await first.server.stop().catch(() => undefined);
      await db.drop();
    }
  }
});
