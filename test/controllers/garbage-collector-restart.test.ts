/**
 * The collector keeps no state of its own: a server that starts (or a replica that starts leading)
 * lists every kind again and finishes the work left: dependents of owners deleted meanwhile, owners
 * waiting on foregroundDeletion or orphan finalizers.
 */
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { test } from 'node:test';
import { configMap, create, createNamespace, uniqueName } from '../helpers/fixtures.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { client } from '../helpers/http.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { cmPath, gone, ownerRef } from './gc-helpers.ts';

/** Stops a server but keeps its database, for the next one. */
async function stopKeepingDatabase(srv: TestServer): Promise<void> {
  srv.adminAgent.destroy();
  srv.anonymousAgent.destroy();
  await srv.server.stop();
  await rm(srv.dataDir, { recursive: true, force: true });
}

test('a restarted server rebuilds the graph from storage and finishes background, foreground and orphan deletions', { timeout: 60_000 }, async () => {
  const db = await createTestDatabase();
  // No collector yet: deletions leave their work undone.
  const first = await startTestServer(['--controllers=*,-garbagecollector'], { database: db });
  let second: TestServer | undefined;
  try {
    assert.ok(!first.server.controllers.enabled.includes('garbage-collector-controller'));
    const api = client(first.url, first.adminAgent);
    const ns = await createNamespace(api);
    const dep = (owners: unknown[]) => create(api, cmPath(ns), { metadata: { name: uniqueName('dep'), ownerReferences: owners } });

    const background = await create(api, cmPath(ns), configMap(uniqueName('bg')));
    const bgDep = await dep([ownerRef(background)]);
    const foreground = await create(api, cmPath(ns), configMap(uniqueName('fg')));
    const fgDep = await dep([ownerRef(foreground, { blockOwnerDeletion: true })]);
    const orphaning = await create(api, cmPath(ns), configMap(uniqueName('orphan')));
    const orphanDep = await dep([ownerRef(orphaning)]);

    assert.equal((await api.delete(cmPath(ns, background.metadata.name))).status, 200);
    assert.equal((await api.delete(cmPath(ns, foreground.metadata.name), { propagationPolicy: 'Foreground' })).status, 200);
    assert.equal((await api.delete(cmPath(ns, orphaning.metadata.name), { propagationPolicy: 'Orphan' })).status, 200);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await api.get(cmPath(ns, bgDep.metadata.name))).status, 200, 'nothing collects without the collector');
    assert.deepEqual((await api.get(cmPath(ns, foreground.metadata.name))).json.metadata.finalizers, ['foregroundDeletion']);
    assert.deepEqual((await api.get(cmPath(ns, orphaning.metadata.name))).json.metadata.finalizers, ['orphan']);
    await stopKeepingDatabase(first);

    second = await startTestServer([], { database: db });
    const api2 = client(second.url, second.adminAgent);
    await gone(api2, cmPath(ns, bgDep.metadata.name));
    await gone(api2, cmPath(ns, fgDep.metadata.name));
    await gone(api2, cmPath(ns, foreground.metadata.name));
    await gone(api2, cmPath(ns, orphaning.metadata.name));
    const kept = await api2.get(cmPath(ns, orphanDep.metadata.name));
    assert.equal(kept.status, 200);
    assert.equal(kept.json.metadata.ownerReferences, undefined);
  } finally {
    if (second) await second.stop();
    else {
      await first.server.stop().catch(() => undefined);
      await db.drop();
    }
  }
});
