import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { connectionPlan, ConnectionSettingsError } from '../../src/storage/postgres/connection-options.ts';
import { makeTestCa } from '../helpers/test-ca.ts';

let dir: string;
let caFile: string;
let otherCaFile: string;
let certFile: string;
let keyFile: string;

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'pgkube-conn-opts-'));
  const [ca, other] = await Promise.all([makeTestCa('ca'), makeTestCa('other')]);
  const leaf = await ca.issue({ commonName: 'client', usage: 'client' });
  [caFile, otherCaFile, certFile, keyFile] = ['ca.pem', 'other.pem', 'client.crt', 'client.key'].map((f) => path.join(dir, f));
  await Promise.all([
    writeFile(caFile, ca.certPem),
    writeFile(otherCaFile, other.certPem),
    writeFile(certFile, leaf.certPem),
    writeFile(keyFile, leaf.keyPem),
  ]);
});
after(() => rm(dir, { recursive: true, force: true }));

const plan = (url: string, caFileOption?: string) => connectionPlan(url, { setting: '--database-url', caFile: caFileOption });

test('sslmode maps to libpq\'s verification, a root CA turning on chain checks in the encrypting modes', async () => {
  const base = 'postgres://u@db.example/kube';
  const cases: [string, boolean, string][] = [
    ['', false, 'prefer/none'],
    ['', true, 'prefer/chain'],
    ['disable', true, 'disable/none'],
    ['allow', false, 'allow/none'],
    ['require', false, 'require/none'],
    ['require', true, 'require/chain'],
    ['verify-ca', true, 'verify-ca/chain'],
    ['verify-full', true, 'verify-full/full'],
  ];
  for (const [mode, withCa, expected] of cases) {
    const params = new URLSearchParams();
    if (mode) params.set('sslmode', mode);
    if (withCa) params.set('sslrootcert', caFile);
    const p = await plan(`${base}?${params}`);
    assert.equal(`${p.sslMode}/${p.verification}`, expected, `sslmode=${mode} ca=${withCa}`);
    assert.equal(p.tls.rejectUnauthorized, p.verification !== 'none');
    assert.equal(typeof p.tls.checkServerIdentity === 'function', p.verification === 'chain');
  }
});

test('the ssl parameters leave the URL pg sees; everything else stays, and messages name no secret', async () => {
  const p = await plan(`postgres://kube:s3cret@db.example:6543/kube?sslmode=require&sslrootcert=${encodeURIComponent(caFile)}&uselibpqcompat=true&application_name=pgkube`);
  const seen = new URL(String(p.base.connectionString));
  assert.deepEqual([...seen.searchParams.keys()], ['application_name']);
  assert.equal(seen.password, 's3cret');
  assert.equal(p.target, 'db.example:6543/kube');
  assert.equal(p.host, 'db.example');
  assert.match(String(p.tls.ca), /BEGIN CERTIFICATE/);
});

test('sslrootcert in the URL wins over --database-ca-file, which serves URLs without one', async () => {
  const fromUrl = await plan(`postgres://u@h/d?sslmode=verify-full&sslrootcert=${encodeURIComponent(caFile)}`, otherCaFile);
  assert.match(String(fromUrl.caSource), /^sslrootcert /);
  const fromFlag = await plan('postgres://u@h/d?sslmode=verify-full', otherCaFile);
  assert.match(String(fromFlag.caSource), /^--database-ca-file /);
  assert.notEqual(fromUrl.tls.ca, fromFlag.tls.ca);
});

test('sslrootcert=system means the system CAs and verify-full, and refuses weaker modes as libpq 16 does', async () => {
  const p = await plan('postgres://u@h/d?sslrootcert=system');
  assert.equal(p.sslMode, 'verify-full');
  assert.equal(p.verification, 'full');
  assert.equal(p.caSource, 'the system CAs');
  await assert.rejects(plan('postgres://u@h/d?sslrootcert=system&sslmode=require'), /sslmode=require may not be used with sslrootcert=system; use sslmode=verify-full/);
});

test('a client certificate comes from sslcert and sslkey together', async () => {
  const p = await plan(`postgres://u@h/d?sslcert=${encodeURIComponent(certFile)}&sslkey=${encodeURIComponent(keyFile)}`);
  assert.match(String(p.tls.cert), /BEGIN CERTIFICATE/);
  assert.match(String(p.tls.key), /PRIVATE KEY/);
  await assert.rejects(plan(`postgres://u@h/d?sslcert=${encodeURIComponent(certFile)}`), /sslcert and sslkey go together/);
  await assert.rejects(plan(`postgres://u@h/d?sslcert=${encodeURIComponent(caFile)}&sslkey=${encodeURIComponent(keyFile)}`), /the TLS files are not usable/);
});

test('bad settings are refused before connecting, with the setting named and no password shown', async () => {
  const refused = async (url: string, pattern: RegExp, caFileOption?: string) => {
    await assert.rejects(plan(url, caFileOption), (err: Error) => {
      assert.ok(err instanceof ConnectionSettingsError);
      assert.match(err.message, /--database-url/);
      assert.match(err.message, pattern);
      assert.doesNotMatch(err.message, /hunter2/);
      return true;
    });
  };
  await refused('postgres://u:hunter2@h/d?sslmode=verify', /invalid sslmode "verify" \(one of disable, allow, prefer, require, verify-ca, verify-full\)/);
  await refused('postgres://u:hunter2@h/d?sslmode=verify-full', /needs a root certificate.*sslrootcert=<file>.*--database-ca-file.*sslrootcert=system/);
  await refused('postgres://u:hunter2@h/d?sslmode=verify-ca', /needs a root certificate/);
  await refused('postgres://u:hunter2@h/d?ssl=true', /"ssl" is not supported; use libpq's sslmode=/);
  await refused('postgres://u:hunter2@h/d?sslcrl=/x', /"sslcrl" is not supported/);
  await refused('postgres://u:hunter2@h/d?sslrootcert=/no/such/file', /cannot read the sslrootcert file "\/no\/such\/file": ENOENT/);
  await refused('postgres://u:hunter2@h/d?sslmode=require', /cannot read the --database-ca-file file "\/no\/such\/ca": ENOENT/, '/no/such/ca');
  await refused(`postgres://u:hunter2@h/d?sslrootcert=${encodeURIComponent(keyFile)}`, /sslrootcert ".*client\.key" is not a CA bundle: no PEM certificate in it/);
  await refused('postgres://u:hunter2@h/d?sslmode=require', /--database-ca-file ".*client\.key" is not a CA bundle/, keyFile);
  await refused('mysql://u:hunter2@h/d', /must be a postgres:\/\/ or postgresql:\/\/ URL/);
  await refused('host=h user=u password=hunter2', /is not a valid URL \(expected postgres:\/\/user:password@host:port\/database\?sslmode=…\)/);
});
