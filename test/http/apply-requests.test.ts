/**
 * PATCH with application/apply-patch+yaml at the HTTP level: the options upstream checks first
 * (fieldManager required, force only for apply), bodies that are not a configuration of this
 * object, strict field validation of the YAML, and the 201/200 answers of a create and an update.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serveFile } from '../helpers/server.ts';

const APPLY = 'application/apply-patch+yaml';
let base: string;
const t = serveFile([], (served) => {
  base = `/api/v1/namespaces/${served.ns}/configmaps`;
});

const yaml = (name: string, extra = '') => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${extra}`;

function assertStatus(res: { status: number; json: any; text: string }, code: number, reason: string, message: string | RegExp): void {
  assert.equal(res.status, code, res.text);
  assert.equal(res.json.reason, reason, res.text);
  if (typeof message === 'string') assert.equal(res.json.message, message);
  else assert.match(res.json.message, message);
}

test('apply creates (201), then updates (200), and answers the stored object with the applier\'s entry', async () => {
  const created = await t.api.patch(`${base}/a?fieldManager=tool`, yaml('a', 'data:\n  k: v\n'), APPLY);
  assert.equal(created.status, 201, created.text);
  assert.deepEqual(created.json.metadata.managedFields.map((e: any) => [e.manager, e.operation]), [['tool', 'Apply']]);
  const updated = await t.api.patch(`${base}/a?fieldManager=tool`, yaml('a', 'data:\n  k: w\n'), APPLY);
  assert.equal(updated.status, 200, updated.text);
  assert.equal(updated.json.data.k, 'w');
});

test('fieldManager is required and force belongs to apply only, checked before anything else as upstream', async () => {
  assertStatus(await t.api.patch(`${base}/a`, yaml('a'), APPLY), 422, 'Invalid', 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
  assertStatus(
    await t.api.patch(`${base}/a?force=false`, '{"data":{"k":"x"}}', 'application/merge-patch+json'),
    422,
    'Invalid',
    'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
  );
});

test('a body that is not a map, names another object, kind or version, or carries managedFields is 400', async () => {
  assertStatus(await t.api.patch(`${base}/b?fieldManager=tool`, '- a\n- b\n', APPLY), 400, 'BadRequest', /^error decoding YAML: .*cannot unmarshal array into Go value of type map\[string\]interface \{\}$/);
  assertStatus(await t.api.patch(`${base}/b?fieldManager=tool`, yaml('other'), APPLY), 400, 'BadRequest', 'the name of the object (other) does not match the name on the URL (b)');
  assertStatus(await t.api.patch(`${base}/b?fieldManager=tool`, 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: b\n', APPLY), 400, 'BadRequest', 'invalid object type: /v1, Kind=Secret');
  assertStatus(await t.api.patch(`${base}/b?fieldManager=tool`, 'apiVersion: apps/v1\nkind: ConfigMap\nmetadata:\n  name: b\n', APPLY), 400, 'BadRequest', 'invalid object type: apps/v1, Kind=ConfigMap');
  assertStatus(
    await t.api.patch(`${base}/b?fieldManager=tool`, yaml('b').replace('  name: b\n', '  name: b\n  managedFields: []\n'), APPLY),
    400,
    'BadRequest',
    'metadata.managedFields must be nil',
  );
  assertStatus(await t.api.patch(`${base}/b?fieldManager=tool`, yaml('b', 'data:\n  k: 1\n'), APPLY), 400, 'BadRequest', /^failed to create typed patch object \(.*\): \.data\.k: expected string/);
  assert.equal((await t.api.get(`${base}/b`)).status, 404);
});

test('Strict field validation refuses repeated keys in the YAML; Warn warns; dryRun writes nothing', async () => {
  const repeated = yaml('c', 'data:\n  k: v\n  k: w\n');
  const strict = await t.api.patch(`${base}/c?fieldManager=tool&fieldValidation=Strict`, repeated, APPLY);
  assertStatus(strict, 400, 'BadRequest', /^error strict decoding YAML: .*key "k" already set in map/s);
  const warn = await t.api.patch(`${base}/c?fieldManager=tool&fieldValidation=Warn`, repeated, APPLY);
  assert.equal(warn.status, 201, warn.text);
  // One warning per repeated key, as upstream splits yaml's error (the header quotes the text).
  assert.equal(String(warn.headers.warning), '299 - "line 7: key \\"k\\" already set in map"');
  const dry = await t.api.patch(`${base}/d?fieldManager=tool&dryRun=All`, yaml('d', 'data:\n  k: v\n'), APPLY);
  assert.equal(dry.status, 201, dry.text);
  assert.equal((await t.api.get(`${base}/d`)).status, 404);
});

test('an apply creating an object must not name a uid (409), and apply to a missing object\'s status is 404', async () => {
  const withUid = yaml('e').replace('  name: e\n', '  name: e\n  uid: 8a1e2d1c-0000-4000-8000-000000000001\n');
  assertStatus(
    await t.api.patch(`${base}/e?fieldManager=tool`, withUid, APPLY),
    409,
    'Conflict',
    'Operation cannot be fulfilled on configmaps "e": uid mismatch: the provided object specified uid 8a1e2d1c-0000-4000-8000-000000000001, and no existing object was found',
  );
  const pods = base.replace('/configmaps', '/pods');
  const status = await t.api.patch(`${pods}/nope/status?fieldManager=tool`, 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: nope\nstatus:\n  phase: Running\n', APPLY);
  assert.equal(status.status, 404, status.text);
});
