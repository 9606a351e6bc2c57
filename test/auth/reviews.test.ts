/**
 * The review kinds over HTTP and through real kubectl: SelfSubjectReview (whoami), TokenReview,
 * SubjectAccessReview and its local and self forms (can-i), SelfSubjectRulesReview (can-i --list).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { client } from '../helpers/http.ts';
import { kubectl, KUBECTL_VERSIONS, skipReason } from '../helpers/kubectl.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let srv: TestServer;
let work: string;
let admin: ReturnType<typeof client>;
before(async () => {
  srv = await startTestServer();
  work = await mkdtemp(path.join(tmpdir(), 'pgkube-reviews-'));
  admin = client(srv.url, srv.adminAgent);
});
after(async () => {
  await srv.stop();
  await rm(work, { recursive: true, force: true });
});

const AUTHZ = '/apis/authorization.k8s.io/v1';
const AUTHN = '/apis/authentication.k8s.io/v1';

test('discovery lists the reviews with the create verb only, LocalSubjectAccessReview namespaced', async () => {
  const authz = (await admin.get(AUTHZ)).json;
  const byName = new Map<string, any>(authz.resources.map((r: any) => [r.name, r]));
  for (const name of ['subjectaccessreviews', 'selfsubjectaccessreviews', 'selfsubjectrulesreviews', 'localsubjectaccessreviews']) {
    assert.deepEqual(byName.get(name)?.verbs, ['create'], name);
  }
  assert.equal(byName.get('localsubjectaccessreviews').namespaced, true);
  assert.equal(byName.get('subjectaccessreviews').namespaced, false);
  const authn = (await admin.get(AUTHN)).json;
  const names = authn.resources.map((r: any) => r.name);
  assert.ok(names.includes('selfsubjectreviews') && names.includes('tokenreviews'), names.join(','));
});

test('SelfSubjectReview answers the requester', async () => {
  const r = await admin.post(`${AUTHN}/selfsubjectreviews`, { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
  assert.equal(r.status, 201, r.text);
  assert.ok(typeof r.json.status.userInfo.username === 'string' && r.json.status.userInfo.username.length > 0, r.text);
  assert.ok(r.json.status.userInfo.groups.includes('system:masters'), r.text);
  assert.equal(r.json.metadata.creationTimestamp, null);
});

test('SubjectAccessReview asks the chain about the named user', async () => {
  const sar = (spec: object) => admin.post(`${AUTHZ}/subjectaccessreviews`, { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec });
  const allowed = await sar({ user: 'x', groups: ['system:masters'], resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'default' } });
  assert.equal(allowed.status, 201, allowed.text);
  assert.equal(allowed.json.status.allowed, true);
  const other = await sar({ user: 'nobody-special', nonResourceAttributes: { verb: 'get', path: '/secret-place' } });
  assert.equal(other.status, 201, other.text);
  assert.equal(other.json.status.allowed, false);
  const noUser = await sar({ resourceAttributes: { verb: 'get', resource: 'pods' } });
  assert.equal(noUser.status, 422, noUser.text);
  assert.match(noUser.json.message, /at least one of user or group must be specified/);
  const neither = await sar({ user: 'x' });
  assert.equal(neither.status, 422, neither.text);
  assert.match(neither.json.message, /spec\.resourceAttributes: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified/);
  const named = await admin.post(`${AUTHZ}/subjectaccessreviews`, {
    apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', metadata: { name: 'x' }, spec: { user: 'x', nonResourceAttributes: { verb: 'get', path: '/' } },
  });
  assert.equal(named.status, 422, named.text);
  assert.match(named.json.message, /metadata: Invalid value: .*must be empty/);
});

test('SelfSubjectAccessReview asks about the requester', async () => {
  const r = await admin.post(`${AUTHZ}/selfsubjectaccessreviews`, {
    apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'delete', resource: 'nodes' } },
  });
  assert.equal(r.status, 201, r.text);
  assert.equal(r.json.status.allowed, true);
  const anon = client(srv.url, srv.anonymousAgent);
  const a = await anon.post(`${AUTHZ}/selfsubjectaccessreviews`, {
    apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'delete', resource: 'nodes' } },
  });
  // Anonymous may be refused the review itself (403) or answered "not allowed"; never allowed.
  assert.ok(a.status === 403 || a.json?.status?.allowed === false, a.text);
});

test('a review answers with the creator\'s managedFields, as upstream records them on every create', async () => {
  const r = await admin.post(`${AUTHZ}/selfsubjectaccessreviews?fieldManager=reviewer`, {
    apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'get', resource: 'pods' } },
  });
  assert.equal(r.status, 201, r.text);
  const [entry, ...rest] = r.json.metadata.managedFields;
  assert.equal(rest.length, 0);
  assert.equal(entry.manager, 'reviewer');
  assert.equal(entry.operation, 'Update');
  assert.equal(entry.apiVersion, 'authorization.k8s.io/v1');
  assert.deepEqual(entry.fieldsV1, { 'f:spec': { 'f:resourceAttributes': { '.': {}, 'f:resource': {}, 'f:verb': {} } } });
});

test('LocalSubjectAccessReview must name the namespace of its path', async () => {
  const lsar = (ns: string, spec: object) =>
    admin.post(`${AUTHZ}/namespaces/${ns}/localsubjectaccessreviews`, { apiVersion: 'authorization.k8s.io/v1', kind: 'LocalSubjectAccessReview', spec });
  const ok = await lsar('default', { groups: ['system:masters'], resourceAttributes: { verb: 'list', resource: 'pods', namespace: 'default' } });
  assert.equal(ok.status, 201, ok.text);
  assert.equal(ok.json.status.allowed, true);
  const mismatch = await lsar('default', { user: 'x', resourceAttributes: { verb: 'list', resource: 'pods', namespace: 'other' } });
  assert.equal(mismatch.status, 400, mismatch.text);
  assert.equal(mismatch.json.message, 'spec.resourceAttributes.namespace must match namespace: default');
  const nonResource = await lsar('default', { user: 'x', nonResourceAttributes: { verb: 'get', path: '/x' } });
  assert.equal(nonResource.status, 422, nonResource.text);
  assert.match(nonResource.json.message, /disallowed on this kind of request/);
});

test('TokenReview needs a token and reports an unknown one unauthenticated', async () => {
  const empty = await admin.post(`${AUTHN}/tokenreviews`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: {} });
  assert.equal(empty.status, 400, empty.text);
  assert.equal(empty.json.message, 'token is required for TokenReview in authentication');
  const bogus = await admin.post(`${AUTHN}/tokenreviews`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'not-a-token' } });
  assert.equal(bogus.status, 201, bogus.text);
  assert.notEqual(bogus.json.status.authenticated, true);
});

test('SelfSubjectRulesReview needs a namespace', async () => {
  const r = await admin.post(`${AUTHZ}/selfsubjectrulesreviews`, { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: {} });
  assert.equal(r.status, 400, r.text);
  const ok = await admin.post(`${AUTHZ}/selfsubjectrulesreviews`, { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'default' } });
  assert.equal(ok.status, 201, ok.text);
  assert.equal(typeof ok.json.status.incomplete, 'boolean');
});

const version = KUBECTL_VERSIONS[0];
test('kubectl auth whoami, can-i and can-i --list', { skip: skipReason(version) }, async () => {
  const k = kubectl(version, srv.kubeconfig, path.join(work, 'kube-cache'));
  const whoami = await k.run(['auth', 'whoami', '-o', 'json']);
  assert.equal(whoami.code, 0, whoami.stderr);
  assert.ok(JSON.parse(whoami.stdout).status.userInfo.groups.includes('system:masters'), whoami.stdout);
  const canI = await k.run(['auth', 'can-i', 'get', 'pods']);
  assert.equal(canI.code, 0, canI.stderr);
  assert.equal(canI.stdout.trim(), 'yes');
  const list = await k.run(['auth', 'can-i', '--list']);
  assert.equal(list.code, 0, list.stderr);
});
