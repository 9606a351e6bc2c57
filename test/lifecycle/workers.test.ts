import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import type https from 'node:https';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { eventually } from '../helpers/fixtures.ts';
import { freePort } from '../helpers/free-port.ts';
import { client } from '../helpers/http.ts';
import { isAlive, waitUntilGone } from '../helpers/npm-start.ts';
import { openWatch, type WatchEvent } from '../helpers/watch-stream.ts';
import { startWorkersServer, type WorkersServer } from '../helpers/workers-server.ts';
import { nodeArgsFor } from '../helpers/entry.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MAX_CONNECTIONS = 8;
const BASE = '/api/v1/namespaces/default/configmaps';

/**
 * --workers=2: one primary, two cluster workers on one port and one database. Which process
 * answered a request is read from the workers' own request log lines (debug level, with their pid).
 */
describe('the server with --workers=2', { timeout: 400_000 }, () => {
  let db: TestDatabase;
  let dataDir: string;
  let srv: WorkersServer;
  /** A new TLS connection per request: cluster hands each to the next worker in turn. */
  let fresh: https.Agent;
  let sql: pg.Pool;

  before(async () => {
    db = await createTestDatabase('pgkube_workers');
    dataDir = await mkdtemp(path.join(tmpdir(), 'pgkube-workers-'));
    srv = await startWorkersServer(db.url, dataDir, ['--workers=2', `--database-max-connections=${MAX_CONNECTIONS}`, '--log-level=debug', '--leader-elect-lease-duration=3s']);
    fresh = await srv.agent({ keepAlive: false });
    sql = new pg.Pool({ connectionString: db.url, max: 2 });
  });
  after(async () => {
    fresh?.destroy();
    await sql?.end();
    if (srv && srv.child.exitCode === null) srv.child.kill('SIGKILL');
    for (const pid of srv?.workerPids ?? []) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    await db?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  /** The pid of the process whose request log names this exact URL (path and query). */
  const servedBy = (url: string) =>
    eventually(async () => srv.log.find((l) => l.msg === 'request' && l.url === url)?.pid, `the request log line of ${url}`, 30_000);

  /** Sends `count` GETs, each on a new connection, and returns the pids that answered them. */
  async function probe(count: number, tag: string): Promise<number[]> {
    const urls = Array.from({ length: count }, (_, i) => `${BASE}?labelSelector=probe%3D${tag}-${i}`);
    for (const url of urls) assert.equal((await client(srv.url, fresh).get(url)).status, 200);
    return Promise.all(urls.map(servedBy));
  }

  test('both workers answer requests on the one port', async () => {
    assert.equal(srv.workerPids.length, 2);
    assert.ok(!srv.workerPids.includes(srv.child.pid!), 'the primary itself serves nothing');
    const pids = await probe(8, 'both');
    assert.deepEqual([...new Set(pids)].sort(), [...srv.workerPids].sort(), `answered by ${pids}`);
  });

  test('a watch on one connection sees the writes served by the other worker, in order and without a gap', async () => {
    const keep = await srv.agent({ keepAlive: true, maxSockets: 1 });
    const events: WatchEvent[] = [];
    const list = await client(srv.url, keep).get(BASE);
    const from = list.json.metadata.resourceVersion as string;
    const watchUrl = `${BASE}?watch=1&resourceVersion=${from}&timeoutSeconds=120`;
    const watch = openWatch(srv.url, watchUrl, keep, (ev) => events.push(ev));
    // Concurrent writers, every request on a new connection: both workers write.
    const writes = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const res = await client(srv.url, fresh).post(`${BASE}?fieldManager=w${i}`, { metadata: { name: `w-${i}` }, data: { i: String(i) } });
        assert.equal(res.status, 201, res.text);
        return { rv: Number(res.json.metadata.resourceVersion), pid: await servedBy(`${BASE}?fieldManager=w${i}`) };
      }),
    );
    await eventually(async () => events.length >= writes.length, 'every write to reach the watch', 60_000);
    watch.abort();
    await watch.done;
    keep.destroy();
    const watcherPid = await servedBy(watchUrl);
    assert.ok(writes.some((w) => w.pid !== watcherPid), 'some writes were served by the other worker');
    const seen = events.map((e) => Number(e.object.metadata.resourceVersion));
    assert.deepEqual(seen, writes.map((w) => w.rv).sort((a, b) => a - b), 'every write once, in resourceVersion order');
    const history = await sql.query(`select resource_version::text as rv from history where resource = 'configmaps' and resource_version > $1 order by resource_version`, [from]);
    assert.deepEqual(seen, history.rows.map((r) => Number(r.rv)), 'no committed change missing');
  });

  test('exactly one worker holds the controllers\' Lease', async () => {
    const leaders = await eventually(async () => {
      const became = srv.log.filter((l) => l.msg === 'became leader');
      return became.length > 0 ? became : undefined;
    }, 'a leader', 60_000);
    assert.equal(leaders.length, 1, `one worker became leader: ${JSON.stringify(leaders)}`);
    assert.ok(srv.workerPids.includes(leaders[0].pid!));
    const lease = await client(srv.url, fresh).get('/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/pgkube-controller-manager');
    assert.equal(lease.status, 200);
    assert.equal(lease.json.spec.holderIdentity, leaders[0].identity);
    const electors = new Set(srv.log.filter((l) => l.msg === 'stopped leading').map((l) => l.pid));
    assert.equal(electors.size, 0, 'nobody lost the lease meanwhile');
  });

  test('all workers together stay within --database-max-connections', async () => {
    let peak = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const r = await sql.query(`select count(*)::int as n from pg_stat_activity where datname = $1 and application_name like 'pgkube%'`, [db.name]);
        peak = Math.max(peak, r.rows[0].n);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    // Far more concurrent requests than the connections: each pool grows to its limit.
    const busy = await srv.agent({ keepAlive: true, maxSockets: 64 });
    for (let round = 0; round < 3; round++) {
      const replies = await Promise.all(Array.from({ length: 64 }, (_, i) => client(srv.url, busy).get(`${BASE}?limit=5&labelSelector=round%3D${round}-${i}`)));
      for (const r of replies) assert.equal(r.status, 200, r.text);
    }
    busy.destroy();
    sampling = false;
    await sampler;
    // Each worker: floor(8 / 2) - 1 = 3 pooled + 1 LISTEN.
    assert.ok(peak <= MAX_CONNECTIONS, `${peak} connections at the peak`);
    assert.ok(peak > 2, `the pools were used (${peak} at the peak)`);
  });

  test('a worker killed with SIGKILL is restarted and serves again', async () => {
    const [victim, survivor] = srv.workerPids;
    process.kill(victim, 'SIGKILL');
    const restarted = await eventually(async () => srv.log.find((l) => l.msg === 'worker restarted'), 'the worker to be restarted', 120_000);
    const newPid = restarted.workerPid as number;
    assert.ok(!srv.workerPids.includes(newPid));
    assert.ok(srv.log.some((l) => l.msg === 'serving' && l.pid === newPid), 'the new worker logged that it serves');
    assert.ok(srv.log.some((l) => l.msg === 'worker exited unexpectedly; restarting it' && l.workerPid === victim && l.signal === 'SIGKILL'));
    assert.ok(!isAlive(victim));
    const pids = await probe(8, 'restarted');
    assert.deepEqual([...new Set(pids)].sort(), [newPid, survivor].sort(), `answered by ${pids}`);
  });

  test('SIGTERM to the primary stops every worker gracefully and exits 0', async () => {
    const workers = [...new Set(srv.log.filter((l) => l.msg === 'serving').map((l) => l.pid!))].filter(isAlive);
    assert.equal(workers.length, 2);
    srv.child.kill('SIGTERM');
    assert.equal(await srv.exited, 0, srv.output().slice(-3000));
    assert.deepEqual(await waitUntilGone(workers), []);
    const stopped = srv.log.filter((l) => l.msg === 'stopped').map((l) => l.pid);
    assert.deepEqual([...stopped].sort(), [...workers, srv.child.pid].sort(), 'each worker, then the primary, logged its stop');
    assert.equal(stopped.at(-1), srv.child.pid, 'the primary stopped last');
    const left = await sql.query(`select count(*)::int as n from pg_stat_activity where datname = $1 and application_name like 'pgkube%'`, [db.name]);
    assert.equal(left.rows[0].n, 0, 'no connection left');
  });
});

/** Runs main.ts to its exit; resolves with the code and everything printed. */
function run(args: readonly string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...nodeArgsFor('src/main.ts'), ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.once('exit', (code) => resolve({ code, output }));
  });
}

describe('--workers at start-up', { timeout: 300_000 }, () => {
  test('--workers=0 is refused before anything starts', async () => {
    const { code, output } = await run(['--workers=0'], { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
    assert.equal(code, 2);
    assert.match(output, /invalid value "0" for --workers: must be an integer of at least 1/);
  });

  test('too few connections for the workers is refused', async () => {
    const { code, output } = await run(['--workers=3', '--database-max-connections=5'], { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
    assert.equal(code, 2);
    assert.match(output, /--database-max-connections=5 is too small for --workers=3/);
  });

  test('a worker that cannot listen fails the whole start with its message', async () => {
    const db = await createTestDatabase('pgkube_workers_port');
    const dataDir = await mkdtemp(path.join(tmpdir(), 'pgkube-workers-port-'));
    const port = await freePort();
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
    try {
      const { code, output } = await run(['--workers=2', `--secure-port=${port}`, `--data-dir=${dataDir}`], { DATABASE_URL: db.url });
      assert.equal(code, 1, output);
      assert.match(output, /the port is already in use/);
      assert.match(output, /cannot start: worker \d \(pid \d+\) exited with code 1 before serving/);
    } finally {
      holder.close();
      await db.drop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('Ctrl-C in a terminal with --workers=2', { timeout: 300_000 }, () => {
  test('SIGINT to the whole process group: each process stops once, gracefully, and the primary exits 0', async () => {
    const db = await createTestDatabase('pgkube_workers_sigint');
    const dataDir = await mkdtemp(path.join(tmpdir(), 'pgkube-workers-sigint-'));
    let srv: WorkersServer | undefined;
    try {
      srv = await startWorkersServer(db.url, dataDir, ['--workers=2', '--log-level=info'], { detached: true });
      // The terminal signals every process of the group; the primary forwards SIGTERM as well.
      process.kill(-srv.child.pid!, 'SIGINT');
      assert.equal(await srv.exited, 0, srv.output().slice(-3000));
      assert.deepEqual(await waitUntilGone(srv.workerPids), []);
      const count = (msg: string) => srv!.log.filter((l) => l.msg === msg).map((l) => l.pid).sort();
      const all = [srv.child.pid, ...srv.workerPids].sort();
      assert.deepEqual(count('shutting down'), all, 'one graceful stop in each process, however often the signal arrived');
      assert.deepEqual(count('stopped'), all);
      assert.ok(!srv.log.some((l) => l.msg === 'worker exited unexpectedly; restarting it'), 'no worker restarted while stopping');
    } finally {
      if (srv && srv.child.exitCode === null) process.kill(-srv.child.pid!, 'SIGKILL');
      await db.drop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
