import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import pg from 'pg';
import { createTestDatabase } from '../helpers/database.ts';
import { configMap, create } from '../helpers/fixtures.ts';
import { client } from '../helpers/http.ts';
import { ROOT } from '../helpers/npm-start.ts';
import { startTestServer } from '../helpers/server.ts';

const run = promisify(execFile);

/** The SQL block of docs/operations.md that starts with `marker`: what operators paste is what runs here. */
async function documentedSql(marker: string): Promise<string> {
  const doc = await readFile(path.join(ROOT, 'docs/operations.md'), 'utf8');
  const block = [...doc.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]).find((b) => b.startsWith(marker));
  assert.ok(block, `docs/operations.md has a SQL block starting with "${marker}"`);
  return block;
}

test('a pg_dump of a running server restores into a new database that a new server serves, fenced as documented', { timeout: 60_000 }, async () => {
  const source = await startTestServer();
  const target = await createTestDatabase('pgkube_restored');
  const work = await mkdtemp(path.join(tmpdir(), 'pgkube-backup-'));
  let restored: Awaited<ReturnType<typeof startTestServer>> | undefined;
  try {
    const api = client(source.url, source.adminAgent);
    const kept = await create(api, '/api/v1/namespaces/default/configmaps', configMap('kept', { a: '1' }));
    const dump = path.join(work, 'kube.dump');
    // The commands of "Backup and restore", with the server running.
    await run('pg_dump', ['--format=custom', `--file=${dump}`, source.db.url]);
    const after = await create(api, '/api/v1/namespaces/default/configmaps', configMap('after-backup'));
    await run('pg_restore', ['--no-owner', '--exit-on-error', `--dbname=${target.url}`, dump]);

    const fence = new pg.Client({ connectionString: target.url });
    await fence.connect();
    try {
      await fence.query(await documentedSql('-- after a restore'));
    } finally {
      await fence.end();
    }

    restored = await startTestServer([], { database: target });
    const api2 = client(restored.url, restored.adminAgent);
    const got = await api2.get('/api/v1/namespaces/default/configmaps/kept');
    assert.equal(got.status, 200);
    assert.deepEqual(got.json.data, { a: '1' });
    assert.equal(got.json.metadata.uid, kept.metadata.uid);
    assert.equal((await api2.get('/api/v1/namespaces/default/configmaps/after-backup')).status, 404, 'written after the dump');

    // Versions clients saw before the restore are compacted: resuming from them means a relist.
    const watch = await api2.get(`/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${after.metadata.resourceVersion}&timeoutSeconds=1`);
    assert.equal(JSON.parse(watch.text.split('\n')[0]).object.code, 410);
    const fresh = await create(api2, '/api/v1/namespaces/default/configmaps', configMap('new'));
    assert.ok(Number(fresh.metadata.resourceVersion) > 1_000_000_000, `new versions continue far past the old ones: ${fresh.metadata.resourceVersion}`);
  } finally {
    await restored?.stop();
    await source.stop();
    await target.drop().catch(() => undefined);
    await rm(work, { recursive: true, force: true });
  }
});
