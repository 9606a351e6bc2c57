/** Event lines (JSON and legacy), the per-request record, and what the request path hands it. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Context } from 'koa';
import { parseRequestInfo } from '../../src/api/request-info.ts';
import { featureGateSet } from '../../src/api/request-context.ts';
import { sourceIPs } from '../../src/audit/auditor.ts';
import { eventJsonLine, eventLegacyLine, formatMicroTime, nowMicros, type EventData } from '../../src/audit/event.ts';
import { auditFlagProblems, type AuditSettings } from '../../src/audit/flags.ts';
import { PolicyChecker } from '../../src/audit/policy.ts';
import { AuditRecord, dropManagedFields } from '../../src/audit/record.ts';
import { batchSink, type LineWriter } from '../../src/audit/sink.ts';
import { forWrite, requestContextOf } from '../../src/http/request-context.ts';
import pino from 'pino';

const base: EventData = {
  level: 'Metadata',
  auditID: 'a1b2',
  stage: 'ResponseComplete',
  requestURI: '/api/v1/namespaces/default/pods?limit=500',
  verb: 'list',
  user: { username: 'alice', groups: ['dev', 'system:authenticated'], extra: { 'z.io/b': ['2'], 'a.io/a': ['1'] } },
  sourceIPs: ['10.0.0.1', '127.0.0.1'],
  userAgent: 'kubectl/v1.34.0 (linux/amd64) kubernetes/abc',
  objectRef: { resource: 'pods', namespace: 'default', apiVersion: 'v1' },
  responseStatus: { code: 200 },
  requestReceivedTimestamp: Date.UTC(2025, 0, 2, 3, 4, 5, 6) * 1000 + 7,
  stageTimestamp: Date.UTC(2025, 0, 2, 3, 4, 5, 9) * 1000,
  annotations: { 'b/x': '2', 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': '' },
};

test('micro time: UTC, always six fractional digits', () => {
  assert.equal(formatMicroTime(Date.UTC(2025, 0, 2, 3, 4, 5, 6) * 1000 + 7), '2025-01-02T03:04:05.006007Z');
  assert.equal(formatMicroTime(Date.UTC(2025, 0, 2, 3, 4, 5, 0) * 1000), '2025-01-02T03:04:05.000000Z');
  const now = nowMicros();
  assert.ok(Math.abs(now / 1000 - Date.now()) < 50, 'nowMicros follows the wall clock');
});

test('a JSON line has the Event struct\'s field order, sorted map keys, and nothing empty', () => {
  assert.equal(
    eventJsonLine(base),
    '{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"a1b2","stage":"ResponseComplete",' +
      '"requestURI":"/api/v1/namespaces/default/pods?limit=500","verb":"list",' +
      '"user":{"username":"alice","groups":["dev","system:authenticated"],"extra":{"a.io/a":["1"],"z.io/b":["2"]}},' +
      '"sourceIPs":["10.0.0.1","127.0.0.1"],"userAgent":"kubectl/v1.34.0 (linux/amd64) kubernetes/abc",' +
      '"objectRef":{"resource":"pods","namespace":"default","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200},' +
      '"requestReceivedTimestamp":"2025-01-02T03:04:05.006007Z","stageTimestamp":"2025-01-02T03:04:05.009000Z",' +
      '"annotations":{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":"","b/x":"2"}}\n',
  );
  const bare = eventJsonLine({ ...base, user: {}, sourceIPs: [], userAgent: '', objectRef: undefined, responseStatus: undefined, annotations: {} });
  assert.equal(
    bare,
    '{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"a1b2","stage":"ResponseComplete",' +
      '"requestURI":"/api/v1/namespaces/default/pods?limit=500","verb":"list","user":{},' +
      '"requestReceivedTimestamp":"2025-01-02T03:04:05.006007Z","stageTimestamp":"2025-01-02T03:04:05.009000Z"}\n',
  );
});

test('a failure status keeps status, message, reason, details and code; <, >, & are escaped as Go does', () => {
  const line = eventJsonLine({
    ...base,
    requestURI: '/x?a=1&b=<2>',
    responseStatus: { status: 'Failure', message: 'no & no', reason: 'Forbidden', details: { name: 'n', kind: 'pods', causes: [{ reason: 'R', message: 'm', field: 'f' }] }, code: 403 },
    requestObject: '{"a":"\u2028<b>"}',
  });
  assert.ok(line.includes('"requestURI":"/x?a=1\\u0026b=\\u003c2\\u003e"'), line);
  assert.ok(line.includes('"responseStatus":{"metadata":{},"status":"Failure","message":"no \\u0026 no","reason":"Forbidden","details":{"name":"n","kind":"pods","causes":[{"reason":"R","message":"m","field":"f"}]},"code":403}'), line);
  assert.ok(line.includes('"requestObject":{"a":"\\u2028\\u003cb\\u003e"}'), line);
  assert.deepEqual(JSON.parse(line).requestObject, { a: '\u2028<b>' });
});

test('the legacy format is upstream\'s one line of text', () => {
  assert.equal(
    eventLegacyLine(base),
    '2025-01-02T03:04:05.006007Z AUDIT: id="a1b2" stage="ResponseComplete" ip="10.0.0.1" method="list" user="alice" ' +
      'groups="\\"dev\\",\\"system:authenticated\\"" as="<self>" asgroups="<lookup>" user-agent="kubectl/v1.34.0 (linux/amd64) kubernetes/abc" ' +
      'namespace="default" uri="/api/v1/namespaces/default/pods?limit=500" response="200"\n',
  );
  assert.equal(
    eventLegacyLine({ ...base, user: {}, sourceIPs: [], objectRef: undefined, responseStatus: undefined, impersonatedUser: { username: 'bob', groups: ['g'] }, requestReceivedTimestamp: Date.UTC(2025, 0, 2) * 1000 }),
    '2025-01-02T00:00:00Z AUDIT: id="a1b2" stage="ResponseComplete" ip="<unknown>" method="list" user="<none>" groups="<none>" as="bob" asgroups="\\"g\\"" ' +
      'user-agent="kubectl/v1.34.0 (linux/amd64) kubernetes/abc" namespace="<none>" uri="/api/v1/namespaces/default/pods?limit=500" response="<deferred>"\n',
  );
});

test('source IPs: X-Forwarded-For, then X-Real-Ip unless listed, then the peer unless it is the last', () => {
  assert.deepEqual(sourceIPs({}, '::ffff:127.0.0.1'), ['127.0.0.1']);
  assert.deepEqual(sourceIPs({ 'x-forwarded-for': '1.2.3.4, bogus, 2001:DB8::1' }, '10.0.0.1'), ['1.2.3.4', '2001:db8::1', '10.0.0.1']);
  assert.deepEqual(sourceIPs({ 'x-forwarded-for': '1.2.3.4', 'x-real-ip': '1.2.3.4' }, '1.2.3.4'), ['1.2.3.4']);
  assert.deepEqual(sourceIPs({ 'x-real-ip': '5.6.7.8' }, '::1'), ['5.6.7.8', '::1']);
});

function recordFor(level: 'Metadata' | 'Request' | 'RequestResponse', method: string, url: string, lines: string[], omitManagedFields = false): AuditRecord {
  const u = new URL(url, 'https://x');
  const info = parseRequestInfo(method, u.pathname, u.searchParams);
  const config = new PolicyChecker({ rules: [{ level, omitManagedFields }] }).evaluate({ user: undefined, request: info });
  return new AuditRecord(
    { send: (ev, parts) => lines.push(eventJsonLine(ev, parts)) > 0 },
    { config, auditID: 'id', requestURI: url, info, user: { name: 'u', groups: ['g'] }, sourceIPs: [], userAgent: 'x'.repeat(1100), receivedAt: nowMicros() },
  );
}

test('the record: annotations admission adds through RequestContext.auditAnnotations reach the event', () => {
  const lines: string[] = [];
  const record = recordFor('Metadata', 'POST', '/api/v1/namespaces/a/configmaps', lines);
  const info = parseRequestInfo('POST', '/api/v1/namespaces/a/configmaps', new URLSearchParams());
  const ctx = { state: { audit: { record }, user: { name: 'u', groups: [] }, warnings: [] }, get: () => '' } as unknown as Context;
  const context = forWrite(requestContextOf(ctx, info, featureGateSet(new Map())), { dryRun: false });
  assert.equal(context.auditAnnotations, record.annotations);
  context.auditAnnotations!['validation.policy.admission.k8s.io/validation_failure'] = '[{"message":"x"}]';
  record.setCode(201);
  record.emit('ResponseComplete');
  const ev = JSON.parse(lines[0]!);
  assert.deepEqual(ev.annotations, { 'validation.policy.admission.k8s.io/validation_failure': '[{"message":"x"}]' });
  // User agents are cut at 1024 characters, as upstream.
  assert.equal(ev.userAgent, `${'x'.repeat(1024)}...TRUNCATED`);
  // A request that is not audited has no annotations to fill.
  const plain = { state: { user: { name: 'u', groups: [] }, warnings: [] }, get: () => '' } as unknown as Context;
  assert.equal(requestContextOf(plain, info, featureGateSet(new Map())).auditAnnotations, undefined);
});

test('the record: requestObject from the body by its media type; managedFields dropped when asked', () => {
  const lines: string[] = [];
  const r = recordFor('Request', 'PUT', '/api/v1/namespaces/a/configmaps/c', lines, true);
  r.requestBody = Buffer.from('kind: ConfigMap\napiVersion: v1\nmetadata:\n  name: c\n  uid: u-1\n  managedFields: [{manager: m}]\n');
  r.requestContentType = 'application/yaml';
  r.setCode(200);
  r.emit('ResponseComplete');
  const ev = JSON.parse(lines[0]!);
  assert.deepEqual(ev.requestObject, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'c', uid: 'u-1' } });
  assert.equal(ev.objectRef.uid, 'u-1');
  // Metadata: no bodies, but still the object's name and uid.
  const meta: string[] = [];
  const m = recordFor('Metadata', 'POST', '/api/v1/namespaces/a/configmaps', meta);
  m.requestBody = Buffer.from('{"metadata":{"name":"n1"}}');
  m.requestContentType = 'application/json';
  m.emit('ResponseComplete');
  const mev = JSON.parse(meta[0]!);
  assert.equal(mev.requestObject, undefined);
  assert.equal(mev.objectRef.name, 'n1');
});

test('the record: a Status answer fills the response status; RequestResponse logs non-JSON-object bodies not at all', () => {
  const lines: string[] = [];
  const r = recordFor('Metadata', 'DELETE', '/api/v1/namespaces/a/configmaps/c', lines);
  r.setCode(200);
  r.noteStatusBody(Buffer.from('{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":"c","kind":"configmaps","uid":"u"}}\n'));
  r.emit('ResponseComplete');
  assert.deepEqual(JSON.parse(lines[0]!).responseStatus, { metadata: {}, status: 'Success', details: { name: 'c', kind: 'configmaps', uid: 'u' }, code: 200 });
  const text: string[] = [];
  const h = recordFor('RequestResponse', 'GET', '/healthz', text);
  h.setCode(200);
  h.setResponseBody(Buffer.from('ok'), 'text/plain; charset=utf-8');
  h.emit('ResponseComplete');
  assert.equal(JSON.parse(text[0]!).responseObject, undefined);
});

test('dropManagedFields: objects, list items and Table rows', () => {
  const obj = { metadata: { name: 'a', managedFields: [] } };
  dropManagedFields(obj);
  assert.deepEqual(obj, { metadata: { name: 'a' } });
  const list = { kind: 'List', metadata: {}, items: [{ metadata: { managedFields: [] } }] };
  dropManagedFields(list);
  assert.deepEqual(list.items, [{ metadata: {} }]);
  const table = { kind: 'Table', rows: [{ object: { metadata: { managedFields: [] } } }] };
  dropManagedFields(table);
  assert.deepEqual(table.rows, [{ object: { metadata: {} } }]);
});

test('the batch sink writes off the request path, several lines a write, and drops beyond its buffer', async () => {
  const writes: string[] = [];
  const writer: LineWriter = { write: (t) => void writes.push(t), close: () => undefined };
  const sink = batchSink(writer, pino({ level: 'silent' }), 3);
  for (let i = 0; i < 5; i++) assert.equal(sink.process(`l${i}\n`), true);
  assert.deepEqual(writes, []);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(writes, ['l0\nl1\nl2\n']);
  sink.process('l5\n');
  await sink.close();
  assert.deepEqual(writes, ['l0\nl1\nl2\n', 'l5\n']);
});

const settings: AuditSettings = {
  auditPolicyFile: '',
  auditLogPath: '/tmp/a.log',
  auditLogMaxage: 0,
  auditLogMaxbackup: 0,
  auditLogMaxsize: 0,
  auditLogFormat: 'json',
  auditLogCompress: false,
  auditLogMode: 'blocking',
  auditLogVersion: 'audit.k8s.io/v1',
  auditLogBatchBufferSize: 10000,
};

test('flag checks, in upstream\'s words, only when the log is on', () => {
  assert.deepEqual(auditFlagProblems(settings), []);
  assert.deepEqual(auditFlagProblems({ ...settings, auditLogFormat: 'legacy', auditLogMode: 'batch' }), []);
  assert.deepEqual(auditFlagProblems({ ...settings, auditLogPath: '', auditLogMode: 'x' }), []);
  assert.deepEqual(auditFlagProblems({ ...settings, auditLogMode: 'async' }), ['invalid audit log mode async, allowed modes are "batch,blocking,blocking-strict"']);
  assert.deepEqual(auditFlagProblems({ ...settings, auditLogFormat: 'yaml' }), ['invalid audit log format yaml, allowed formats are "legacy,json"']);
  assert.deepEqual(auditFlagProblems({ ...settings, auditLogVersion: 'audit.k8s.io/v1beta1' }), ['invalid group version, allowed versions are ["audit.k8s.io/v1"]']);
  assert.deepEqual(auditFlagProblems({ ...settings, auditLogMode: 'batch', auditLogBatchBufferSize: 0 }), ['invalid audit batch log buffer size 0, must be a positive number']);
});
