import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertStatus, create, createNamespace, secret } from '../helpers/fixtures.ts';
import { serveFile } from '../helpers/server.ts';

let secrets: string;
const t = serveFile([], async () => {
  secrets = `/api/v1/namespaces/${await createNamespace(t.api)}/secrets`;
});

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('secrets', () => {
  test('stringData is merged into data as base64, overriding, and never returned', async () => {
    const res = await t.api.post(secrets, secret('merged', { data: { a: b64('old'), keep: b64('kept') }, stringData: { a: 'new', b: 'plain' } }));
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.json.data, { a: b64('new'), keep: b64('kept'), b: b64('plain') });
    assert.equal(res.json.stringData, undefined);
    const read = await t.api.get(`${secrets}/merged`);
    assert.deepEqual(read.json.data, { a: b64('new'), keep: b64('kept'), b: b64('plain') });
    assert.equal(read.json.stringData, undefined);
    assert.ok(!read.text.includes('plain"'));
  });

  test('stringData on update is merged the same way', async () => {
    const created = await create(t.api, secrets, secret('merged-update', { data: { a: b64('1') } }));
    const res = await t.api.put(`${secrets}/merged-update`, { ...created, stringData: { b: 'two' } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.data, { a: b64('1'), b: b64('two') });
    assert.equal(res.json.stringData, undefined);
  });

  test('type defaults to Opaque', async () => {
    const created = await create(t.api, secrets, secret('typed', { stringData: { a: 'b' } }));
    assert.equal(created.type, 'Opaque');
  });

  test('type is immutable', async () => {
    const created = await create(t.api, secrets, secret('fixed-type', { type: 'kubernetes.io/basic-auth', stringData: { username: 'u' } }));
    assert.equal(created.type, 'kubernetes.io/basic-auth');
    const s = assertStatus(
      await t.api.put(`${secrets}/fixed-type`, { ...created, type: 'Opaque' }),
      422,
      'Invalid',
      'Secret "fixed-type" is invalid: type: Invalid value: "Opaque": field is immutable',
    );
    assert.deepEqual(s.details.causes, [{ reason: 'FieldValueInvalid', message: 'Invalid value: "Opaque": field is immutable', field: 'type' }]);
    assert.equal((await t.api.get(`${secrets}/fixed-type`)).json.type, 'kubernetes.io/basic-auth');
  });

  test('an update without a type means Opaque, so a typed Secret refuses it as a type change', async () => {
    const created = await create(t.api, secrets, secret('keeps-type', { type: 'kubernetes.io/basic-auth', stringData: { username: 'u' } }));
    const { type: _dropped, ...untyped } = created;
    assertStatus(await t.api.put(`${secrets}/keeps-type`, untyped), 422, 'Invalid', /type: Invalid value: "Opaque": field is immutable/);
    const plain = await create(t.api, secrets, secret('plain', { stringData: { a: 'b' } }));
    const { type: _none, ...plainUntyped } = plain;
    const res = await t.api.put(`${secrets}/plain`, { ...plainUntyped, stringData: { a: 'c' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.type, 'Opaque');
  });

  test('a type needs its required keys', async () => {
    assertStatus(
      await t.api.post(secrets, secret('tls-missing', { type: 'kubernetes.io/tls', stringData: { 'tls.crt': 'x' } })),
      422,
      'Invalid',
      'Secret "tls-missing" is invalid: data[tls.key]: Required value',
    );
  });

  test('data values must be base64 (a decode error, 400)', async () => {
    assertStatus(await t.api.post(secrets, secret('not-b64', { data: { a: 'no spaces allowed' } })), 400, 'BadRequest', 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 2');
  });
});
