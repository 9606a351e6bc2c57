/**
 * A server with an audit policy and a log file: the events each kind of request leaves, read back
 * from the file and checked field by field against what kube-apiserver writes.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { configMap, createNamespace, lease, secret, uniqueName, event } from '../helpers/fixtures.ts';
import { client, request } from '../helpers/http.ts';
import { serveFile } from '../helpers/server.ts';
import { auditIdOf, eventsOf, readEvents, type AuditEvent } from './helpers.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'audit-server-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const LOG = path.join(dir, 'logs', 'audit.log');
writeFileSync(path.join(dir, 'tokens.csv'), 'bob-token,bob,1001,"dev"\n');
writeFileSync(
  path.join(dir, 'policy.yaml'),
  `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
  - level: None
    nonResourceURLs: ["/healthz*", "/readyz*", "/livez*"]
  - level: Metadata
    resources: [{group: "", resources: ["secrets"]}]
  - level: RequestResponse
    omitManagedFields: true
    resources: [{group: "", resources: ["configmaps"], resourceNames: ["trimmed"]}]
  - level: RequestResponse
    resources: [{group: "", resources: ["configmaps"]}]
  - level: Request
    resources: [{group: "coordination.k8s.io", resources: ["leases"]}]
  - level: Metadata
    omitStages: ["RequestReceived"]
    resources: [{group: "events.k8s.io"}]
  - level: Metadata
`,
);

const t = serveFile([
  `--audit-policy-file=${path.join(dir, 'policy.yaml')}`,
  `--audit-log-path=${LOG}`,
  `--token-auth-file=${path.join(dir, 'tokens.csv')}`,
]);

const MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

function only(events: AuditEvent[], stage: string): AuditEvent {
  const found = events.filter((e) => e.stage === stage);
  assert.equal(found.length, 1, `one ${stage} event in ${JSON.stringify(events.map((e) => e.stage))}`);
  return found[0]!;
}

const bob = () => client(t.srv.url, t.srv.anonymousAgent);
const asBob = { Authorization: 'Bearer bob-token' };

describe('audit log', () => {
  test('a get at Metadata: RequestReceived then ResponseComplete, every field as upstream writes it', async () => {
    const res = await t.api.get(`/api/v1/namespaces/${t.ns}?pretty=false`, { 'User-Agent': 'audit-test/1.0' });
    assert.equal(res.status, 200);
    const id = auditIdOf(res);
    const events = await eventsOf(LOG, id, 2);
    assert.deepEqual(events.map((e) => e.stage), ['RequestReceived', 'ResponseComplete']);
    const [received, complete] = events as [AuditEvent, AuditEvent];
    // Keys in the Event struct's order, empty ones left out.
    const line = (await readEvents(LOG)).lines.find((l) => l.includes(id) && l.includes('"ResponseComplete"'))!;
    assert.ok(line.startsWith(`{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"${id}","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/${t.ns}?pretty=false","verb":"get","user":{"username":`), line);
    assert.deepEqual(Object.keys(complete), [
      'kind', 'apiVersion', 'level', 'auditID', 'stage', 'requestURI', 'verb', 'user', 'sourceIPs', 'userAgent', 'objectRef', 'responseStatus',
      'requestReceivedTimestamp', 'stageTimestamp', 'annotations',
    ]);
    assert.ok(complete.user.username);
    assert.ok(complete.user.groups?.includes('system:authenticated'));
    assert.deepEqual(complete.sourceIPs, ['127.0.0.1']);
    assert.equal(complete.userAgent, 'audit-test/1.0');
    assert.deepEqual(complete.objectRef, { resource: 'namespaces', namespace: t.ns, name: t.ns, apiVersion: 'v1' });
    assert.deepEqual(complete.responseStatus, { metadata: {}, code: 200 });
    assert.equal(complete.annotations?.['authorization.k8s.io/decision'], 'allow');
    assert.ok('authorization.k8s.io/reason' in complete.annotations!);
    assert.equal(complete.requestObject, undefined);
    assert.equal(complete.responseObject, undefined);
    // RequestReceived: before authorization (no annotations, no status); its stage time is the arrival.
    assert.equal(received.responseStatus, undefined);
    assert.equal(received.annotations, undefined);
    assert.equal(received.stageTimestamp, received.requestReceivedTimestamp);
    assert.match(complete.requestReceivedTimestamp, MICRO_TIME);
    assert.match(complete.stageTimestamp, MICRO_TIME);
    assert.ok(complete.stageTimestamp >= complete.requestReceivedTimestamp);
    assert.equal(received.requestReceivedTimestamp, complete.requestReceivedTimestamp);
  });

  test('Audit-Id: on every response (audited or not); a client\'s own Audit-ID is kept and names the events', async () => {
    const healthz = await t.api.get('/healthz');
    assert.match(auditIdOf(healthz), /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    // /healthz is at None: no event.
    assert.deepEqual(await eventsOf(LOG, auditIdOf(healthz), 1, 200), []);
    const mine = `my-id-${uniqueName('x')}`;
    const res = await t.api.get('/version', { 'Audit-ID': mine });
    assert.equal(res.headers['audit-id'], mine);
    const events = await eventsOf(LOG, mine, 2);
    assert.deepEqual(events.map((e) => e.stage), ['RequestReceived', 'ResponseComplete']);
    // A path that is no resource: no objectRef, the lowercase method as the verb.
    assert.equal(events[1]!.objectRef, undefined);
    assert.equal(events[1]!.verb, 'get');
    assert.equal(events[1]!.responseObject, undefined);
  });

  test('RequestResponse: the request and response objects; the name comes from the body on create', async () => {
    const name = uniqueName('cm');
    const res = await t.api.post(`/api/v1/namespaces/${t.ns}/configmaps`, configMap(name, { k: 'v<&>' }));
    assert.equal(res.status, 201, res.text);
    const complete = only(await eventsOf(LOG, auditIdOf(res), 2), 'ResponseComplete');
    assert.equal(complete.level, 'RequestResponse');
    assert.equal(complete.verb, 'create');
    assert.deepEqual(complete.objectRef, { resource: 'configmaps', namespace: t.ns, name, apiVersion: 'v1' });
    assert.deepEqual(complete.requestObject, configMap(name, { k: 'v<&>' }));
    assert.deepEqual(complete.responseObject, res.json);
    assert.deepEqual(complete.responseStatus, { metadata: {}, code: 201 });
    // Go's encoder escapes <, > and & in strings.
    const line = (await readEvents(LOG)).lines.find((l) => l.includes(auditIdOf(res)) && l.includes('"ResponseComplete"'))!;
    assert.ok(line.includes('"k":"v\\u003c\\u0026\\u003e"'), line);
  });

  test('omitManagedFields drops managedFields from the logged objects of the rule that says so', async () => {
    await t.api.post(`/api/v1/namespaces/${t.ns}/configmaps`, configMap('trimmed', { a: '1' }));
    const other = uniqueName('cm');
    await t.api.post(`/api/v1/namespaces/${t.ns}/configmaps`, configMap(other, { a: '1' }));
    const trimmed = await t.api.get(`/api/v1/namespaces/${t.ns}/configmaps/trimmed`);
    assert.ok(trimmed.json.metadata.managedFields, 'the object has managedFields');
    const kept = await t.api.get(`/api/v1/namespaces/${t.ns}/configmaps/${other}`);
    const trimmedEvent = only(await eventsOf(LOG, auditIdOf(trimmed), 2), 'ResponseComplete');
    assert.equal(trimmedEvent.responseObject.metadata.managedFields, undefined);
    assert.equal(trimmedEvent.responseObject.metadata.name, 'trimmed');
    const keptEvent = only(await eventsOf(LOG, auditIdOf(kept), 2), 'ResponseComplete');
    assert.deepEqual(keptEvent.responseObject.metadata.managedFields, kept.json.metadata.managedFields);
  });

  test('a streamed list at RequestResponse logs the whole list; a compressed one too', async () => {
    const res = await t.api.get(`/api/v1/namespaces/${t.ns}/configmaps`);
    assert.equal(res.status, 200);
    const complete = only(await eventsOf(LOG, auditIdOf(res), 2), 'ResponseComplete');
    assert.equal(complete.verb, 'list');
    assert.equal(complete.responseObject.kind, 'ConfigMapList');
    assert.deepEqual(complete.responseObject, res.json);
    // Answers are gzipped past 128 KiB only: a namespace of two large ConfigMaps.
    const big = await createNamespace(t.api);
    for (const name of ['big-1', 'big-2']) {
      const made = await t.api.post(`/api/v1/namespaces/${big}/configmaps`, configMap(name, { blob: 'z'.repeat(80 * 1024) }));
      assert.equal(made.status, 201, made.text);
    }
    const gz = await t.api.get(`/api/v1/namespaces/${big}/configmaps?limit=2`, { 'Accept-Encoding': 'gzip' });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    const gzComplete = only(await eventsOf(LOG, auditIdOf(gz), 2), 'ResponseComplete');
    assert.equal(gzComplete.responseObject.kind, 'ConfigMapList');
    assert.equal(gzComplete.responseObject.items.length, 2);
  });

  test('Request level: the request object but no response object; a patch logs the patch itself', async () => {
    const name = uniqueName('lease');
    const created = await t.api.post(`/apis/coordination.k8s.io/v1/namespaces/${t.ns}/leases`, lease(name));
    assert.equal(created.status, 201, created.text);
    const c = only(await eventsOf(LOG, auditIdOf(created), 2), 'ResponseComplete');
    assert.equal(c.level, 'Request');
    assert.deepEqual(c.requestObject, lease(name));
    assert.equal(c.responseObject, undefined);
    assert.deepEqual(c.objectRef, { resource: 'leases', namespace: t.ns, name, apiGroup: 'coordination.k8s.io', apiVersion: 'v1' });
    const patch = { spec: { holderIdentity: 'other' } };
    const patched = await t.api.patch(`/apis/coordination.k8s.io/v1/namespaces/${t.ns}/leases/${name}`, patch, 'application/merge-patch+json');
    assert.equal(patched.status, 200, patched.text);
    const p = only(await eventsOf(LOG, auditIdOf(patched), 2), 'ResponseComplete');
    assert.equal(p.verb, 'patch');
    assert.deepEqual(p.requestObject, patch);
    // An update names its object's uid and resourceVersion (from the body).
    const current = patched.json;
    const updated = await t.api.put(`/apis/coordination.k8s.io/v1/namespaces/${t.ns}/leases/${name}`, current);
    assert.equal(updated.status, 200, updated.text);
    const u = only(await eventsOf(LOG, auditIdOf(updated), 2), 'ResponseComplete');
    assert.equal(u.objectRef?.uid, current.metadata.uid);
    assert.equal(u.objectRef?.resourceVersion, current.metadata.resourceVersion);
    // A delete with options logs them.
    const deleted = await t.api.delete(`/apis/coordination.k8s.io/v1/namespaces/${t.ns}/leases/${name}`, { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0 });
    assert.equal(deleted.status, 200, deleted.text);
    const d = only(await eventsOf(LOG, auditIdOf(deleted), 2), 'ResponseComplete');
    assert.deepEqual(d.requestObject, { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0 });
  });

  test('Secrets at Metadata: neither the data nor its encoding reach the log', async () => {
    const name = uniqueName('secret');
    const plain = `hunter2-${uniqueName('pw')}`;
    const encoded = Buffer.from(plain).toString('base64');
    const created = await t.api.post(`/api/v1/namespaces/${t.ns}/secrets`, secret(name, { data: { password: encoded }, stringData: { other: plain } }));
    assert.equal(created.status, 201, created.text);
    const got = await t.api.get(`/api/v1/namespaces/${t.ns}/secrets/${name}`);
    assert.equal(got.status, 200);
    const events = [...(await eventsOf(LOG, auditIdOf(created), 2)), ...(await eventsOf(LOG, auditIdOf(got), 2))];
    assert.equal(events.length, 4);
    for (const e of events) {
      assert.equal(e.level, 'Metadata');
      assert.equal(e.requestObject, undefined);
      assert.equal(e.responseObject, undefined);
    }
    // The create's objectRef still names the secret (read from the body, as upstream).
    assert.equal(only(events.slice(0, 2), 'ResponseComplete').objectRef?.name, name);
    const text = readFileSync(LOG, 'utf8');
    assert.ok(!text.includes(encoded) && !text.includes(plain), 'no secret value in the log');
  });

  test('a denied request: decision forbid with the reason, and the Status of the 403', async () => {
    const res = await bob().get(`/api/v1/namespaces/${t.ns}/configmaps`, asBob);
    assert.equal(res.status, 403, res.text);
    const complete = only(await eventsOf(LOG, auditIdOf(res), 2), 'ResponseComplete');
    assert.deepEqual(complete.user, { username: 'bob', uid: '1001', groups: ['dev', 'system:authenticated'] });
    assert.equal(complete.annotations?.['authorization.k8s.io/decision'], 'forbid');
    assert.equal(typeof complete.annotations?.['authorization.k8s.io/reason'], 'string');
    assert.deepEqual(complete.responseStatus, {
      metadata: {},
      status: 'Failure',
      message: res.json.message,
      reason: 'Forbidden',
      details: { kind: 'configmaps' },
      code: 403,
    });
    // At RequestResponse the Status is the response object too.
    assert.deepEqual(complete.responseObject, res.json);
  });

  test('failed authentication: one ResponseStarted event, no user, the 401', async () => {
    const res = await bob().get(`/api/v1/namespaces/${t.ns}/configmaps`, { Authorization: 'Bearer eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJodHRwczovL2t1YmVybmV0ZXMuZGVmYXVsdC5zdmMuY2x1c3Rlci5sb2NhbCJ9.c2ln' });
    assert.equal(res.status, 401, res.text);
    const events = await eventsOf(LOG, auditIdOf(res), 1);
    assert.equal(events.length, 1);
    const [e] = events as [AuditEvent];
    assert.equal(e.stage, 'ResponseStarted');
    assert.deepEqual(e.user, {});
    assert.equal(e.verb, 'list');
    assert.deepEqual(e.responseStatus, { metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
    assert.equal(e.annotations, undefined);
  });

  test('a watch: RequestReceived, ResponseStarted when the stream opens, ResponseComplete when it ends', async () => {
    const res = await t.api.get(`/api/v1/namespaces/${t.ns}/configmaps?watch=true&timeoutSeconds=1`);
    assert.equal(res.status, 200);
    const events = await eventsOf(LOG, auditIdOf(res), 3);
    assert.deepEqual(events.map((e) => e.stage), ['RequestReceived', 'ResponseStarted', 'ResponseComplete']);
    assert.equal(events[1]!.verb, 'watch');
    assert.deepEqual(events[1]!.responseStatus, { metadata: {}, code: 200 });
    assert.deepEqual(events[2]!.responseStatus, { metadata: {}, code: 200 });
    // No response object for a watch, even at RequestResponse.
    assert.equal(events[2]!.responseObject, undefined);
    assert.ok(events[2]!.stageTimestamp >= events[1]!.stageTimestamp);
    // A watch refused before it starts still gets its ResponseStarted.
    const refused = await bob().get(`/api/v1/namespaces/${t.ns}/configmaps?watch=true`, asBob);
    assert.equal(refused.status, 403);
    const r = await eventsOf(LOG, auditIdOf(refused), 3);
    assert.deepEqual(r.map((e) => e.stage), ['RequestReceived', 'ResponseStarted', 'ResponseComplete']);
    assert.equal(r[1]!.responseStatus?.code, 403);
  });

  test('omitStages of a rule: no RequestReceived for events.k8s.io', async () => {
    const res = await t.api.post(`/apis/events.k8s.io/v1/namespaces/${t.ns}/events`, event(uniqueName('ev')));
    assert.equal(res.status, 201, res.text);
    const events = await eventsOf(LOG, auditIdOf(res), 1);
    assert.deepEqual(events.map((e) => e.stage), ['ResponseComplete']);
  });

  test('impersonation: user is who authenticated, impersonatedUser who the request ran as', async () => {
    const res = await t.api.get(`/api/v1/namespaces/${t.ns}/pods`, { 'Impersonate-User': 'carol', 'Impersonate-Group': 'qa' });
    assert.equal(res.status, 403, res.text);
    const events = await eventsOf(LOG, auditIdOf(res), 2);
    const complete = only(events, 'ResponseComplete');
    assert.notEqual(complete.user.username, 'carol');
    assert.deepEqual(complete.impersonatedUser, { username: 'carol', groups: ['qa', 'system:authenticated'] });
    // Authorization judged the impersonated user.
    assert.equal(complete.annotations?.['authorization.k8s.io/decision'], 'forbid');
    assert.equal(only(events, 'RequestReceived').impersonatedUser, undefined);
  });

  test('a failed create: the error Status is the response status', async () => {
    const res = await request(t.srv.url, `/api/v1/namespaces/${t.ns}/configmaps`, {
      method: 'POST',
      agent: t.srv.adminAgent,
      body: configMap('Not_Valid'),
    });
    assert.equal(res.status, 422);
    const complete = only(await eventsOf(LOG, auditIdOf(res), 2), 'ResponseComplete');
    assert.equal(complete.responseStatus?.code, 422);
    assert.equal(complete.responseStatus?.reason, 'Invalid');
    assert.equal(complete.responseStatus?.message, res.json.message);
    assert.deepEqual(complete.requestObject, configMap('Not_Valid'));
  });
});
