import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertStatus, configMap, create, createNamespace, removeFinalizers } from '../helpers/fixtures.ts';
import { serveFile } from '../helpers/server.ts';

let cms: string;
const t = serveFile([], async () => {
  cms = `/api/v1/namespaces/${await createNamespace(t.api)}/configmaps`;
});

/** A configmap held by finalizers, then deleted: returns the Terminating object. */
async function terminating(name: string, finalizers = ['example.com/a']): Promise<any> {
  await create(t.api, cms, configMap(name, { k: 'v' }, { finalizers }));
  const res = await t.api.delete(`${cms}/${name}`);
  assert.equal(res.status, 200, res.text);
  return res.json;
}

describe('deletion with finalizers', () => {
  test('DELETE of an object with finalizers answers it Terminating', async () => {
    const obj = await terminating('held', ['example.com/a', 'example.com/b']);
    assert.equal(obj.kind, 'ConfigMap');
    assert.match(obj.metadata.deletionTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(obj.metadata.deletionGracePeriodSeconds, 0);
    assert.deepEqual(obj.metadata.finalizers, ['example.com/a', 'example.com/b']);
    const read = await t.api.get(`${cms}/held`);
    assert.equal(read.status, 200);
    assert.equal(read.json.metadata.deletionTimestamp, obj.metadata.deletionTimestamp);
  });

  test('a second DELETE answers the same Terminating object', async () => {
    const obj = await terminating('held-twice');
    const again = await t.api.delete(`${cms}/held-twice`);
    assert.equal(again.status, 200);
    assert.equal(again.json.metadata.deletionTimestamp, obj.metadata.deletionTimestamp);
    assert.equal(again.json.metadata.resourceVersion, obj.metadata.resourceVersion);
  });

  test('removing one finalizer keeps it; removing the last by update removes the object', async () => {
    const obj = await terminating('by-update', ['example.com/a', 'example.com/b']);
    const one = await t.api.put(`${cms}/by-update`, { ...obj, metadata: { ...obj.metadata, finalizers: ['example.com/b'] } });
    assert.equal(one.status, 200, one.text);
    assert.deepEqual(one.json.metadata.finalizers, ['example.com/b']);
    assert.equal((await t.api.get(`${cms}/by-update`)).status, 200);
    const last = await t.api.put(`${cms}/by-update`, { ...one.json, metadata: { ...one.json.metadata, finalizers: [] } });
    assert.equal(last.status, 200, last.text);
    // The answer is the updated object: no finalizers, still marked deleted.
    assert.deepEqual(last.json.metadata.finalizers ?? [], []);
    assert.equal(last.json.metadata.deletionTimestamp, obj.metadata.deletionTimestamp);
    assertStatus(await t.api.get(`${cms}/by-update`), 404, 'NotFound', 'configmaps "by-update" not found');
  });

  test('removing the last finalizer by merge patch removes the object', async () => {
    await terminating('by-merge');
    const res = await t.api.patch(`${cms}/by-merge`, { metadata: { finalizers: null } }, 'application/merge-patch+json');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.metadata.finalizers, undefined);
    assert.ok(res.json.metadata.deletionTimestamp);
    assertStatus(await t.api.get(`${cms}/by-merge`), 404, 'NotFound');
  });

  test('removing the last finalizer by JSON patch removes the object', async () => {
    await terminating('by-json-patch');
    const res = await t.api.patch(`${cms}/by-json-patch`, [{ op: 'remove', path: '/metadata/finalizers' }], 'application/json-patch+json');
    assert.equal(res.status, 200, res.text);
    assertStatus(await t.api.get(`${cms}/by-json-patch`), 404, 'NotFound');
  });

  test('no new finalizers on a Terminating object', async () => {
    const obj = await terminating('no-new');
    const s = assertStatus(
      await t.api.put(`${cms}/no-new`, { ...obj, metadata: { ...obj.metadata, finalizers: ['example.com/a', 'example.com/late'] } }),
      422,
      'Invalid',
      'ConfigMap "no-new" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/late"}',
    );
    assert.deepEqual(s.details.causes, [
      { reason: 'FieldValueForbidden', message: 'Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/late"}', field: 'metadata.finalizers' },
    ]);
    const merge = await t.api.patch(`${cms}/no-new`, { metadata: { finalizers: ['example.com/a', 'example.com/late'] } }, 'application/merge-patch+json');
    assertStatus(merge, 422, 'Invalid', /no new finalizers can be added if the object is being deleted/);
    assert.equal((await removeFinalizers(t.api, `${cms}/no-new`)).status, 200);
  });

  test('an update cannot clear deletionTimestamp', async () => {
    const obj = await terminating('stays-terminating');
    const { deletionTimestamp: _d, deletionGracePeriodSeconds: _g, ...meta } = obj.metadata;
    const res = await t.api.put(`${cms}/stays-terminating`, { ...obj, metadata: meta, data: { k: 'w' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.metadata.deletionTimestamp, obj.metadata.deletionTimestamp);
    assert.equal((await removeFinalizers(t.api, `${cms}/stays-terminating`)).status, 200);
  });
});

describe('DeleteOptions', () => {
  test('preconditions.uid that does not match is 409', async () => {
    const created = await create(t.api, cms, configMap('pre-uid'));
    assertStatus(
      await t.api.delete(`${cms}/pre-uid`, { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'not-the-uid' } }),
      409,
      'Conflict',
      `Operation cannot be fulfilled on configmaps "pre-uid": Precondition failed: UID in precondition: not-the-uid, UID in object meta: ${created.metadata.uid}`,
    );
    assert.equal((await t.api.get(`${cms}/pre-uid`)).status, 200);
    const ok = await t.api.delete(`${cms}/pre-uid`, { preconditions: { uid: created.metadata.uid, resourceVersion: created.metadata.resourceVersion } });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.json.status, 'Success');
  });

  test('preconditions.resourceVersion that does not match is 409', async () => {
    const created = await create(t.api, cms, configMap('pre-rv'));
    assertStatus(
      await t.api.delete(`${cms}/pre-rv`, { preconditions: { resourceVersion: '1' } }),
      409,
      'Conflict',
      `Operation cannot be fulfilled on configmaps "pre-rv": Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: ${created.metadata.resourceVersion}`,
    );
    assert.equal((await t.api.get(`${cms}/pre-rv`)).status, 200);
  });

  test('gracePeriodSeconds and propagationPolicy are accepted as query and as body', async () => {
    await create(t.api, cms, configMap('opts-query'));
    const q = await t.api.delete(`${cms}/opts-query?gracePeriodSeconds=0&propagationPolicy=Background`);
    assert.equal(q.status, 200, q.text);
    assert.equal(q.json.status, 'Success');
    await create(t.api, cms, configMap('opts-body'));
    const b = await t.api.delete(`${cms}/opts-body`, { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0, propagationPolicy: 'Orphan' });
    assert.equal(b.status, 200, b.text);
    // Orphan leaves the object to the garbage collector's orphan finalizer: it answers with the object, marked.
    assert.equal(b.json.kind, 'ConfigMap');
    assert.deepEqual(b.json.metadata.finalizers, ['orphan']);
  });

  test('an unsupported propagationPolicy is 422', async () => {
    await create(t.api, cms, configMap('bad-policy'));
    const message = 'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"';
    assertStatus(await t.api.delete(`${cms}/bad-policy?propagationPolicy=Sideways`), 422, 'Invalid', message);
    assertStatus(await t.api.delete(`${cms}/bad-policy`, { propagationPolicy: 'Sideways' }), 422, 'Invalid', message);
    assert.equal((await t.api.get(`${cms}/bad-policy`)).status, 200);
  });

  test('orphanDependents together with propagationPolicy is 422', async () => {
    await create(t.api, cms, configMap('both-set'));
    assertStatus(
      await t.api.delete(`${cms}/both-set`, { orphanDependents: true, propagationPolicy: 'Orphan' }),
      422,
      'Invalid',
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set',
    );
  });

  test('a gracePeriodSeconds that is not a number is 400', async () => {
    await create(t.api, cms, configMap('bad-grace'));
    assertStatus(await t.api.delete(`${cms}/bad-grace?gracePeriodSeconds=soon`), 400, 'BadRequest');
    assert.equal((await t.api.get(`${cms}/bad-grace`)).status, 200);
  });

  test('a body of another kind is 400', async () => {
    await create(t.api, cms, configMap('wrong-body'));
    assertStatus(await t.api.delete(`${cms}/wrong-body`, { kind: 'ConfigMap', apiVersion: 'v1' }), 400, 'BadRequest');
    assert.equal((await t.api.get(`${cms}/wrong-body`)).status, 200);
  });

  test('dryRun on a Terminating object changes nothing', async () => {
    await create(t.api, cms, configMap('dry-held', {}, { finalizers: ['example.com/a'] }));
    const res = await t.api.delete(`${cms}/dry-held?dryRun=All`);
    assert.equal(res.status, 200, res.text);
    assert.ok(res.json.metadata.deletionTimestamp);
    assert.equal((await t.api.get(`${cms}/dry-held`)).json.metadata.deletionTimestamp, undefined);
    assert.equal((await removeFinalizers(t.api, `${cms}/dry-held`)).status, 200);
  });
});
