import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../src/api/errors.ts';
import { decodeBody, encodeBody } from '../../src/codecs/body.ts';
import { parseContentType } from '../../src/codecs/content-type.ts';
import { jsonSyntaxError } from '../../src/codecs/json-syntax.ts';
import { frameSerializedWatchEvent, frameWatchEvent } from '../../src/codecs/watch-framing.ts';

function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ApiError, `expected ApiError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected an ApiError');
}

const bytes = (s: string) => Buffer.from(s, 'utf8');

describe('parseContentType', () => {
  it('reads create and update bodies, defaulting to JSON', () => {
    assert.equal(parseContentType(undefined), 'json');
    assert.equal(parseContentType(''), 'json');
    assert.equal(parseContentType('application/json; charset=utf-8'), 'json');
    assert.equal(parseContentType('Application/YAML'), 'yaml');
    assert.equal(parseContentType('application/vnd.kubernetes.protobuf', { allowProtobuf: true }), 'protobuf');
    assert.equal(parseContentType('application/cbor', { allowCbor: true }), 'cbor');
  });

  it('answers 415 listing the body media types', () => {
    const err = apiError(() => parseContentType('text/plain'));
    assert.equal(err.code, 415);
    assert.equal(err.reason, 'UnsupportedMediaType');
    assert.equal(
      err.message,
      'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml',
    );
    assert.equal(err.status.details, undefined);
    assert.equal(apiError(() => parseContentType('application/vnd.kubernetes.protobuf')).code, 415);
  });

  it('reads patch types and requires one for PATCH', () => {
    assert.equal(parseContentType('application/json-patch+json', { patch: true }), 'json-patch');
    assert.equal(parseContentType('application/merge-patch+json; charset=utf-8', { patch: true }), 'merge-patch');
    assert.equal(parseContentType('application/strategic-merge-patch+json', { patch: true }), 'strategic-merge-patch');
    assert.equal(parseContentType('application/apply-patch+yaml', { patch: true }), 'apply-patch-yaml');
    const err = apiError(() => parseContentType('application/json', { patch: true }));
    assert.equal(err.code, 415);
    assert.equal(
      err.message,
      'the body of the request was in an unknown format - accepted media types include: ' +
        'application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
    );
    assert.equal(apiError(() => parseContentType(undefined, { patch: true })).code, 415);
  });

  it('refuses strategic merge patch where it is not supported', () => {
    const err = apiError(() =>
      parseContentType('application/strategic-merge-patch+json', { patch: true, allowStrategicMerge: false }),
    );
    assert.equal(err.code, 415);
    assert.ok(!err.message.includes('strategic'));
  });
});

describe('decodeBody (JSON)', () => {
  it('parses valid JSON from bytes and strings', () => {
    assert.deepEqual(decodeBody(bytes('{"kind":"ConfigMap","data":{"a":"b"}}'), 'json'), {
      kind: 'ConfigMap',
      data: { a: 'b' },
    });
    assert.deepEqual(decodeBody('[{"op":"remove","path":"/x"}]', 'json-patch'), [{ op: 'remove', path: '/x' }]);
  });

  it('turns syntax errors into 400 BadRequest with Go-style messages', () => {
    const err = apiError(() => decodeBody(bytes('{"a": tru}'), 'json'));
    assert.equal(err.code, 400);
    assert.equal(err.reason, 'BadRequest');
    assert.equal(err.message, "invalid character '}' in literal true (expecting 'e')");
  });

  it('words errors like the real create handler when the kind is known', () => {
    const err = apiError(() => decodeBody(bytes('{nope'), 'json', { expectKind: 'ConfigMap' }));
    assert.equal(err.code, 400);
    assert.equal(
      err.message,
      "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: " +
        "invalid character 'n' looking for beginning of object key string ({nope)",
    );
    const empty = apiError(() => decodeBody(bytes(''), 'json', { expectKind: 'ConfigMap' }));
    assert.equal(
      empty.message,
      "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: " +
        'unexpected end of JSON input (<empty>)',
    );
  });

  it('rejects a body that is not an object when a kind is expected', () => {
    const err = apiError(() => decodeBody(bytes('[1,2]'), 'json', { expectKind: 'ConfigMap' }));
    assert.equal(err.code, 400);
    assert.match(err.message, /cannot unmarshal array into Go value/);
    assert.match(err.message, /\(5b312c325d\)$/);
  });

  it('does not crash on binary garbage', () => {
    const err = apiError(() => decodeBody(Uint8Array.from([0xff, 0x00, 0x01]), 'json'));
    assert.equal(err.code, 400);
  });
});

describe('jsonSyntaxError', () => {
  const cases: Array<[string, string]> = [
    ['', 'unexpected end of JSON input'],
    ['{', 'unexpected end of JSON input'],
    ['x', "invalid character 'x' looking for beginning of value"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', `invalid character '"' after object key:value pair`],
    ['[1 2]', "invalid character '2' after array element"],
    ['{"a":1}x', "invalid character 'x' after top-level value"],
    ['"a\nb"', "invalid character '\\n' in string literal"],
    ['"\\q"', "invalid character 'q' in string escape code"],
    ['"\\u12x4"', "invalid character 'x' in \\u hexadecimal character escape"],
    ['-x', "invalid character 'x' in numeric literal"],
    ['1.x', "invalid character 'x' after decimal point in numeric literal"],
    ['1ex', "invalid character 'x' in exponent of numeric literal"],
    ['nul', 'unexpected end of JSON input'],
    ["{'a':1}", "invalid character '\\'' looking for beginning of object key string"],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
  ];
  for (const [input, message] of cases) {
    it(`explains ${JSON.stringify(input)}`, () => {
      assert.equal(jsonSyntaxError(bytes(input)), message);
    });
  }

  it('finds nothing wrong with valid JSON', () => {
    assert.equal(jsonSyntaxError(bytes(' {"a":[1,-2.5e+3,true,false,null,"\\u00e9"]} ')), undefined);
  });
});

describe('decodeBody (YAML)', () => {
  it('parses YAML into JSON values, keeping timestamps and YAML 1.1 words as strings', () => {
    const value = decodeBody(bytes('kind: ConfigMap\nmetadata:\n  name: x\n  creationTimestamp: 2020-01-01T00:00:00Z\ndata:\n  a: yes\n'), 'yaml');
    assert.deepEqual(value, {
      kind: 'ConfigMap',
      metadata: { name: 'x', creationTimestamp: '2020-01-01T00:00:00Z' },
      data: { a: 'yes' },
    });
  });

  it('supports anchors and merge keys, and keeps the last of duplicate keys', () => {
    assert.deepEqual(decodeBody('a: &x {b: 1}\nc:\n  <<: *x\n  d: 2\n', 'yaml'), { a: { b: 1 }, c: { b: 1, d: 2 } });
    assert.deepEqual(decodeBody('a: 1\na: 2\n', 'apply-patch-yaml'), { a: 2 });
  });

  it('turns YAML errors into 400 BadRequest', () => {
    const err = apiError(() => decodeBody(bytes('a: b: c'), 'yaml'));
    assert.equal(err.code, 400);
    assert.match(err.message, /^error converting YAML to JSON: yaml: line 1: /);
    const withKind = apiError(() => decodeBody(bytes('a:\n  - 1\n - 2'), 'yaml', { expectKind: 'Pod' }));
    assert.match(withKind.message, /^the object provided is unrecognized \(must be of type Pod\): error converting YAML to JSON: yaml: line 3: /);
  });

  it('rejects several documents', () => {
    const err = apiError(() => decodeBody(bytes('a: 1\n---\nb: 2\n'), 'yaml'));
    assert.equal(err.code, 400);
    assert.match(err.message, /single document/);
  });

  it('rejects values JSON cannot hold and unknown tags', () => {
    assert.equal(apiError(() => decodeBody('a: .inf', 'yaml')).code, 400);
    assert.equal(apiError(() => decodeBody('a: !!binary aGVsbG8=', 'yaml')).code, 400);
  });
});

describe('encodeBody', () => {
  const obj = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'x' }, data: { b: '1', a: 'line1\nline2\n' } };

  it('writes compact JSON with a trailing newline, or indented JSON without one', () => {
    assert.equal(encodeBody({ a: 1 }, 'json'), '{"a":1}\n');
    assert.equal(encodeBody({ a: [1] }, 'json', { pretty: true }), '{\n  "a": [\n    1\n  ]\n}');
  });

  it('writes YAML with sorted keys, unindented lists and no folding', () => {
    const text = encodeBody({ ...obj, list: [{ b: 1, a: 2 }], long: 'word '.repeat(40).trim(), t: '2020-01-01T00:00:00Z' }, 'yaml');
    assert.equal(
      text,
      [
        'apiVersion: v1',
        'data:',
        '  a: |',
        '    line1',
        '    line2',
        '  b: "1"',
        'kind: ConfigMap',
        'list:',
        '- a: 2',
        '  b: 1',
        `long: ${'word '.repeat(40).trim()}`,
        'metadata:',
        '  name: x',
        't: "2020-01-01T00:00:00Z"',
        '',
      ].join('\n'),
    );
  });

  it('round-trips through decodeBody', () => {
    assert.deepEqual(decodeBody(encodeBody(obj, 'yaml'), 'yaml'), obj);
  });
});

describe('watch framing', () => {
  it('writes one JSON event per line', () => {
    assert.equal(
      frameWatchEvent('ADDED', { kind: 'ConfigMap', metadata: { name: 'a' } }),
      '{"type":"ADDED","object":{"kind":"ConfigMap","metadata":{"name":"a"}}}\n',
    );
    assert.equal(frameSerializedWatchEvent('BOOKMARK', '{"kind":"ConfigMap"}'), '{"type":"BOOKMARK","object":{"kind":"ConfigMap"}}\n');
    const line = frameWatchEvent('DELETED', { a: 'x\ny' });
    assert.equal(line.split('\n').length, 2);
    assert.deepEqual(JSON.parse(line), { type: 'DELETED', object: { a: 'x\ny' } });
  });
});
