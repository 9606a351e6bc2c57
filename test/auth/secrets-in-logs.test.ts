/**
 * Secrets stay secret: with every log line the server writes at trace level collected, a session
 * of tokens (good and bad), token requests and reviews, bootstrap tokens, Secrets written and
 * refused, leaves none of the token strings, Secret values or key material in any line.
 */
import assert from 'node:assert/strict';
import { readFile, rm, writeFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import https from 'node:https';
import pino from 'pino';
import { createNamespace, eventually } from '../helpers/fixtures.ts';
import { client } from '../helpers/http.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const STATIC_TOKEN = 'static-token-4f1d9c2ab7e6';
const WRONG_STATIC_TOKEN = 'wrong-token-8e2a7d1f6c3b';
const BOOTSTRAP_SECRET = '7q2w9e4r1t8y6u3i';
const WRONG_BOOTSTRAP_SECRET = '0p9o8i7u6y5t4r3e';
const SECRET_VALUE = 'hunter2-do-not-log-5d8c';
const REFUSED_SECRET_VALUE = 'refused-secret-value-9a7b';

const lines: string[] = [];
let srv: TestServer;
let work = '';

before(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'pgkube-secrets-in-logs-'));
  const tokenFile = path.join(work, 'tokens.csv');
  await writeFile(tokenFile, `${STATIC_TOKEN},carol,carol-uid,"dev,qa"\n`);
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  srv = await startTestServer([`--token-auth-file=${tokenFile}`, '--enable-bootstrap-token-auth'], { logger: pino({ level: 'trace' }, sink) });
});

after(async () => {
  await srv?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

test('no token, Secret value or key appears in any log line at any level', async () => {
  const admin = client(srv.url, srv.adminAgent);
  const anon = new https.Agent({ ca: srv.ca });
  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  const as = client(srv.url, anon);

  // Static tokens, good and bad.
  assert.equal((await as.get('/api', bearer(STATIC_TOKEN))).status, 200);
  assert.equal((await as.get('/api', bearer(WRONG_STATIC_TOKEN))).status, 401);

  // A service account token: issued, used, reviewed, and a forged one refused.
  const ns = await createNamespace(admin);
  assert.equal((await admin.post(`/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } })).status, 201);
  const issued = await admin.post(`/api/v1/namespaces/${ns}/serviceaccounts/robot/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} });
  assert.equal(issued.status, 201, issued.text);
  const saToken: string = issued.json.status.token;
  assert.equal((await as.get(`/api/v1/namespaces/${ns}/pods`, bearer(saToken))).status, 403);
  const forged = `${saToken.slice(0, -8)}AAAAAAAA`;
  assert.equal((await as.get('/api', bearer(forged))).status, 401);
  for (const token of [saToken, forged, WRONG_STATIC_TOKEN]) {
    const review = await admin.post('/apis/authentication.k8s.io/v1/tokenreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } });
    assert.equal(review.status, 201, review.text);
  }

  // Bootstrap tokens: the Secret, the token, a wrong secret.
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const created = await admin.post('/api/v1/namespaces/kube-system/secrets', {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'bootstrap.kubernetes.io/token',
    metadata: { name: 'bootstrap-token-abc123' },
    data: { 'token-id': b64('abc123'), 'token-secret': b64(BOOTSTRAP_SECRET), 'usage-bootstrap-authentication': b64('true') },
  });
  assert.equal(created.status, 201, created.text);
  await eventually(async () => (await as.get('/api', bearer(`abc123.${BOOTSTRAP_SECRET}`))).status === 200, 'the bootstrap token to authenticate');
  assert.equal((await as.get('/api', bearer(`abc123.${WRONG_BOOTSTRAP_SECRET}`))).status, 401);

  // Secrets written, read, and one refused by validation.
  assert.equal((await admin.post(`/api/v1/namespaces/${ns}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, stringData: { password: SECRET_VALUE } })).status, 201);
  assert.equal((await admin.get(`/api/v1/namespaces/${ns}/secrets/s`)).status, 200);
  const refused = await admin.post(`/api/v1/namespaces/${ns}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bad' }, stringData: { 'not a valid key!': REFUSED_SECRET_VALUE } });
  assert.equal(refused.status, 422, refused.text);

  const pki = path.join(srv.dataDir, 'pki');
  const keyBody = (pem: string) => pem.split('\n').filter((l) => l && !l.startsWith('-----')).join('');
  const keys = await Promise.all(['sa.key', 'ca.key', 'admin.key', 'apiserver.key'].map(async (f) => keyBody(await readFile(path.join(pki, f), 'utf8'))));

  const secrets: Record<string, string> = {
    'the static token': STATIC_TOKEN,
    'a wrong static token': WRONG_STATIC_TOKEN,
    'the service account token': saToken,
    "the service account token's signature": saToken.split('.')[2]!,
    'a forged token': forged,
    'the bootstrap token secret': BOOTSTRAP_SECRET,
    'a wrong bootstrap token secret': WRONG_BOOTSTRAP_SECRET,
    'a Secret value': SECRET_VALUE,
    "a Secret value's base64": b64(SECRET_VALUE),
    'a refused Secret value': REFUSED_SECRET_VALUE,
    ...Object.fromEntries(keys.map((k, i) => [`key ${i}`, k.slice(0, 64)])),
  };
  assert.ok(lines.length > 20, `the server logged only ${lines.length} lines at trace`);
  // The requests themselves are in the log (so the search below has something to search).
  assert.ok(lines.some((l) => l.includes(`/api/v1/namespaces/${ns}/serviceaccounts/robot/token`)), 'requests are not logged at trace');
  for (const [what, value] of Object.entries(secrets)) {
    const hit = lines.find((l) => l.includes(value));
    assert.equal(hit, undefined, `${what} appears in a log line: ${hit}`);
  }
});
