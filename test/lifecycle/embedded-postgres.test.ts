import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { findBinaries } from '../../src/storage/postgres/embedded/binaries.ts';
import { startEmbeddedPostgres } from '../../src/storage/postgres/embedded/embedded-postgres.ts';
import { postgresOsUser } from '../../src/storage/postgres/embedded/os-user.ts';
import { killEverythingLaunched, launch, npmRun, processesMentioning, waitUntilGone } from '../helpers/npm-start.ts';
import { freePort } from '../helpers/free-port.ts';

const logger = pino({ level: 'silent' });

async function loginError(port: number, password: string): Promise<string | undefined> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return undefined;
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  } finally {
    await client.end().catch(() => undefined);
  }
}

describe('the embedded PostgreSQL is private to the server', { timeout: 120_000 }, () => {
  let dataDir: string;
  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'pgkube-embedded-'));
  });
  after(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  test('a generated password (kept 0600 in the data dir) is the only way in, over loopback TCP only', async () => {
    const port = await freePort();
    const db = await startEmbeddedPostgres({ dataDir, port, logger });
    try {
      const file = path.join(dataDir, 'postgres.password');
      assert.equal((await stat(file)).mode & 0o777, 0o600);
      const password = (await readFile(file, 'utf8')).trim();
      assert.ok(password.length >= 32, 'a long random password');
      assert.equal(new URL(db.url).password, password);
      assert.equal(await loginError(port, password), undefined);
      assert.equal(await loginError(port, 'postgres'), '28P01', 'the well-known password is refused');
      // No Unix socket that local users could reach (the default directory is /tmp).
      assert.equal(existsSync(`/tmp/.s.PGSQL.${port}`), false);
      const hba = await readFile(path.join(dataDir, 'postgres/pg_hba.conf'), 'utf8');
      assert.doesNotMatch(hba.split('\n').filter((l) => /^\s*(local|host)/.test(l)).join('\n'), /\b(trust|password)\s*$/m);
    } finally {
      await db.stop();
    }
  });

  test('nobody but the server (and, as root, the postgres OS user passing through) may enter the data dir', async () => {
    await chmod(dataDir, 0o755);
    const port = await freePort();
    const db = await startEmbeddedPostgres({ dataDir, port, logger });
    await db.stop();
    const mode = (await stat(dataDir)).mode & 0o777;
    const osUser = await postgresOsUser();
    if (osUser) {
      assert.equal(mode, 0o710, 'root: traverse-only for the postgres group');
      assert.equal((await stat(dataDir)).gid, osUser.gid);
    } else {
      assert.equal(mode, 0o700);
    }
  });

  test('a data dir made with the old well-known password gets the generated one at its next start', async () => {
    const legacyDir = await mkdtemp(path.join(tmpdir(), 'pgkube-legacy-'));
    try {
      // What earlier versions made: initdb --auth=password with the password "postgres".
      const { initdb } = await findBinaries();
      const osUser = await postgresOsUser();
      const pgdata = path.join(legacyDir, 'postgres');
      await mkdir(pgdata, { mode: 0o700 });
      const pwfile = path.join(legacyDir, 'pw');
      await writeFile(pwfile, 'postgres\n');
      if (osUser) {
        await chown(legacyDir, osUser.uid, osUser.gid);
        await chown(pgdata, osUser.uid, osUser.gid);
        await chown(pwfile, osUser.uid, osUser.gid);
      }
      await promisify(execFile)(initdb, [`--pgdata=${pgdata}`, '--auth=password', '--username=postgres', `--pwfile=${pwfile}`, '--locale=C', '--encoding=UTF8'], {
        ...(osUser ?? {}),
        env: { LC_ALL: 'C' },
      });
      await rm(pwfile);
      const port = await freePort();
      const db = await startEmbeddedPostgres({ dataDir: legacyDir, port, logger });
      try {
        const password = (await readFile(path.join(legacyDir, 'postgres.password'), 'utf8')).trim();
        assert.equal(await loginError(port, password), undefined);
        assert.equal(await loginError(port, 'postgres'), '28P01');
        assert.match(await readFile(path.join(pgdata, 'pg_hba.conf'), 'utf8'), /^host\s+all\s+all\s+127\.0\.0\.1\/32\s+scram-sha-256$/m);
      } finally {
        await db.stop();
      }
    } finally {
      await rm(legacyDir, { recursive: true, force: true });
    }
  });
});

describe('a start that fails says what failed and leaves nothing running', { timeout: 180_000 }, () => {
  let dataDir: string;
  let postgresPort: number;
  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'pgkube-startfail-'));
    postgresPort = await freePort();
  });
  after(async () => {
    killEverythingLaunched();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** `npm start` that must fail: its exit code and the message of its fatal log line. */
  async function failingStart(env: Record<string, string> = {}, dir = dataDir): Promise<{ code: unknown; fatal: string }> {
    const before = processesMentioning(dir);
    const err = await launch({ dataDir: dir, postgresPort, env }).then(
      () => assert.fail('the server started'),
      (e: { code: unknown; output: string }) => e,
    );
    const fatal = err.output.split('\n').map((l) => { try { return JSON.parse(l); } catch { return {}; } }).find((l) => l.level === 60);
    assert.ok(fatal, `a fatal log line:\n${err.output}`);
    assert.deepEqual(processesMentioning(dir), before, 'no PostgreSQL of its own left running');
    return { code: err.code, fatal: fatal.msg };
  }

  test('the embedded PostgreSQL port is taken', async () => {
    const blocker = net.createServer().listen(postgresPort, '127.0.0.1');
    await new Promise((r) => blocker.once('listening', r));
    try {
      const { code, fatal } = await failingStart();
      assert.equal(code, 1);
      assert.equal(fatal, `cannot start: the embedded PostgreSQL exited during start-up (exit code 1): port ${postgresPort} on 127.0.0.1 is already in use by another program; choose a free one with --embedded-postgres-port`);
    } finally {
      blocker.close();
    }
  });

  test('the HTTPS port is taken (the embedded PostgreSQL it started is stopped again)', async () => {
    const blocker = net.createServer().listen(0, '127.0.0.1');
    await new Promise((r) => blocker.once('listening', r));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const { code, fatal } = await failingStart({ SECURE_PORT: String(port) });
      assert.equal(code, 1);
      assert.equal(fatal, `cannot start: cannot serve on 127.0.0.1:${port}: the port is already in use; stop what holds it or choose another with --secure-port`);
    } finally {
      blocker.close();
    }
  });

  test('the data dir is in use by a running server', async () => {
    const running = await launch({ dataDir, postgresPort });
    try {
      const { code, fatal } = await failingStart({ EMBEDDED_POSTGRES_PORT: String(await freePort()) });
      assert.equal(code, 1);
      assert.equal(fatal, `cannot start: the data dir ${dataDir} is in use by another server process (pid ${running.serverPid}); stop it, or give this one its own --data-dir`);
    } finally {
      running.child.kill('SIGTERM');
      await running.exited;
    }
  });

  test('the data dir holds a cluster of another PostgreSQL major version', async () => {
    const other = await mkdtemp(path.join(tmpdir(), 'pgkube-oldversion-'));
    try {
      await mkdir(path.join(other, 'postgres'));
      await writeFile(path.join(other, 'postgres/PG_VERSION'), '15\n');
      const { code, fatal } = await failingStart({}, other);
      assert.equal(code, 1);
      assert.match(fatal, /^cannot start: \/.*\/postgres holds a PostgreSQL 15 cluster, but this build ships PostgreSQL \d+; dump it with PostgreSQL 15's pg_dump/);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });
});

describe('npm run psql and npm run migrate reach the embedded PostgreSQL', { timeout: 120_000 }, () => {
  let dataDir: string;
  let postgresPort: number;
  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'pgkube-psql-'));
    postgresPort = await freePort();
  });
  after(async () => {
    killEverythingLaunched();
    await rm(dataDir, { recursive: true, force: true });
  });

  const psqlEnv = () => ({ DATA_DIR: dataDir, EMBEDDED_POSTGRES_PORT: String(postgresPort) });

  test('while the server runs, the README\'s SQL works through npm run psql', async () => {
    const srv = await launch({ dataDir, postgresPort });
    try {
      const r = await npmRun(['psql', '--', '-At', '-c', "select name from api_objects where kind = 'Namespace' order by 1"], { env: psqlEnv() });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout.trim(), 'default\nkube-node-lease\nkube-public\nkube-system');
      const m = await npmRun(['migrate', '--', 'status'], { env: psqlEnv() });
      assert.equal(m.code, 0, m.stderr);
      assert.match(m.stdout, /^applied {2}0001-core-tables/m);
    } finally {
      srv.child.kill('SIGTERM');
      await srv.exited;
    }
    assert.deepEqual(await waitUntilGone([srv.postmasterPid]), []);
  });

  test('with no server running, npm run psql starts the embedded PostgreSQL for the session and stops it after', async () => {
    const r = await npmRun(['psql', '--', '-At', '-c', 'select count(*) > 0 from objects'], { env: psqlEnv() });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), 't');
    assert.deepEqual(processesMentioning(dataDir), []);
  });
});
