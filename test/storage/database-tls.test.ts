import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { loadConfig } from '../../src/config.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { openDatabase } from '../../src/storage/postgres/database.ts';
import { ADMIN_URL } from '../helpers/database.ts';
import { client } from '../helpers/http.ts';
import { startPrivatePostgres, type PrivatePostgres } from '../helpers/private-postgres.ts';
import { makeTestCa } from '../helpers/test-ca.ts';
import { openWatch, type WatchEvent } from '../helpers/watch-stream.ts';

const logger = pino({ level: 'silent' });
let server: PrivatePostgres;
let dir: string;
/** Client-side files: the CA that signed the server, an unrelated one, a client certificate. */
let files: { rightCa: string; wrongCa: string; clientCert: string; clientKey: string };

before(async () => {
  const [ca, otherCa] = await Promise.all([makeTestCa('pgkube test postgres CA'), makeTestCa('some other CA')]);
  // The certificate names localhost only, so 127.0.0.1 is a host it does not cover.
  const serving = await ca.issue({ commonName: 'postgres', dnsNames: ['localhost'], usage: 'server' });
  const clientCert = await ca.issue({ commonName: 'certuser', usage: 'client' });
  dir = await mkdtemp(path.join(tmpdir(), 'pgkube-db-tls-'));
  files = {
    rightCa: path.join(dir, 'right-ca.pem'),
    wrongCa: path.join(dir, 'wrong-ca.pem'),
    clientCert: path.join(dir, 'client.crt'),
    clientKey: path.join(dir, 'client.key'),
  };
  await writeFile(files.rightCa, ca.certPem);
  await writeFile(files.wrongCa, otherCa.certPem);
  await writeFile(files.clientCert, clientCert.certPem);
  await writeFile(files.clientKey, clientCert.keyPem, { mode: 0o600 });
  server = await startPrivatePostgres({
    // TLS only: plain TCP has no pg_hba line. certuser must present a client certificate.
    hba: [
      'hostssl all certuser 127.0.0.1/32 cert',
      'hostssl all certuser ::1/128 cert',
      'hostssl all all 127.0.0.1/32 trust',
      'hostssl all all ::1/128 trust',
      '',
    ].join('\n'),
    files: { 'server.crt': serving.certPem, 'server.key': serving.keyPem, 'root.crt': ca.certPem },
    settings: { ssl: 'on', ssl_cert_file: 'server.crt', ssl_key_file: 'server.key', ssl_ca_file: 'root.crt' },
  });
  const admin = await openDatabase({ url: server.url({ params: { sslmode: 'require' } }), logger });
  await admin.pool.query('create role certuser login');
  await admin.close();
});

after(async () => {
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Opens a Database as the server would and reports whether its connections use TLS. */
async function usesTls(url: string, caFile?: string): Promise<boolean> {
  const database = await openDatabase({ url, caFile, logger });
  try {
    const res = await database.pool.query('select ssl from pg_stat_ssl where pid = pg_backend_pid()');
    return res.rows[0].ssl as boolean;
  } finally {
    await database.close();
  }
}

const at = (host: string, params: Record<string, string>) => server.url({ host, params });

test('verify-full with the CA that signed the server, by a name in its certificate: TLS, verified', async () => {
  assert.equal(await usesTls(at('localhost', { sslmode: 'verify-full', sslrootcert: files.rightCa })), true);
});

test('verify-full with another CA fails, naming the server, the CA and what failed', async () => {
  await assert.rejects(usesTls(at('localhost', { sslmode: 'verify-full', sslrootcert: files.wrongCa })), (err: Error) => {
    assert.match(err.message, new RegExp(`the server certificate of PostgreSQL at localhost:${server.port}/postgres \\(--database-url, sslmode=verify-full\\) could not be verified`));
    assert.match(err.message, /against sslrootcert ".*wrong-ca\.pem"/);
    assert.match(err.message, /unable to verify|self.signed|issuer/i);
    return true;
  });
});

test('verify-full by a host the certificate does not name fails; verify-ca checks only the chain and passes', async () => {
  await assert.rejects(usesTls(at('127.0.0.1', { sslmode: 'verify-full', sslrootcert: files.rightCa })), (err: Error) => {
    assert.match(err.message, /is not valid for the host name "127\.0\.0\.1"/);
    assert.match(err.message, /sslmode=verify-ca/);
    return true;
  });
  assert.equal(await usesTls(at('127.0.0.1', { sslmode: 'verify-ca', sslrootcert: files.rightCa })), true);
  await assert.rejects(usesTls(at('127.0.0.1', { sslmode: 'verify-ca', sslrootcert: files.wrongCa })), /could not be verified/);
});

test('require without a root CA encrypts without verifying; with one it verifies the chain (libpq)', async () => {
  assert.equal(await usesTls(at('127.0.0.1', { sslmode: 'require' })), true);
  assert.equal(await usesTls(at('127.0.0.1', { sslmode: 'require', sslrootcert: files.rightCa })), true);
  await assert.rejects(usesTls(at('127.0.0.1', { sslmode: 'require', sslrootcert: files.wrongCa })), /could not be verified against sslrootcert/);
});

test('--database-ca-file stands in for sslrootcert', async () => {
  assert.equal(await usesTls(at('localhost', { sslmode: 'verify-full' }), files.rightCa), true);
  await assert.rejects(usesTls(at('localhost', { sslmode: 'verify-full' }), files.wrongCa), /could not be verified against --database-ca-file ".*wrong-ca\.pem"/);
  await assert.rejects(usesTls(at('127.0.0.1', { sslmode: 'require' }), files.wrongCa), /could not be verified/);
});

test('prefer (and no sslmode at all) uses TLS where the server has it and plain where it does not', async () => {
  assert.equal(await usesTls(at('127.0.0.1', { sslmode: 'prefer' })), true);
  assert.equal(await usesTls(at('127.0.0.1', {})), true);
  // The shared test PostgreSQL runs without ssl.
  assert.equal(await usesTls(ADMIN_URL), false);
  assert.equal(await usesTls(`${ADMIN_URL}?sslmode=prefer`), false);
});

test('allow tries plain first and takes TLS when the server refuses plain', async () => {
  assert.equal(await usesTls(at('127.0.0.1', { sslmode: 'allow' })), true);
  assert.equal(await usesTls(`${ADMIN_URL}?sslmode=allow`), false);
});

test('disable against a TLS-only server fails with PostgreSQL\'s own pg_hba refusal', async () => {
  await assert.rejects(usesTls(at('127.0.0.1', { sslmode: 'disable' })), (err: Error & { code?: string }) => {
    assert.match(err.message, /cannot connect to PostgreSQL at 127\.0\.0\.1:\d+\/postgres \(--database-url, sslmode=disable\)/);
    assert.match(err.message, /no pg_hba\.conf entry for host "127\.0\.0\.1".*no encryption/);
    assert.equal(err.code, '28000');
    return true;
  });
});

test('require against a server without TLS says so', async () => {
  await assert.rejects(usesTls(`${ADMIN_URL}?sslmode=require`), /does not support SSL connections, which sslmode=require requires/);
});

test('sslcert and sslkey present a client certificate', async () => {
  const url = server.url({ host: 'localhost', user: 'certuser', params: { sslmode: 'verify-full', sslrootcert: files.rightCa } });
  await assert.rejects(usesTls(url), /certificate/);
  const withCert = new URL(url);
  withCert.searchParams.set('sslcert', files.clientCert);
  withCert.searchParams.set('sslkey', files.clientKey);
  assert.equal(await usesTls(withCert.toString()), true);
});

test('the server runs on it with verify-full: writes, watches, and every connection (LISTEN too) is TLS', { timeout: 60_000 }, async () => {
  const admin = new pg.Client({ connectionString: server.url({ params: {} }), ssl: { rejectUnauthorized: false } });
  await admin.connect();
  await admin.query('create database pgkube_tls');
  const dataDir = await mkdtemp(path.join(tmpdir(), 'pgkube-tls-server-'));
  let running: RunningServer | undefined;
  let agent: https.Agent | undefined;
  try {
    running = await startServer(
      loadConfig(['--secure-port=0', `--data-dir=${dataDir}`, '--leader-elect=false'], {
        DATABASE_URL: server.url({ host: 'localhost', database: 'pgkube_tls', params: { sslmode: 'verify-full', sslrootcert: files.rightCa } }),
        // The LISTEN connection verifies through the flag rather than the URL.
        DATABASE_LISTEN_URL: server.url({ host: 'localhost', database: 'pgkube_tls', params: { sslmode: 'verify-full' } }),
        DATABASE_CA_FILE: files.rightCa,
      }),
      logger,
    );
    const pki = path.join(dataDir, 'pki');
    const [ca, cert, key] = await Promise.all(['ca.crt', 'admin.crt', 'admin.key'].map((f) => readFile(path.join(pki, f), 'utf8')));
    agent = new https.Agent({ ca, cert, key, keepAlive: true });
    const api = client(running.url, agent);
    const events: WatchEvent[] = [];
    let seen!: () => void;
    const arrived = new Promise<void>((resolve) => (seen = resolve));
    const watch = openWatch(running.url, '/api/v1/namespaces/default/configmaps?watch=1', agent, (ev) => {
      events.push(ev);
      if (ev.object?.metadata?.name === 'over-tls') seen();
    });
    const created = await api.post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'over-tls' }, data: { a: 'b' } });
    assert.equal(created.status, 201, created.text);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([arrived, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('no watch event')), 10_000)))]);
    clearTimeout(timer);
    watch.abort();
    assert.equal(events.find((e) => e.object.metadata.name === 'over-tls')?.type, 'ADDED');

    const connections = await admin.query(
      `select a.query, s.ssl from pg_stat_activity a join pg_stat_ssl s using (pid) where a.datname = 'pgkube_tls' and a.pid <> pg_backend_pid()`,
    );
    assert.ok(connections.rows.length >= 2, JSON.stringify(connections.rows));
    assert.ok(connections.rows.some((r) => /^listen/i.test(r.query)), JSON.stringify(connections.rows));
    assert.ok(connections.rows.every((r) => r.ssl === true), JSON.stringify(connections.rows));
  } finally {
    agent?.destroy();
    await running?.stop();
    await rm(dataDir, { recursive: true, force: true });
    await admin.query('drop database pgkube_tls with (force)');
    await admin.end();
  }
});
