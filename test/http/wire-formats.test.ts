import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertStatus, lease } from '../helpers/fixtures.ts';
import { client } from '../helpers/http.ts';
import { serveFile } from '../helpers/server.ts';

const t = serveFile();

const NOT_A_MICRO_TIME = 'parsing time "not-a-time" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "not-a-time" as "2006"';

test('a Lease whose renewTime is not a MicroTime is refused on create, update and patch (client-go could not decode it)', async () => {
  const leases = `/apis/coordination.k8s.io/v1/namespaces/${t.ns}/leases`;
  const bad = lease('bad');
  (bad.spec as Record<string, unknown>).renewTime = 'not-a-time';
  assertStatus(await t.api.post(leases, bad), 400, 'BadRequest', `Lease in version "v1" cannot be handled as a Lease: ${NOT_A_MICRO_TIME}`);

  const created = await t.api.post(leases, lease('good'));
  assert.equal(created.status, 201, created.text);
  const put = { ...created.json, spec: { ...created.json.spec, acquireTime: '2025-01-01T00:00:00Z' } };
  assertStatus(await t.api.put(`${leases}/good`, put), 400, 'BadRequest', /cannot be handled as a Lease: parsing time "2025-01-01T00:00:00Z" as "2006-01-02T15:04:05.000000Z07:00"/);
  const patched = await t.api.patch(`${leases}/good`, { spec: { renewTime: 'not-a-time' } }, 'application/merge-patch+json');
  assert.equal(patched.status, 422, patched.text);
  assert.match(patched.json.message, /parsing time "not-a-time"/);
  // Nothing of it was stored: the list still decodes.
  const list = await t.api.get(leases);
  assert.deepEqual(list.json.items.map((l: { metadata: { name: string } }) => l.metadata.name), ['good']);
});

test('an events.k8s.io Event whose eventTime is not a MicroTime is refused', async () => {
  const body = {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name: 'e1' },
    eventTime: 'yesterday',
    reportingController: 'example.com/c',
    reportingInstance: 'i',
    action: 'Do',
    reason: 'Done',
    regarding: { kind: 'ConfigMap', name: 'x', namespace: t.ns },
    type: 'Normal',
  };
  assertStatus(
    await t.api.post(`/apis/events.k8s.io/v1/namespaces/${t.ns}/events`, body),
    400,
    'BadRequest',
    'Event in version "v1" cannot be handled as a Event: parsing time "yesterday" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "yesterday" as "2006"',
  );
});

const DUPLICATED_YAML = (name: string) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
  labels:
    app: a
    app: b
data:
  x: "1"
  unknownish: "2"
extra: 1
data2: 2
extra: 3
`;

test('duplicate keys in a YAML body fail fieldValidation=Strict as upstream words it', async () => {
  const res = await t.api.post(`/api/v1/namespaces/${t.ns}/configmaps?fieldValidation=Strict`, DUPLICATED_YAML('dup-strict'), { 'Content-Type': 'application/yaml' });
  assertStatus(
    res,
    400,
    'BadRequest',
    'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: yaml: unmarshal errors:\n' +
      '  line 7: key "app" already set in map\n' +
      '  line 13: key "extra" already set in map, unknown field "data2", unknown field "extra"',
  );
  assert.equal((await t.api.get(`/api/v1/namespaces/${t.ns}/configmaps/dup-strict`)).status, 404);
});

test('duplicate keys in a YAML body are warnings under Warn (the default), one per key, before unknown fields', async () => {
  const res = await t.api.post(`/api/v1/namespaces/${t.ns}/configmaps`, DUPLICATED_YAML('dup-warn'), { 'Content-Type': 'application/yaml' });
  assert.equal(res.status, 201, res.text);
  const raw = res.headers.warning;
  const warnings = raw === undefined ? [] : Array.isArray(raw) ? raw : raw.split(/, (?=299 )/);
  assert.deepEqual(warnings, [
    '299 - "line 7: key \\"app\\" already set in map"',
    '299 - "line 13: key \\"extra\\" already set in map"',
    '299 - "unknown field \\"data2\\""',
    '299 - "unknown field \\"extra\\""',
  ]);
  // The last value wins, as the JSON conversion keeps it.
  assert.equal(res.json.metadata.labels.app, 'b');
  const ignored = await t.api.post(`/api/v1/namespaces/${t.ns}/configmaps?fieldValidation=Ignore`, DUPLICATED_YAML('dup-ignore'), { 'Content-Type': 'application/yaml' });
  assert.equal(ignored.status, 201);
  assert.equal(ignored.headers.warning, undefined);
});
