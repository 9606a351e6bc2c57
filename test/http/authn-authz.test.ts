import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ensurePki } from '../../src/auth/pki/ensure-pki.ts';
import { assertStatus } from '../helpers/fixtures.ts';
import { client } from '../helpers/http.ts';
import { kubectl, KUBECTL_VERSIONS } from '../helpers/kubectl.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let srv: TestServer;
let work: string;
before(async () => {
  srv = await startTestServer();
  work = await mkdtemp(path.join(tmpdir(), 'pgkube-authn-'));
});
after(async () => {
  await srv.stop();
  await rm(work, { recursive: true, force: true });
});

/** A client certificate signed by the server's CA, made with openssl as an operator would. */
async function userAgent(cn: string, groups: string[]): Promise<https.Agent> {
  const pki = path.join(srv.dataDir, 'pki');
  const key = path.join(work, `${cn}.key`);
  const csr = path.join(work, `${cn}.csr`);
  const crt = path.join(work, `${cn}.crt`);
  const ext = path.join(work, `${cn}.ext`);
  await writeFile(ext, 'extendedKeyUsage=clientAuth\n');
  const subject = `/CN=${cn}${groups.map((g) => `/O=${g}`).join('')}`;
  execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', csr, '-subj', subject], { stdio: 'ignore' });
  execFileSync('openssl', ['x509', '-req', '-in', csr, '-CA', path.join(pki, 'ca.crt'), '-CAkey', path.join(pki, 'ca.key'), '-CAcreateserial', '-out', crt, '-days', '1', '-extfile', ext], { stdio: 'ignore' });
  return new https.Agent({ ca: srv.ca, cert: await readFile(crt, 'utf8'), key: await readFile(key, 'utf8') });
}

test('a user outside system:masters is authenticated but refused, with the real message', async () => {
  const bob = client(srv.url, await userAgent('bob', ['dev', 'qa']));
  assertStatus(
    await bob.get('/api/v1/namespaces/default/configmaps'),
    403,
    'Forbidden',
    'configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "default"',
  );
  assertStatus(
    await bob.get('/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/x'),
    403,
    'Forbidden',
    'leases.coordination.k8s.io "x" is forbidden: User "bob" cannot get resource "leases" in API group "coordination.k8s.io" in the namespace "kube-system"',
  );
  // Discovery is open to every authenticated user (system:discovery), not to anonymous.
  assert.equal((await bob.get('/apis')).status, 200);
  assertStatus(await client(srv.url, srv.anonymousAgent).get('/apis'), 403, 'Forbidden', 'forbidden: User "system:anonymous" cannot get path "/apis"');
  assert.equal((await bob.get('/version')).status, 200);
});

test('a certificate naming system:masters among its groups may do anything', async () => {
  const ops = client(srv.url, await userAgent('ops', ['system:masters']));
  assert.equal((await ops.get('/api/v1/namespaces')).status, 200);
});

test('--authorization-mode=AlwaysAllow opens the API, AlwaysDeny closes it (system:masters still passes)', async () => {
  const open = await startTestServer(['--authorization-mode=AlwaysAllow']);
  try {
    assert.equal((await client(open.url, open.anonymousAgent).get('/api/v1/namespaces')).status, 200);
  } finally {
    await open.stop();
  }
  const closed = await startTestServer(['--authorization-mode=AlwaysDeny']);
  try {
    assertStatus(await client(closed.url, closed.anonymousAgent).get('/api/v1/namespaces'), 403, 'Forbidden', /Everything is forbidden/);
    assert.equal((await client(closed.url, closed.adminAgent).get('/api/v1/namespaces')).status, 200);
  } finally {
    await closed.stop();
  }
});

test('--tls-cert-file, --tls-private-key-file and --client-ca-file replace the generated PKI', async () => {
  const own = await ensurePki({ dir: path.join(work, 'own-pki') });
  const custom = await startTestServer([
    `--tls-cert-file=${own.servingCert.path}`,
    `--tls-private-key-file=${own.servingKey.path}`,
    `--client-ca-file=${own.caCert.path}`,
  ]);
  try {
    const trusted = new https.Agent({ ca: own.caCert.pem, cert: own.adminCert.pem, key: own.adminKey.pem });
    assert.equal((await client(custom.url, trusted).get('/api/v1/namespaces')).status, 200);
    // The generated admin certificate is signed by a CA this server no longer trusts: 401.
    const stranger = new https.Agent({ ca: own.caCert.pem, cert: await readFile(path.join(custom.dataDir, 'pki', 'admin.crt'), 'utf8'), key: await readFile(path.join(custom.dataDir, 'pki', 'admin.key'), 'utf8') });
    assertStatus(await client(custom.url, stranger).get('/api/v1/namespaces'), 401, 'Unauthorized');
    trusted.destroy();
    stranger.destroy();
  } finally {
    await custom.stop();
  }
});

test('a bearer token the server does not know is a 401, not an anonymous request', async () => {
  const res = await client(srv.url, srv.anonymousAgent).get('/api/v1/namespaces', { Authorization: 'Bearer not-a-token-this-server-knows' });
  assertStatus(res, 401, 'Unauthorized', 'Unauthorized');
  assert.equal(res.headers['www-authenticate'], 'Basic realm="kubernetes-master"');
  // No credentials at all is still anonymous (and refused by authorization, not authentication).
  assert.equal((await client(srv.url, srv.anonymousAgent).get('/api/v1/namespaces')).status, 403);
});

test('a good client certificate next to a bad bearer token authenticates by the certificate (union rule)', async () => {
  const res = await client(srv.url, srv.adminAgent).get('/api/v1/namespaces', { Authorization: 'Bearer not-a-token-this-server-knows' });
  assert.equal(res.status, 200, res.text);
});

test('impersonation: an admin acting as alice gets alice\'s rights, not its own (kubectl --as)', async () => {
  const admin = client(srv.url, srv.adminAgent);
  assertStatus(
    await admin.get('/api/v1/namespaces', { 'Impersonate-User': 'alice' }),
    403,
    'Forbidden',
    'namespaces is forbidden: User "alice" cannot list resource "namespaces" in API group "" at the cluster scope',
  );
  // Without a user, the other headers are a bad request.
  for (const header of ['Impersonate-Group', 'Impersonate-Uid', 'Impersonate-Extra-Scopes']) {
    assertStatus(await admin.get('/api/v1/namespaces', { [header]: 'x' }), 400, 'BadRequest', /without impersonating a user$/);
  }
  // A user outside system:masters may not impersonate (no authorizer allows it yet).
  const bob = client(srv.url, await userAgent('bob', ['dev']));
  assertStatus(
    await bob.get('/api/v1/namespaces', { 'Impersonate-User': 'alice' }),
    403,
    'Forbidden',
    'users "alice" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope',
  );
  const k = kubectl(KUBECTL_VERSIONS[0], srv.kubeconfig, path.join(work, 'kube-cache'));
  const r = await k.run(['get', 'namespaces', '--as=alice']);
  // (kubectl's discovery client reports a 403 on /api as "Forbidden: unknown", whatever the Status says.)
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /Error from server \(Forbidden\)/);
  assert.doesNotMatch(r.stdout, /kube-system/);
  const masters = await k.run(['get', 'namespaces', '--as=alice', '--as-group=system:masters']);
  assert.equal(masters.code, 0, masters.stderr);
  assert.match(masters.stdout, /kube-system/);
});

test('a refused subresource request names the resource, not resource/subresource, in its Status', async () => {
  const anon = client(srv.url, srv.anonymousAgent);
  const status = await anon.get('/api/v1/namespaces/default/status');
  assertStatus(status, 403, 'Forbidden', 'namespaces "default" is forbidden: User "system:anonymous" cannot get resource "namespaces/status" in API group "" in the namespace "default"');
  assert.deepEqual(status.json.details, { name: 'default', kind: 'namespaces' });
  const token = await anon.post('/api/v1/namespaces/default/serviceaccounts/default/token', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} });
  assertStatus(token, 403, 'Forbidden', 'serviceaccounts "default" is forbidden: User "system:anonymous" cannot create resource "serviceaccounts/token" in API group "" in the namespace "default"');
  assert.deepEqual(token.json.details, { name: 'default', kind: 'serviceaccounts' });
});
