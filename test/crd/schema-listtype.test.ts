import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fieldErrorText, type FieldError } from '../../src/api/errors.ts';
import { validateListSetsAndMaps } from '../../src/crd/schema/listtype.ts';
import type { Structural } from '../../src/crd/schema/structural.ts';
import { st } from './schema-fixtures.ts';

const text = (e: FieldError) => `${e.field}: ${fieldErrorText(e)}`;
const set = (items: Structural = st()) => st({ type: 'array', xListType: 'set', items });
const mapList = (keys: string[]) => st({ type: 'array', xListType: 'map', xListMapKeys: keys, items: st({ type: 'object' }) });
const run = (s: Structural | undefined, obj: unknown) => validateListSetsAndMaps('root', s, obj).map((e) => `${e.type} ${e.field}`).sort();

// listtype/validation_test.go (TestValidateListSetsAndMaps)
test('list types: nothing to check', () => {
  assert.deepEqual(run(undefined, undefined), []);
  assert.deepEqual(run(undefined, {}), []);
  assert.deepEqual(run(st(), undefined), []);
  assert.deepEqual(run(undefined, { array: ['a', 'b', 'a'] }), []);
  assert.deepEqual(run(st({ type: 'object', properties: { array: st({ type: 'array' }) } }), { array: ['a', 'b', 'a'] }), []);
  assert.deepEqual(run(st({ type: 'object', properties: { array: st({ type: 'array', items: st() }) } }), { array: ['a', 'b', 'a'] }), []);
});

test('list types: sets report each duplicate once, at its second appearance', () => {
  const s = st({ type: 'object', properties: { array: set() } });
  assert.deepEqual(run(s, { array: ['a'] }), []);
  assert.deepEqual(run(s, { array: ['a', 'a'] }), ['FieldValueDuplicate root.array[1]']);
  assert.deepEqual(run(s, { array: ['a', 'b'] }), []);
  assert.deepEqual(run(s, { array: ['a', 'a', 'b', 'c', 'd', 'c'] }), ['FieldValueDuplicate root.array[1]', 'FieldValueDuplicate root.array[5]']);
  assert.deepEqual(validateListSetsAndMaps('root', s, { array: ['a', 'a', 'a'] }).map(text), ['root.array[1]: Duplicate value: "a"']);
});

test('list types: sets under additionalProperties and items, and nested sets', () => {
  const under = st({ type: 'object', properties: { m: st({ type: 'object', additionalProperties: { bool: true, structural: set() } }), l: st({ type: 'array', items: set() }) } });
  assert.deepEqual(run(under, { m: { x: ['a', 'a'] }, l: [['b'], ['c', 'c']] }), ['FieldValueDuplicate root.l[1][1]', 'FieldValueDuplicate root.m[x][1]']);
  const nested = st({ type: 'object', properties: { array: set(set()) } });
  assert.deepEqual(run(nested, { array: [['a', 'a'], ['b'], ['a', 'a']] }), ['FieldValueDuplicate root.array[0][1]', 'FieldValueDuplicate root.array[2]', 'FieldValueDuplicate root.array[2][1]']);
});

test('list types: sets of compound values compare by JSON', () => {
  const s = st({
    type: 'object',
    properties: Object.fromEntries(['strings', 'integers', 'booleans', 'float64', 'nil', 'empty maps', 'map values', 'nil values', 'array', 'nil array', 'multiple duplicates'].map((k) => [k, set()])),
  });
  const obj = {
    strings: ['a', 'b', 'a'],
    integers: [1, 2, 1],
    booleans: [false, true, true],
    float64: [1.5, 2.5, 2.5],
    nil: ['a', null, null],
    'empty maps': [{ a: 'b' }, {}, {}],
    'map values': [{ a: 'b' }, { a: 'c' }, { a: 'b' }],
    'nil values': [{ a: null }, { b: 'c', a: null }],
    array: [[], ['a'], ['b'], ['a']],
    'nil array': [[], [null], [null, null], [null], ['a']],
    'multiple duplicates': [{ a: 'b' }, { a: 'c' }, { a: 'b' }, { a: 'c' }, { a: 'c' }],
  };
  assert.deepEqual(
    run(s, obj),
    [
      'strings[2]',
      'integers[2]',
      'booleans[2]',
      'float64[2]',
      'nil[2]',
      'empty maps[2]',
      'map values[2]',
      'array[3]',
      'nil array[3]',
      'multiple duplicates[2]',
      'multiple duplicates[3]',
    ]
      .map((p) => `FieldValueDuplicate root.${p}`)
      .sort(),
  );
  // Key order inside objects does not matter.
  assert.deepEqual(run(st({ type: 'object', properties: { s: set() } }), { s: [{ a: 1, b: 2 }, { b: 2, a: 1 }] }), ['FieldValueDuplicate root.s[1]']);
});

test('list types: map lists hold objects with unique keys', () => {
  const s = st({
    type: 'object',
    properties: {
      strings: mapList(['a']),
      nil: mapList(['a']),
      'one key': mapList(['a']),
      'two keys': mapList(['a', 'b']),
      'undefined key': mapList(['a', 'b']),
      'nil key': mapList(['a']),
      'nil item': mapList(['a']),
      'compound key': mapList(['a']),
    },
  });
  const obj = {
    strings: ['a'],
    nil: [null],
    'one key': [{ a: '0', c: '2' }, { a: '1', c: '1' }, { a: '1', c: '2' }, {}],
    'two keys': [{ a: '1', b: '1', c: '1' }, { a: '1', b: '2', c: '2' }, { a: '1', b: '2', c: '3' }, {}],
    'undefined key': [{ a: '1', b: '1', c: '1' }, { a: '1', c: '2' }, { a: '1', c: '3' }, {}],
    'nil key': [{ a: [], c: '1' }, { a: null, c: '1' }, { c: '1' }, { a: null }],
    'nil item': [null, { a: '0', c: '1' }, { a: null }, { c: '1' }],
    'compound key': [{ a: [], c: '1' }, { a: null, c: '1' }, { a: ['a'], c: '1' }, { a: ['a', 42], c: '2' }, { a: ['a', 42], c: ['3'] }],
  };
  const errs = validateListSetsAndMaps('root', s, obj);
  assert.deepEqual(
    errs.map((e) => `${e.type} ${e.field}`).sort(),
    [
      'FieldValueInvalid root.strings[0]',
      'FieldValueDuplicate root.one key[2]',
      'FieldValueDuplicate root.two keys[2]',
      'FieldValueDuplicate root.undefined key[2]',
      'FieldValueDuplicate root.nil key[3]',
      'FieldValueDuplicate root.nil item[3]',
      'FieldValueDuplicate root.compound key[4]',
    ].sort(),
  );
  const t = errs.map(text);
  assert.ok(t.includes('root.strings[0]: Invalid value: "a": must be an object for an array of list-type map'));
  assert.ok(t.includes('root.one key[2]: Duplicate value: {"a":"1"}'));
  assert.ok(t.includes('root.two keys[2]: Duplicate value: {"a":"1","b":"2"}'));
  assert.ok(t.includes('root.nil item[3]: Duplicate value: {}'));
});
