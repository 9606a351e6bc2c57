import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JsonValue } from '../../src/ssa/fieldpath/path-element.ts';
import { valueToString } from '../../src/ssa/fieldpath/path-string.ts';
import { compareValues, valuesEqual } from '../../src/ssa/fieldpath/value-order.ts';

// Upstream value/less_test.go TestValueLess (its floats and ints are both JS numbers): a < b, or equal.
const table: [string, JsonValue, JsonValue, boolean][] = [
  ['Float-1', 1.14, 3.14, false],
  ['Float-2', 1.0, 1.0, true],
  ['Float-4', 1.0, 2, false],
  ['Float-5', 1.0, 'aoeu', false],
  ['Float-6', 1.0, true, false],
  ['Float-7', 1.0, [], false],
  ['Float-8', 1.0, {}, false],
  ['Float-9', 1.0, null, false],
  ['Int-1', 1, 2, false],
  ['Int-5', 1, 'aoeu', false],
  ['Int-6', 1, true, false],
  ['Int-7', 1, [], false],
  ['Int-8', 1, {}, false],
  ['Int-9', 1, null, false],
  ['String-1', 'b-12', 'b-9', false],
  ['String-2', 'folate', 'folate', true],
  ['String-3', 'folate', true, false],
  ['String-4', 'folate', [], false],
  ['String-5', 'folate', {}, false],
  ['String-6', 'folate', null, false],
  ['Bool-1', false, true, false],
  ['Bool-2', false, false, true],
  ['Bool-3', true, true, true],
  ['Bool-4', false, [], false],
  ['Bool-5', false, {}, false],
  ['Bool-6', false, null, false],
  ['List-1', [], [], true],
  ['List-2', [1], [1], true],
  ['List-3', [1], [2], false],
  ['List-4', [1], [1, 1], false],
  ['List-5', [1, 1], [2], false],
  ['List-6', [], {}, false],
  ['List-7', [], null, false],
  ['Map-1', { carotine: 1 }, { carotine: 1 }, true],
  ['Map-2', { carotine: 1 }, { carotine: 2 }, false],
  ['Map-3', { carotine: 1 }, { ethanol: 1 }, false],
  ['Map-4', { carotine: 1 }, { ethanol: 1, carotine: 2 }, false],
  ['Map-5', { carotine: 1 }, { carotine: 1, ethanol: 1 }, false],
  ['Map-6', { carotine: 1, ethanol: 1 }, { carotine: 2 }, false],
  ['Map-7', {}, null, false],
  ['Null', null, null, true],
  ['Negative', -1, 0, false],
  ['Big', 9007199254740991, 1e300, false],
];

for (const [name, a, b, eq] of table) {
  test(`value order: ${name}`, () => {
    assert.equal(compareValues(a, b), eq ? 0 : -1);
    assert.equal(compareValues(b, a), eq ? 0 : 1);
    assert.equal(valuesEqual(a, b), eq);
    assert.equal(valuesEqual(b, a), eq);
  });
}

test('maps compare by the union of their keys in order, the map with the smaller missing key greater', () => {
  // {a, c} against {b}: at "a" the right map lacks the key, so the left one is the lesser.
  assert.equal(compareValues({ a: 1, c: 1 }, { b: 1 }), -1);
  assert.equal(compareValues({ b: 1 }, { a: 1, c: 1 }), 1);
  assert.equal(compareValues({ z: 1 }, { a: 1, z: 1 }), 1);
  // Once as many keys were visited as the left map has, the left map is the lesser; the check comes
  // before the one for a missing key, which alone would make {a} the greater here.
  assert.equal(compareValues({ a: 1 }, { a: 1, b: 1 }), -1);
  assert.equal(compareValues({ a: 1, b: 1 }, { a: 1 }), 1);
});

test('equality of maps ignores key order and tells a missing key from null', () => {
  assert.ok(valuesEqual({ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 }));
  assert.ok(!valuesEqual({ a: null }, { b: null }));
  assert.ok(!valuesEqual([1, 2], [1, 2, 3]));
  assert.ok(!valuesEqual({}, []));
});

test('strings inside values order by UTF-8 bytes', () => {
  assert.equal(compareValues('\ue000', '\u{1f600}'), -1);
  assert.equal(compareValues('\u{1f600}', '\uffff'), 1);
});

test('valueToString prints as upstream value.ToString', () => {
  assert.equal(valueToString(null), 'null');
  assert.equal(valueToString(true), 'true');
  assert.equal(valueToString(42), '42');
  assert.equal(valueToString(1e19), '1e+19');
  assert.equal(valueToString('x'), '"x"');
  assert.equal(valueToString([1, 'a', [false]]), '[1,"a",[false]]');
  assert.equal(valueToString({ b: 2, a: 'x' }), 'a="x"b=2');
});
