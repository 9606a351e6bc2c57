/**
 * CBOR bodies and answers for custom resources while the CBORServingAndStorage gate is on, and
 * CBOR among the media types a custom resource's 406 and 415 name then.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeCbor, encodeCbor } from '../../src/codecs/cbor/index.ts';
import { customResourceKinds } from '../../src/crd/serving/kinds.ts';
import { serveFile } from '../helpers/server.ts';
import { GROUP, widget, widgetCrd } from './cr-fixtures.ts';

const CBOR = 'application/cbor';
let base = '';
const t = serveFile(['--feature-gates=CBORServingAndStorage=true'], (served) => {
  for (const kind of customResourceKinds(widgetCrd())) served.srv.server.surface.add(kind);
  base = `/apis/${GROUP}/v1/namespaces/${served.ns}/widgets`;
});

describe('CBOR for custom resources', () => {
  it('creates from a CBOR body (pruned and defaulted) and answers in CBOR', async () => {
    const r = await t.api.post(base, encodeCbor(widget('cb', { replicas: 2, foo: 1 })), { 'Content-Type': CBOR, Accept: CBOR });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.headers['content-type'], CBOR);
    const obj = decodeCbor(r.bytes) as { spec: Record<string, unknown> };
    assert.deepEqual(obj.spec, { replicas: 2, color: 'blue' });
    assert.equal(r.headers.warning, '299 - "unknown field \\"spec.foo\\""');
  });

  it('lists CBOR among the types of its 415', async () => {
    const r = await t.api.post(base, Buffer.from([0x6b, 0x38, 0x73, 0x00]), { 'Content-Type': 'application/vnd.kubernetes.protobuf' });
    assert.equal(r.status, 415, r.text);
    assert.equal(r.json.message, 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/cbor');
  });
});
