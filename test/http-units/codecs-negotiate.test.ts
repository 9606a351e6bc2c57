import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../src/api/errors.ts';
import { parseAccept } from '../../src/codecs/media-type.ts';
import { isPretty, negotiateResponse } from '../../src/codecs/negotiate.ts';

const TABLE_V1 = 'application/json;as=Table;v=v1;g=meta.k8s.io';

function status406(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ApiError);
    assert.equal(err.code, 406);
    assert.equal(err.reason, 'NotAcceptable');
    return err;
  }
  assert.fail('expected a 406');
}

describe('parseAccept', () => {
  it('orders clauses by q, keeping the written order for ties', () => {
    const clauses = parseAccept('application/yaml;q=0.5, application/json, application/vnd.kubernetes.protobuf');
    assert.deepEqual(
      clauses.map((c) => `${c.type}/${c.subtype}`),
      ['application/json', 'application/vnd.kubernetes.protobuf', 'application/yaml'],
    );
    assert.equal(clauses[2]!.q, 0.5);
  });

  it('puts concrete types before wildcards of equal quality and keeps parameters', () => {
    const clauses = parseAccept(`*/*, ${TABLE_V1}`);
    assert.equal(clauses[0]!.subtype, 'json');
    assert.deepEqual(clauses[0]!.params, { as: 'Table', v: 'v1', g: 'meta.k8s.io' });
    assert.equal(clauses[1]!.type, '*');
  });

  it('reads a bare * as */* and drops clauses that are not media ranges', () => {
    const clauses = parseAccept('*, text, application/json');
    assert.deepEqual(
      clauses.map((c) => `${c.type}/${c.subtype}`),
      ['application/json', '*/*'],
    );
  });
});

describe('negotiateResponse', () => {
  it('answers JSON when Accept is missing, */* or application/*', () => {
    for (const accept of [undefined, '', '*/*', 'application/*', '*']) {
      const r = negotiateResponse(accept);
      assert.equal(r.format, 'json');
      assert.equal(r.output, 'json');
      assert.equal(r.contentType, 'application/json');
    }
  });

  it('honours the first acceptable clause in preference order', () => {
    assert.equal(negotiateResponse('application/yaml, application/json').contentType, 'application/yaml');
    assert.equal(negotiateResponse('application/yaml;q=0.1, application/json').contentType, 'application/json');
    assert.equal(negotiateResponse('text/html, */*;q=0.8').format, 'json');
  });

  it('skips protobuf unless it is served', () => {
    const accept = 'application/vnd.kubernetes.protobuf, application/json';
    assert.equal(negotiateResponse(accept).format, 'json');
    const r = negotiateResponse(accept, { allowProtobuf: true });
    assert.equal(r.format, 'protobuf');
    assert.equal(r.contentType, 'application/vnd.kubernetes.protobuf');
  });

  it('returns a JSON Table for kubectl get Accept headers', () => {
    const r = negotiateResponse(`${TABLE_V1},application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json`);
    assert.equal(r.output, 'table-json');
    assert.equal(r.format, 'json');
    assert.equal(r.contentType, 'application/json');
    assert.deepEqual(r.convert, { kind: 'Table', group: 'meta.k8s.io', version: 'v1' });
  });

  it('returns a YAML Table and a v1beta1 Table', () => {
    assert.equal(negotiateResponse('application/yaml;as=Table;v=v1;g=meta.k8s.io').output, 'table-yaml');
    assert.equal(negotiateResponse('application/json;as=Table;v=v1beta1;g=meta.k8s.io').convert?.version, 'v1beta1');
  });

  it('falls back to plain JSON when Tables are not allowed or the group is wrong', () => {
    const fallback = `${TABLE_V1}, application/json`;
    const r = negotiateResponse(fallback, { allowTable: false });
    assert.equal(r.output, 'json');
    assert.equal(r.convert, undefined);
    assert.equal(negotiateResponse('application/json;as=Table;v=v1;g=example.com, application/yaml').format, 'yaml');
    assert.equal(negotiateResponse('application/json;as=Table, application/yaml').format, 'yaml');
  });

  it('never renders a Table as protobuf', () => {
    const err = status406(() =>
      negotiateResponse('application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io', { allowProtobuf: true }),
    );
    assert.equal(
      err.message,
      'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    );
  });

  it('accepts PartialObjectMetadata conversions', () => {
    const r = negotiateResponse('application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io');
    assert.equal(r.output, 'json');
    assert.deepEqual(r.convert, { kind: 'PartialObjectMetadataList', group: 'meta.k8s.io', version: 'v1' });
  });

  it('answers 406 with the accepted list for unknown types', () => {
    const err = status406(() => negotiateResponse('text/html'));
    assert.equal(err.status.message, 'only the following media types are accepted: application/json, application/yaml');
    assert.equal(err.status.kind, 'Status');
    assert.equal(err.status.code, 406);
  });

  it('serves JSON watches as application/json and protobuf watches with stream=watch', () => {
    assert.equal(negotiateResponse('application/json;stream=watch', { isWatch: true }).contentType, 'application/json');
    assert.equal(negotiateResponse(undefined, { isWatch: true }).contentType, 'application/json');
    assert.equal(
      negotiateResponse('application/vnd.kubernetes.protobuf;stream=watch', { isWatch: true, allowProtobuf: true }).contentType,
      'application/vnd.kubernetes.protobuf;stream=watch',
    );
    assert.equal(negotiateResponse('application/cbor', { isWatch: true, allowCbor: true }).contentType, 'application/cbor-seq');
  });

  it('refuses a YAML watch with the stream media types', () => {
    const err = status406(() => negotiateResponse('application/yaml', { isWatch: true, allowProtobuf: true }));
    assert.equal(
      err.message,
      'only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch',
    );
  });

  it('skips a clause asking for a stream the type cannot provide', () => {
    assert.equal(negotiateResponse('application/yaml;stream=watch, application/json').format, 'json');
    assert.equal(negotiateResponse('application/json;stream=other, application/yaml').format, 'yaml');
  });

  it('reads pretty=1 from the media type', () => {
    assert.equal(negotiateResponse('application/json;pretty=1').pretty, true);
    assert.equal(negotiateResponse('application/json').pretty, false);
  });
});

describe('isPretty', () => {
  it('follows the pretty query parameter, else the user agent', () => {
    assert.equal(isPretty('true'), true);
    assert.equal(isPretty('1'), true);
    assert.equal(isPretty('false', 'curl/8.0'), false);
    assert.equal(isPretty('yes'), false);
    assert.equal(isPretty(undefined, 'curl/8.0'), true);
    assert.equal(isPretty(undefined, 'Mozilla/5.0 (X11)'), true);
    assert.equal(isPretty(undefined, 'kubectl/v1.30.0'), false);
  });
});
