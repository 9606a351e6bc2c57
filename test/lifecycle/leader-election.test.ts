import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../../src/config.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { createTestDatabase } from '../helpers/database.ts';

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

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
    await until(() => leading().length === 1, 10_000, 'a leader');
    const lease = await servers[1].surface.storeFor('coordination.k8s.io', 'leases').get('kube-system', 'pgkube-controller-manager');
    const leader = leading()[0];
    assert.equal((lease.object.spec as { holderIdentity: string }).holderIdentity, leader.controllers.elector?.identity);

    // Keep checking that two never lead at once while the leader hands over.
    const other = servers.find((s) => s !== leader)!;
    await leader.stop();
    servers.splice(servers.indexOf(leader), 1);
    await until(() => other.controllers.elector?.leading === true, 10_000, 'the other replica to take over');

    // The new leader's namespace controller works: a deleted namespace with content goes away.
    const namespaces = other.surface.storeFor('', 'namespaces');
    await namespaces.create('', { metadata: { name: 'after-failover' } }, { dryRun: false });
    await other.surface.storeFor('', 'configmaps').create('after-failover', { metadata: { name: 'c' } }, { dryRun: false });
    await namespaces.delete('', 'after-failover', { dryRun: false });
    await until(async () => namespaces.get('', 'after-failover').then(() => false, () => true), 15_000, 'the namespace to be finalized');
  } finally {
    for (const s of servers) await s.stop();
    await db.drop();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  }
});
