/** Service account tokens through the server: TokenRequest, bearer use, revocation, discovery, kubectl. */
import assert from 'node:assert/strict';
import { stat, readFile, mkdtemp, rm } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { signJws } from '../../src/auth/serviceaccount/jws.ts';
import { privateKeyFromPem, signingKey } from '../../src/auth/serviceaccount/keys.ts';
import { assertStatus, createNamespace } from '../helpers/fixtures.ts';
import { client } from '../helpers/http.ts';
import { kubectl, KUBECTL_VERSIONS, skipReason } from '../helpers/kubectl.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let srv: TestServer;
let admin: ReturnType<typeof client>;
let work: string;
before(async () => {
  srv = await startTestServer(['--authorization-mode=AlwaysDeny']);
  admin = client(srv.url, srv.adminAgent);
  work = await mkdtemp(path.join(tmpdir(), 'sa-http-'));
});
after(async () => {
  await srv.stop();
  await rm(work, { recursive: true, force: true });
});

function bearer(token: string) {
  const agent = new https.Agent({ ca: srv.ca });
  return { get: (p: string) => client(srv.url, agent).get(p, { Authorization: `Bearer ${token}` }) };
}

async function createSa(ns: string, name: string): Promise<string> {
  const res = await admin.post(`/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } });
  assert.equal(res.status, 201, res.text);
  return res.json.metadata.uid;
}

async function requestToken(ns: string, sa: string, spec: Record<string, unknown> = {}) {
  return admin.post(`/api/v1/namespaces/${ns}/serviceaccounts/${sa}/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec });
}

/** Revocation travels through informers: poll until the token is refused. */
async function until401(token: string): Promise<any> {
  for (let i = 0; i < 100; i++) {
    const res = await bearer(token).get('/api/v1/namespaces');
    if (res.status === 401) return res;
    await sleep(50);
  }
  assert.fail('the token was never refused');
}

test('a TokenRequest answers a token the server then accepts as the service account', async () => {
  const ns = await createNamespace(admin);
  await createSa(ns, 'robot');
  const res = await requestToken(ns, 'robot', { expirationSeconds: 1200 });
  assert.equal(res.status, 201, res.text);
  assert.equal(res.json.kind, 'TokenRequest');
  assert.equal(res.json.apiVersion, 'authentication.k8s.io/v1');
  assert.deepEqual(res.json.spec.audiences, ['https://kubernetes.default.svc.cluster.local']);
  assert.match(res.json.status.expirationTimestamp, /Z$/);
  const exp = Date.parse(res.json.status.expirationTimestamp);
  assert.ok(Math.abs(exp - Date.now() - 1_200_000) < 5_000);
  assertStatus(
    await bearer(res.json.status.token).get('/api/v1/namespaces'),
    403,
    'Forbidden',
    `namespaces is forbidden: User "system:serviceaccount:${ns}:robot" cannot list resource "namespaces" in API group "" at the cluster scope: Everything is forbidden.`,
  );
});

test('TokenRequest errors: missing account, bad expiration, bound pod missing', async () => {
  const ns = await createNamespace(admin);
  assertStatus(await requestToken(ns, 'ghost'), 404, 'NotFound', 'serviceaccounts "ghost" not found');
  await createSa(ns, 'robot');
  assertStatus(await requestToken(ns, 'robot', { expirationSeconds: 10 }), 422, 'Invalid', /spec.expirationSeconds: Invalid value: 10: may not specify a duration less than 10 minutes/);
  assertStatus(await requestToken(ns, 'robot', { expirationSeconds: 2 ** 33 }), 422, 'Invalid', /may not specify a duration larger than 2\^32 seconds/);
  assertStatus(await requestToken(ns, 'robot', { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'nopod' } }), 404, 'NotFound', 'pods "nopod" not found');
  assertStatus(
    await requestToken(ns, 'robot', { boundObjectRef: { apiVersion: 'v1', kind: 'ConfigMap', name: 'x' } }),
    400,
    'BadRequest',
    'cannot bind token for serviceaccount "robot" to object of type /v1, Kind=ConfigMap',
  );
});

test('wrong audience and forged tokens are 401', async () => {
  const ns = await createNamespace(admin);
  await createSa(ns, 'robot');
  const other = await requestToken(ns, 'robot', { audiences: ['vault'] });
  assert.equal(other.status, 201, other.text);
  assertStatus(await bearer(other.json.status.token).get('/api/v1/namespaces'), 401, 'Unauthorized');
  const good = (await requestToken(ns, 'robot')).json.status.token as string;
  const [h, p, s] = good.split('.');
  const tampered = `${h}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), sub: 'x' })).toString('base64url')}.${s}`;
  assertStatus(await bearer(tampered).get('/api/v1/namespaces'), 401, 'Unauthorized');
});

test('an expired token, signed with the generated key in the data dir, is refused', async () => {
  const ns = await createNamespace(admin);
  const uid = await createSa(ns, 'robot');
  const keyPath = path.join(srv.dataDir, 'pki', 'sa.key');
  assert.equal((await stat(keyPath)).mode & 0o777, 0o600);
  const key = signingKey(privateKeyFromPem(await readFile(keyPath, 'utf8'), keyPath));
  const now = Math.floor(Date.now() / 1000);
  const claims = (exp: number) => ({
    iss: 'https://kubernetes.default.svc.cluster.local',
    sub: `system:serviceaccount:${ns}:robot`,
    aud: ['https://kubernetes.default.svc.cluster.local'],
    iat: exp - 700,
    nbf: exp - 700,
    exp,
    'kubernetes.io': { namespace: ns, serviceaccount: { name: 'robot', uid } },
  });
  assert.equal((await bearer(signJws(claims(now + 600), key)).get('/api/v1/namespaces')).status, 403);
  assertStatus(await bearer(signJws(claims(now - 120), key)).get('/api/v1/namespaces'), 401, 'Unauthorized');
});

test('deleting or recreating the service account, or deleting the bound pod or secret, revokes', async () => {
  const ns = await createNamespace(admin);
  await createSa(ns, 'robot');
  const plain = (await requestToken(ns, 'robot')).json.status.token as string;
  assert.equal((await bearer(plain).get('/api/v1/namespaces')).status, 403);
  assert.equal((await admin.delete(`/api/v1/namespaces/${ns}/serviceaccounts/robot`)).status, 200);
  await until401(plain);
  await createSa(ns, 'robot');
  // Recreated: another uid, the old token stays refused.
  assert.equal((await bearer(plain).get('/api/v1/namespaces')).status, 401);

  const secret = await admin.post(`/api/v1/namespaces/${ns}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bound' } });
  assert.equal(secret.status, 201, secret.text);
  const bySecret = await requestToken(ns, 'robot', { boundObjectRef: { apiVersion: 'v1', kind: 'Secret', name: 'bound', uid: secret.json.metadata.uid } });
  assert.equal(bySecret.status, 201, bySecret.text);
  assert.equal((await bearer(bySecret.json.status.token).get('/api/v1/namespaces')).status, 403);
  await admin.delete(`/api/v1/namespaces/${ns}/secrets/bound`);
  await until401(bySecret.json.status.token);

  const pod = await admin.post(`/api/v1/namespaces/${ns}/pods`, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p' },
    spec: { serviceAccountName: 'robot', containers: [{ name: 'c', image: 'busybox' }] },
  });
  assert.equal(pod.status, 201, pod.text);
  const byPod = await requestToken(ns, 'robot', { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'p' } });
  assert.equal(byPod.status, 201, byPod.text);
  assert.equal((await bearer(byPod.json.status.token).get('/api/v1/namespaces')).status, 403);
  await admin.delete(`/api/v1/namespaces/${ns}/pods/p`, { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0 });
  await until401(byPod.json.status.token);
});

test('a bound object reference with another uid is a conflict', async () => {
  const ns = await createNamespace(admin);
  await createSa(ns, 'robot');
  const pod = await admin.post(`/api/v1/namespaces/${ns}/pods`, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p' },
    spec: { serviceAccountName: 'robot', containers: [{ name: 'c', image: 'busybox' }] },
  });
  assert.equal(pod.status, 201, pod.text);
  assertStatus(
    await requestToken(ns, 'robot', { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'nope' } }),
    409,
    'Conflict',
    'Operation cannot be fulfilled on Pod "p": the UID in the bound object reference (nope) does not match the UID in record. The object might have been deleted and then recreated',
  );
});

test('the issuer discovery documents', async () => {
  const cfg = await admin.get('/.well-known/openid-configuration');
  assert.equal(cfg.status, 200, cfg.text);
  assert.match(String(cfg.headers['content-type']), /^application\/json/);
  assert.equal(cfg.headers['cache-control'], 'public, max-age=3600');
  assert.deepEqual(cfg.json, {
    issuer: 'https://kubernetes.default.svc.cluster.local',
    jwks_uri: 'https://kubernetes.default.svc.cluster.local/openid/v1/jwks',
    response_types_supported: ['id_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
  });
  const set = await admin.get('/openid/v1/jwks');
  assert.equal(set.status, 200, set.text);
  assert.match(String(set.headers['content-type']), /^application\/jwk-set\+json/);
  assert.equal(set.headers['cache-control'], 'public, max-age=3600');
  assert.equal(set.json.keys.length, 1);
  assert.equal(set.json.keys[0].use, 'sig');
  assert.equal(set.json.keys[0].alg, 'RS256');
});

for (const version of KUBECTL_VERSIONS) {
  test(`kubectl ${version} create token`, { skip: skipReason(version) }, async () => {
    const ns = await createNamespace(admin);
    await createSa(ns, 'robot');
    const k = kubectl(version, srv.kubeconfig, path.join(work, `cache-${version}`));
    const r = await k.run(['create', 'token', 'robot', '-n', ns, '--duration=20m']);
    assert.equal(r.code, 0, r.stderr);
    const token = r.stdout.trim();
    assert.equal(token.split('.').length, 3);
    assertStatus(await bearer(token).get(`/api/v1/namespaces/${ns}/pods`), 403, 'Forbidden', new RegExp(`User "system:serviceaccount:${ns}:robot"`));
  });
}

test('a TokenRequest in protobuf, as client-go sends it, is answered in protobuf', async () => {
  const { envelope, goEncode } = await import('../protobuf/helpers.ts');
  const ns = await createNamespace(admin);
  await createSa(ns, 'robot');
  const raw = goEncode('k8s.io.api.authentication.v1.TokenRequest', { metadata: {}, spec: { audiences: ['x'], expirationSeconds: 900 } });
  const body = Buffer.from(envelope('authentication.k8s.io/v1', 'TokenRequest', raw));
  const res = await admin.post(`/api/v1/namespaces/${ns}/serviceaccounts/robot/token`, body, {
    'Content-Type': 'application/vnd.kubernetes.protobuf',
    Accept: 'application/vnd.kubernetes.protobuf',
  });
  assert.equal(res.status, 201, res.text);
  assert.match(String(res.headers['content-type']), /protobuf/);
  // The token is in the answer (a JWT's header always starts with `eyJ`).
  assert.ok(res.bytes.includes(Buffer.from('eyJ')), 'no token in the protobuf answer');
});

test('an issuer that is not an https URL signs and verifies, but serves no discovery', async () => {
  const other = await startTestServer(['--service-account-issuer=api', '--authorization-mode=AlwaysAllow']);
  try {
    const a = client(other.url, other.adminAgent);
    const ns = await createNamespace(a);
    assert.equal((await a.post(`/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } })).status, 201);
    const res = await a.post(`/api/v1/namespaces/${ns}/serviceaccounts/robot/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.json.spec.audiences, ['api']);
    const agent = new https.Agent({ ca: other.ca });
    assert.equal((await client(other.url, agent).get('/api/v1/namespaces', { Authorization: `Bearer ${res.json.status.token}` })).status, 200);
    assert.equal((await a.get('/.well-known/openid-configuration')).status, 404);
  } finally {
    await other.stop();
  }
});

test('--service-account-jwks-uri names where the keys are, and must be https', async () => {
  const other = await startTestServer(['--service-account-issuer=api', '--service-account-jwks-uri=https://keys.example.com/openid/v1/jwks']);
  try {
    const cfg = await client(other.url, other.adminAgent).get('/.well-known/openid-configuration');
    assert.equal(cfg.status, 200, cfg.text);
    assert.equal(cfg.json.issuer, 'api');
    assert.equal(cfg.json.jwks_uri, 'https://keys.example.com/openid/v1/jwks');
  } finally {
    await other.stop();
  }
  await assert.rejects(startTestServer(['--service-account-jwks-uri=http://keys.example.com/jwks']), /--service-account-jwks-uri: requires https scheme, parsed as: http:\/\/keys\.example\.com\/jwks/);
});
