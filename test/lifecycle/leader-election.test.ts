import assert from 'node:assert/strict';
import { systemContext } from '../../src/api/request-context.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../../src/config.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { eventually } from '../helpers/fixtures.ts';

test('two replicas on one database: one runs the controllers, the other takes over when it stops', { timeout: 60_000 }, async () => {
  const db = await createTestDatabase('pgkube_leader');
  const dirs = await Promise.all([0, 1].map(() => mkdtemp(path.join(tmpdir(), 'pgkube-leader-'))));
  const servers: RunningServer[] = [];
  try {
    for (const dir of dirs) {
      const config = loadConfig(['--secure-port=0', `--data-dir=${dir}`, '--leader-elect-lease-duration=2s'], { DATABASE_URL: db.url });
      servers.push(await startServer(config, pino({ level: 'silent' })));
    }
    const leading = () => servers.filter((s) => s.controllers.elector?.leading);
    await eventually(async () => leading().length === 1, 'a leader', 10_000);
    const lease = await servers[1].surface.storeFor('coordination.k8s.io', 'leases').get(systemContext(), 'kube-system', 'pgkube-controller-manager');
    const leader = leading()[0];
    assert.equal((lease.object.spec as { holderIdentity: string }).holderIdentity, leader.controllers.elector?.identity);

    // Keep checking that two never lead at once while the leader hands over.
    const other = servers.find((s) => s !== leader)!;
    await leader.stop();
    servers.splice(servers.indexOf(leader), 1);
    await eventually(async () => other.controllers.elector?.leading === true, 'the other replica to take over', 10_000);

    // The new leader's namespace controller works: a deleted namespace with content goes away.
    const namespaces = other.surface.storeFor('', 'namespaces');
    await namespaces.create(systemContext(), '', { metadata: { name: 'after-failover' } });
    await other.surface.storeFor('', 'configmaps').create(systemContext(), 'after-failover', { metadata: { name: 'c' } });
    await namespaces.delete(systemContext(), '', 'after-failover', { dryRun: false });
    await eventually(async () => namespaces.get(systemContext(), '', 'after-failover').then(() => false, () => true), 'the namespace to be finalized', 15_000);
  } finally {
    for (const s of servers) await s.stop();
    await db.drop();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  }
});
