import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertStatus, configMap } from '../helpers/fixtures.ts';
import { serveFile } from '../helpers/server.ts';

let base: string;
const t = serveFile([], async () => {
  base = `/api/v1/namespaces/${t.ns}/configmaps`;
});

async function absent(name: string): Promise<void> {
  assert.equal((await t.api.get(`${base}/${name}`)).status, 404, `${name} must not have been stored`);
}

test('an owner reference with nothing set is 422 on each of its required fields', async () => {
  const res = await t.api.post(base, { metadata: { name: 'own', ownerReferences: [{}] } });
  assertStatus(res, 422, 'Invalid',
    'ConfigMap "own" is invalid: [metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty, ' +
    'metadata.ownerReferences.kind: Invalid value: "": must not be empty, metadata.ownerReferences.name: Invalid value: "": must not be empty, ' +
    'metadata.ownerReferences.uid: Invalid value: "": must not be empty]');
  await absent('own');
  const noVersion = await t.api.post(base, { metadata: { name: 'own', ownerReferences: [{ apiVersion: 'apps/', kind: 'Deployment', name: 'd', uid: 'u' }] } });
  assertStatus(noVersion, 422, 'Invalid', 'ConfigMap "own" is invalid: metadata.ownerReferences.apiVersion: Invalid value: "apps/": version must not be empty');
  const event = await t.api.post(base, { metadata: { name: 'own', ownerReferences: [{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: 'u' }] } });
  assert.equal(event.status, 422, event.text);
  assert.match(event.json.message, /metadata\.ownerReferences: Invalid value: v1\.OwnerReference\{APIVersion:"v1", Kind:"Event", Name:"e", UID:"u".*\}: \/v1, Kind=Event is disallowed from being an owner/);
  const ok = await t.api.post(base, { metadata: { name: 'own', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'd', uid: 'u' }] } });
  assert.equal(ok.status, 201, ok.text);
});

test('a time field of ObjectMeta that is not RFC 3339 is 400 with Go\'s time.Parse error', async () => {
  assertStatus(await t.api.post(base, { metadata: { name: 'tm', creationTimestamp: 'notatime' } }), 400, 'BadRequest',
    'ConfigMap in version "v1" cannot be handled as a ConfigMap: parsing time "notatime" as "2006-01-02T15:04:05Z07:00": cannot parse "notatime" as "2006"');
  assertStatus(await t.api.post(base, { metadata: { name: 'tm', deletionTimestamp: '2024-13-01T00:00:00Z' } }), 400, 'BadRequest',
    'ConfigMap in version "v1" cannot be handled as a ConfigMap: parsing time "2024-13-01T00:00:00Z": month out of range');
  assertStatus(await t.api.post(base, { metadata: { name: 'tm', managedFields: [{ manager: 'm', operation: 'Update', time: '2024-01-01 00:00:00' }] } }), 400, 'BadRequest',
    'ConfigMap in version "v1" cannot be handled as a ConfigMap: parsing time "2024-01-01 00:00:00" as "2006-01-02T15:04:05Z07:00": cannot parse " 00:00:00" as "T"');
  await absent('tm');
  const ok = await t.api.post(base, { metadata: { name: 'tm', creationTimestamp: '2024-01-01T00:00:00+02:00' } });
  assert.equal(ok.status, 201, ok.text);
});

test('a core/v1 Event without involvedObject outside "default" is 422, as legacy event validation says', async () => {
  const event = { metadata: { name: 'ev' }, reason: 'R', message: 'm', type: 'Normal' };
  assertStatus(await t.api.post(`/api/v1/namespaces/${t.ns}/events`, event), 422, 'Invalid',
    'Event "ev" is invalid: involvedObject.namespace: Invalid value: "": does not match event.namespace');
  const inDefault = await t.api.post('/api/v1/namespaces/default/events', { ...event, metadata: { name: `ev-${t.ns}` } });
  assert.equal(inDefault.status, 201, inDefault.text);
  const matching = await t.api.post(`/api/v1/namespaces/${t.ns}/events`, { ...event, involvedObject: { kind: 'ConfigMap', name: 'x', namespace: t.ns } });
  assert.equal(matching.status, 201, matching.text);
});

test('a fieldManager longer than 128 bytes or with non-printable characters is 422 on the options', async () => {
  assertStatus(await t.api.post(`${base}?fieldManager=${'m'.repeat(129)}`, configMap('fm')), 422, 'Invalid',
    'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes');
  assertStatus(await t.api.post(`${base}?fieldManager=a%07b`, configMap('fm')), 422, 'Invalid',
    'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: "a\\ab": invalid character U+0007 (at position 1)');
  await absent('fm');
  assert.equal((await t.api.post(`${base}?fieldManager=${'m'.repeat(128)}`, configMap('fm'))).status, 201);
  assertStatus(await t.api.put(`${base}/fm?fieldManager=${'é'.repeat(65)}`, configMap('fm')), 422, 'Invalid',
    'UpdateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes');
  assertStatus(await t.api.patch(`${base}/fm?fieldManager=%0A`, '{}', 'application/merge-patch+json'), 422, 'Invalid',
    'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: "\\n": invalid character U+000A (at position 0)');
});

test('a YAML mapping key that is a sequence, a mapping or null is 400, as the YAML-to-JSON conversion refuses it', async () => {
  const yaml = { 'Content-Type': 'application/yaml' };
  for (const [body, type] of [
    ['metadata:\n  name: yk\ndata:\n  ? [a, b]\n  : x\n', '\\[\\]interface \\{\\}'],
    ['metadata:\n  name: yk\ndata:\n  {k: v}: x\n', 'map\\[interface \\{\\}\\]interface \\{\\}'],
    ['metadata:\n  name: yk\ndata:\n  ~: x\n', '%!s\\(<nil>\\)'],
  ] as const) {
    const res = await t.api.post(base, body, yaml);
    assert.equal(res.status, 400, res.text);
    assert.match(res.json.message, new RegExp(`error converting YAML to JSON: unsupported map key of type: ${type}, key: `));
  }
  await absent('yk');
  const scalars = await t.api.post(base, 'metadata:\n  name: yk\ndata:\n  1: one\n  true: yes\n  "null": n\n', yaml);
  assert.equal(scalars.status, 201, scalars.text);
  assert.deepEqual(scalars.json.data, { 1: 'one', true: 'yes', null: 'n' });
});

test('DELETE with preconditions of the wrong type is 400 and deletes nothing', async () => {
  assert.equal((await t.api.post(base, configMap('pre'))).status, 201);
  assertStatus(await t.api.delete(`${base}/pre`, { preconditions: [] }), 400, 'BadRequest',
    'json: cannot unmarshal array into Go struct field DeleteOptions.preconditions of type v1.Preconditions');
  assertStatus(await t.api.delete(`${base}/pre`, { preconditions: { uid: 5 } }), 400, 'BadRequest',
    'json: cannot unmarshal number into Go struct field Preconditions.preconditions.uid of type types.UID');
  assertStatus(await t.api.delete(`${base}/pre`, { propagationPolicy: 1 }), 400, 'BadRequest',
    'json: cannot unmarshal number into Go struct field DeleteOptions.propagationPolicy of type v1.DeletionPropagation');
  assert.equal((await t.api.get(`${base}/pre`)).status, 200);
  assert.equal((await t.api.delete(`${base}/pre`, { preconditions: { uid: null } })).status, 200);
});

test('a strategic merge patch whose $deleteFromPrimitiveList value is not a list changes nothing, as upstream merges it', async () => {
  // Upstream's mergeMap skips a deletion list whose type differs from the field's (patch.go, mergeMap): no error.
  const created = await t.api.post(base, configMap('smp', {}, { finalizers: ['example.com/keep'] }));
  assert.equal(created.status, 201, created.text);
  const res = await t.api.patch(`${base}/smp`, '{"metadata":{"$deleteFromPrimitiveList/finalizers":"example.com/keep"}}', 'application/strategic-merge-patch+json');
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.json.metadata.finalizers, ['example.com/keep']);
  const removed = await t.api.patch(`${base}/smp`, '{"metadata":{"$deleteFromPrimitiveList/finalizers":["example.com/keep"]}}', 'application/strategic-merge-patch+json');
  assert.equal(removed.status, 200, removed.text);
  assert.deepEqual(removed.json.metadata.finalizers ?? [], []);
});

test('an empty namespace segment lists every namespace, as upstream reads it (namespace "")', async () => {
  // Upstream's request info takes the segment as namespace "", and its list handler then lists all namespaces.
  assert.equal((await t.api.post(base, configMap('everywhere'))).status, 201);
  const res = await t.api.get('/api/v1/namespaces//configmaps');
  assert.equal(res.status, 200, res.text);
  assert.ok(res.json.items.some((o: any) => o.metadata.name === 'everywhere' && o.metadata.namespace === t.ns));
});
