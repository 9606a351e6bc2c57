import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { formatGoDuration, parseGoDuration } from '../../src/api/go/duration.ts';
import { formatRfc3339, formatRfc3339Micro, parseRfc3339 } from '../../src/codecs/protobuf/rfc3339.ts';
import { messageForKind } from '../../src/codecs/protobuf/index.ts';

describe('Go duration text', () => {
  const cases: [number, string][] = [
    [0, '0s'],
    [1, '1ns'],
    [1_500, '1.5µs'],
    [300e6, '300ms'],
    [1_500e6, '1.5s'],
    [90e9, '1m30s'],
    [3600e9, '1h0m0s'],
    [3723e9 + 4e8, '1h2m3.4s'],
    [-5e9, '-5s'],
    [100 * 3600e9, '100h0m0s'],
  ];
  for (const [ns, text] of cases) {
    test(`${ns}ns prints as ${text} and parses back`, () => {
      assert.equal(formatGoDuration(ns), text);
      assert.equal(parseGoDuration(text), ns);
    });
  }

  test('parses the other spellings Go accepts and rejects the rest', () => {
    assert.equal(parseGoDuration('1h30m'), 5400e9);
    assert.equal(parseGoDuration('2us'), 2000);
    assert.equal(parseGoDuration('0'), 0);
    assert.equal(parseGoDuration('+.5s'), 5e8);
    for (const bad of ['', '1', 'h', '1x', '1.s.', '-', 'constructor']) assert.equal(parseGoDuration(bad), undefined, bad);
  });
});

describe('RFC 3339 times', () => {
  test('Time prints seconds in UTC; MicroTime prints exactly six fraction digits', () => {
    assert.equal(formatRfc3339(1704164645), '2024-01-02T03:04:05Z');
    assert.equal(formatRfc3339Micro(1704164645, 120), '2024-01-02T03:04:05.000120Z');
  });

  test('parses offsets and fractions to seconds and nanos; rejects malformed text', () => {
    assert.deepEqual(parseRfc3339('2024-01-02T04:04:05.5+01:00'), { seconds: 1704164645, nanos: 500_000_000 });
    assert.deepEqual(parseRfc3339('1970-01-01T00:00:00Z'), { seconds: 0, nanos: 0 });
    for (const bad of ['2024-02-30T00:00:00Z', '2024-01-02 03:04:05Z', '2024-01-02T03:04:05', 'yesterday']) assert.equal(parseRfc3339(bad), undefined, bad);
  });
});

describe('kind → message', () => {
  test('schema kinds, lists, meta kinds under any group and virtual kinds', () => {
    assert.equal(messageForKind('v1', 'ConfigMap'), 'k8s.io.api.core.v1.ConfigMap');
    assert.equal(messageForKind('v1', 'ConfigMapList'), 'k8s.io.api.core.v1.ConfigMapList');
    assert.equal(messageForKind('apps/v1', 'DeleteOptions'), 'k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions');
    assert.equal(messageForKind('meta.k8s.io/v1', 'PartialObjectMetadataList'), 'k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadataList');
    assert.equal(messageForKind('meta.k8s.io/v1beta1', 'PartialObjectMetadataList'), 'k8s.io.apimachinery.pkg.apis.meta.v1beta1.PartialObjectMetadataList');
    assert.equal(messageForKind('authentication.k8s.io/v1', 'TokenRequest'), 'k8s.io.api.authentication.v1.TokenRequest');
    assert.equal(messageForKind('v1', 'Binding'), 'k8s.io.api.core.v1.Binding');
    assert.equal(messageForKind('v1', 'ObjectMeta'), undefined, 'only top-level types');
    assert.equal(messageForKind('example.com/v1', 'Widget'), undefined);
  });
});
