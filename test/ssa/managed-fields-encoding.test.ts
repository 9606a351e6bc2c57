/**
 * metadata.managedFields on the wire: manager identifiers, decoding and its errors, the encoded
 * form and its order, times, and the Status of an apply conflict (upstream's managedfields_test.go,
 * conflict_test.go and fieldmanager.go's isResetManagedFields).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compareGoStrings } from '../../src/api/go/strings.ts';
import { fieldElement, keyElement, type Path } from '../../src/ssa/fieldpath/index.ts';
import { applyConflictError, printManager } from '../../src/registry/managed-fields/conflict-error.ts';
import { decodeManagedFields, isResetManagedFields } from '../../src/registry/managed-fields/decode.ts';
import { encodeManagedFields, sortEncodedManagedFields } from '../../src/registry/managed-fields/encode.ts';
import type { ManagedFieldsEntry } from '../../src/registry/managed-fields/entry.ts';
import { goJsonMarshal } from '../../src/registry/managed-fields/go-json.ts';
import { buildManagerIdentifier } from '../../src/registry/managed-fields/identifier.ts';
import { formatTimeSeconds, parseTimeSeconds } from '../../src/registry/managed-fields/time.ts';

const path = (...names: string[]): Path => names.map(fieldElement);

describe('manager identifiers (BuildManagerIdentifier)', () => {
  test('an updater is named by manager, operation and apiVersion', () => {
    assert.equal(buildManagerIdentifier({ manager: 'foo', operation: 'Update', apiVersion: 'v1' }), '{"manager":"foo","operation":"Update","apiVersion":"v1"}');
  });

  test('an applier keeps one identity whatever version it applies with', () => {
    assert.equal(buildManagerIdentifier({ manager: 'foo', operation: 'Apply', apiVersion: 'v1' }), '{"manager":"foo","operation":"Apply"}');
    assert.equal(buildManagerIdentifier({ manager: 'foo', operation: 'Apply', apiVersion: 'v1', subresource: 'scale' }), '{"manager":"foo","operation":"Apply","subresource":"scale"}');
  });

  test('the subresource comes last, and strings are escaped as Go escapes them', () => {
    assert.equal(
      buildManagerIdentifier({ manager: 'a<b>&"c"', operation: 'Update', apiVersion: 'v1', subresource: 'status' }),
      '{"manager":"a\\u003cb\\u003e\\u0026\\"c\\"","operation":"Update","apiVersion":"v1","subresource":"status"}',
    );
  });
});

describe('decoding managedFields (DecodeManagedFields)', () => {
  const entry = (overrides: Record<string, unknown>) => ({ manager: 'foo', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': {} }, ...overrides });

  test('fieldsType is required and must be FieldsV1', () => {
    assert.throws(() => decodeManagedFields([entry({ fieldsType: undefined })]), { message: 'missing fieldsType in managed fields entry 0' });
    assert.throws(() => decodeManagedFields([entry({}), entry({ manager: 'b', fieldsType: 'FieldsV2' })]), { message: 'invalid fieldsType "FieldsV2" in managed fields entry 1' });
  });

  test('apiVersion is required', () => {
    assert.throws(() => decodeManagedFields([entry({ apiVersion: '' })]), { message: 'apiVersion must not be empty' });
  });

  test('operation must be Apply or Update', () => {
    assert.throws(() => decodeManagedFields([entry({ operation: 'Patch' })]), { message: 'operation must be `Apply` or `Update`' });
    assert.throws(() => decodeManagedFields([entry({ operation: undefined })]), { message: 'operation must be `Apply` or `Update`' });
  });

  test('absent, null and empty lists decode to no managers', () => {
    assert.equal(decodeManagedFields(undefined).fields.size, 0);
    assert.equal(decodeManagedFields(null).fields.size, 0);
    assert.equal(decodeManagedFields([]).fields.size, 0);
  });

  test('entries with the same identity collapse into the last one', () => {
    const managed = decodeManagedFields([entry({ fieldsV1: { 'f:a': {} } }), entry({ fieldsV1: { 'f:b': {} } })]);
    assert.equal(managed.fields.size, 1);
    assert.deepEqual(encodeManagedFields(managed)![0]!.fieldsV1, { 'f:b': {} });
  });
});

describe('round trip through the managed set (TestRoundTripManagedFields)', () => {
  const cases: ManagedFieldsEntry[][] = [
    [
      { manager: 'foo', operation: 'Update', apiVersion: 'v1', time: '2001-02-03T04:05:06Z', fieldsType: 'FieldsV1', fieldsV1: { 'v:3': { 'f:alsoPi': {} }, 'v:3.1415': { 'f:pi': {} }, 'v:false': { 'f:notTrue': {} } } },
      { manager: 'foo', operation: 'Update', apiVersion: 'v1beta1', time: '2011-12-13T14:15:16Z', fieldsType: 'FieldsV1', fieldsV1: { 'i:5': { 'f:i': {} } } },
    ],
    [{ manager: 'foo', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { 'f:image': {}, 'f:name': {} } } } } }],
    [{ manager: 'foo', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } }, subresource: 'scale' }],
  ];
  for (const entries of cases) {
    test(`${entries.map((e) => `${e.manager}/${e.operation}/${e.apiVersion}`).join(', ')}`, () => {
      const encoded = encodeManagedFields(decodeManagedFields(entries))!;
      assert.deepEqual(encoded, entries);
      // Upstream's struct order, every time.
      for (const e of encoded) assert.deepEqual(Object.keys(e), Object.keys(entries.find((x) => x.apiVersion === e.apiVersion)!));
    });
  }

  test('no managers encode to no field at all', () => {
    assert.equal(encodeManagedFields(decodeManagedFields([])), undefined);
  });

  test('times are re-encoded in UTC at whole seconds', () => {
    const [out] = encodeManagedFields(decodeManagedFields([{ manager: 'a', operation: 'Update', apiVersion: 'v1', time: '2001-02-03T06:05:06.999+02:00', fieldsType: 'FieldsV1', fieldsV1: { 'f:x': {} } }]))!;
    assert.equal(out!.time, '2001-02-03T04:05:06Z');
  });
});

describe('entry order (TestSortEncodedManagedFields)', () => {
  const e = (manager: string, operation: string, time?: string, extra: Partial<ManagedFieldsEntry> = {}): ManagedFieldsEntry => ({
    manager,
    operation,
    ...(time ? { time } : {}),
    ...extra,
  });
  const T1 = '2001-01-01T01:00:00Z';
  const T2 = '2002-01-01T01:00:00Z';
  const T3 = '2003-01-01T01:00:00Z';
  const cases: [string, ManagedFieldsEntry[], ManagedFieldsEntry[]][] = [
    ['empty', [], []],
    ['remains untouched', [e('a', 'Apply'), e('a', 'Update', T1)], [e('a', 'Apply'), e('a', 'Update', T1)]],
    ['manager without time first', [e('a', 'Apply'), e('a', 'Apply', T1)], [e('a', 'Apply'), e('a', 'Apply', T1)]],
    ['manager without time first name last', [e('a', 'Apply', T1), e('b', 'Apply'), e('a', 'Apply')], [e('a', 'Apply'), e('b', 'Apply'), e('a', 'Apply', T1)]],
    ['apply first', [e('a', 'Update', T1), e('a', 'Apply')], [e('a', 'Apply'), e('a', 'Update', T1)]],
    ['newest last', [e('c', 'Update', T1), e('a', 'Apply'), e('c', 'Update', T2), e('b', 'Apply')], [e('a', 'Apply'), e('b', 'Apply'), e('c', 'Update', T1), e('c', 'Update', T2)]],
    ['manager last', [e('c', 'Update', T1), e('a', 'Apply'), e('d', 'Update', T1), e('b', 'Apply')], [e('a', 'Apply'), e('b', 'Apply'), e('c', 'Update', T1), e('d', 'Update', T1)]],
    [
      'manager sorted',
      [e('c', 'Update', T1), e('a', 'Apply'), e('g', 'Apply'), e('f', 'Update', T2), e('i', 'Apply'), e('d', 'Update', T2), e('h', 'Apply'), e('e', 'Update', T3), e('b', 'Apply')],
      [e('a', 'Apply'), e('b', 'Apply'), e('g', 'Apply'), e('h', 'Apply'), e('i', 'Apply'), e('c', 'Update', T1), e('d', 'Update', T2), e('f', 'Update', T2), e('e', 'Update', T3)],
    ],
    [
      'sort drops fractions of seconds',
      [e('c', 'Update', '2000-01-01T00:00:00.1Z'), e('a', 'Update', '2000-01-01T00:00:00.2Z'), e('b', 'Update', '2000-01-01T00:00:00.3Z')],
      [e('a', 'Update', '2000-01-01T00:00:00.2Z'), e('b', 'Update', '2000-01-01T00:00:00.3Z'), e('c', 'Update', '2000-01-01T00:00:00.1Z')],
    ],
    [
      'entries with subresource field',
      [e('a', 'Apply', undefined, { subresource: 'status' }), e('a', 'Apply', undefined, { subresource: 'scale' }), e('a', 'Apply')],
      [e('a', 'Apply'), e('a', 'Apply', undefined, { subresource: 'scale' }), e('a', 'Apply', undefined, { subresource: 'status' })],
    ],
    ['apiVersion breaks ties', [e('a', 'Update', T1, { apiVersion: 'v2' }), e('a', 'Update', T1, { apiVersion: 'v1' })], [e('a', 'Update', T1, { apiVersion: 'v1' }), e('a', 'Update', T1, { apiVersion: 'v2' })]],
  ];
  for (const [name, input, expected] of cases) {
    test(name, () => assert.deepEqual(sortEncodedManagedFields(input), expected));
  }

  test('encoding sorts the same way', () => {
    const managed = decodeManagedFields([
      { manager: 'z', operation: 'Update', apiVersion: 'v1', time: T2, fieldsType: 'FieldsV1', fieldsV1: { 'f:a': {} } },
      { manager: 'y', operation: 'Update', apiVersion: 'v1', time: T1, fieldsType: 'FieldsV1', fieldsV1: { 'f:b': {} } },
      { manager: 'x', operation: 'Apply', apiVersion: 'v1', time: T3, fieldsType: 'FieldsV1', fieldsV1: { 'f:c': {} } },
    ]);
    assert.deepEqual(encodeManagedFields(managed)!.map((m) => m.manager), ['x', 'y', 'z']);
  });
});

describe('times', () => {
  test('RFC 3339 to whole Unix seconds and back', () => {
    assert.equal(parseTimeSeconds('1970-01-01T00:00:00Z'), 0);
    assert.equal(parseTimeSeconds('2001-02-03T04:05:06Z'), 981173106);
    assert.equal(parseTimeSeconds('2001-02-03T04:05:06.75Z'), 981173106);
    assert.equal(parseTimeSeconds('2001-02-03T05:05:06+01:00'), 981173106);
    assert.equal(parseTimeSeconds('not a time'), undefined);
    assert.equal(formatTimeSeconds(981173106), '2001-02-03T04:05:06Z');
    // Go's zero time and the hours after it (the cap test's times) survive the trip.
    assert.equal(formatTimeSeconds(parseTimeSeconds('0001-01-01T05:00:00Z')!), '0001-01-01T05:00:00Z');
    assert.equal(parseTimeSeconds('0001-01-01T00:00:00Z'), -62135596800);
  });
});

describe('apply conflicts as a Status (NewConflictError)', () => {
  test('one conflict with an updater', () => {
    const err = applyConflictError([{ manager: '{"manager":"foo","operation":"Update","apiVersion":"v1"}', path: path('spec', 'replicas') }]);
    assert.deepEqual(err.status, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "foo" using v1: .spec.replicas',
      reason: 'Conflict',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "foo" using v1', field: '.spec.replicas' }] },
      code: 409,
    });
  });

  test('several conflicts: causes in order, the message grouped by sorted manager', () => {
    const err = applyConflictError([
      { manager: '{"manager":"foo","operation":"Update","apiVersion":"v1","time":"2001-02-03T04:05:06Z"}', path: path('spec', 'replicas') },
      { manager: '{"manager":"bar","operation":"Apply"}', path: path('metadata', 'labels', 'app') },
      { manager: '{"manager":"foo","operation":"Update","apiVersion":"v1","time":"2001-02-03T04:05:06Z"}', path: [fieldElement('spec'), fieldElement('containers'), keyElement([['name', 'c']]), fieldElement('image')] },
    ]);
    assert.equal(
      err.status.message,
      'Apply failed with 3 conflicts: conflicts with "bar":\n- .metadata.labels.app\nconflicts with "foo" using v1 at 2001-02-03T04:05:06Z:\n- .spec.replicas\n- .spec.containers[name="c"].image',
    );
    assert.deepEqual(err.status.details!.causes, [
      { reason: 'FieldManagerConflict', message: 'conflict with "foo" using v1 at 2001-02-03T04:05:06Z', field: '.spec.replicas' },
      { reason: 'FieldManagerConflict', message: 'conflict with "bar"', field: '.metadata.labels.app' },
      { reason: 'FieldManagerConflict', message: 'conflict with "foo" using v1 at 2001-02-03T04:05:06Z', field: '.spec.containers[name="c"].image' },
    ]);
  });

  test('a subresource is named', () => {
    const err = applyConflictError([{ manager: '{"manager":"foo","operation":"Update","apiVersion":"v1","subresource":"scale"}', path: path('spec', 'replicas') }]);
    assert.equal(err.status.message, 'Apply failed with 1 conflict: conflict with "foo" with subresource "scale" using v1: .spec.replicas');
  });

  test('an identifier that is not JSON is quoted as it is', () => {
    assert.equal(printManager('not json'), '"not json"');
  });

  test('a manager name with characters Go does not print has them escaped', () => {
    assert.equal(printManager('{"manager":"bot\u200b","operation":"Apply"}'), '"bot\\u200b"');
  });
});

describe('resetting managedFields (isResetManagedFields)', () => {
  test('an empty list or one empty entry resets; absent or null does not', () => {
    assert.equal(isResetManagedFields([]), true);
    assert.equal(isResetManagedFields([{}]), true);
    assert.equal(isResetManagedFields([{ manager: '', time: null }]), true);
    assert.equal(isResetManagedFields(undefined), false);
    assert.equal(isResetManagedFields(null), false);
    assert.equal(isResetManagedFields([{ manager: 'a' }]), false);
    assert.equal(isResetManagedFields([{ fieldsV1: {} }]), false);
    assert.equal(isResetManagedFields([{}, {}]), false);
  });
});

describe("Go's JSON", () => {
  test('maps are written with sorted keys and HTML characters escaped', () => {
    assert.equal(goJsonMarshal({ b: 1, a: ['<x>', 1e21, 1e-7, 2.5, true, null], c: { z: 'é', y: '&' } }), '{"a":["\\u003cx\\u003e",1e+21,1e-07,2.5,true,null],"b":1,"c":{"y":"\\u0026","z":"é"}}');
  });

  test('strings compare byte-wise', () => {
    // U+FF21 sorts after U+1F600 in UTF-16 order (the emoji is a surrogate pair) but before it in UTF-8.
    assert.ok(compareGoStrings('\uFF21', '\u{1F600}') < 0);
    assert.ok(compareGoStrings('a', 'b') < 0);
  });
});
