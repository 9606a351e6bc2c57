import assert from 'node:assert/strict';
import { test } from 'node:test';
import { admissionEnvironment } from '../../src/cel/index.ts';
import { compileErrorOf, evalErrorOf, value } from './helpers.ts';

// Kubernetes' lists library (isSorted, sum, min, max, indexOf, lastIndexOf).
const K8S_TRUE = [
  `[1, 2, 3].isSorted()`,
  `!['a', 'c', 'b'].isSorted()`,
  `[duration('1s'), duration('2s')].isSorted()`,
  `[].isSorted()`,
  `[1, 2, 3].sum() == 6`,
  `[1.5, 2.5].sum() == 4.0`,
  `[uint(1), uint(2)].sum() == uint(3)`,
  `[duration('1s'), duration('2m')].sum() == duration('121s')`,
  `[].sum() == 0`,
  `[3, 1, 2].min() == 1`,
  `[3, 1, 2].max() == 3`,
  `['b', 'a', 'c'].max() == 'c'`,
  `[b'b', b'a'].min() == b'a'`,
  `[timestamp('2023-01-01T00:00:00Z'), timestamp('2022-01-01T00:00:00Z')].min() == timestamp('2022-01-01T00:00:00Z')`,
  `[1, 2, 2, 3].indexOf(2) == 1`,
  `[1, 2, 2, 3].lastIndexOf(2) == 2`,
  `['a', 'b', 'b', 'c'].lastIndexOf('b') == 2`,
  `[1, 2].indexOf(5) == -1`,
  `[[1], [2]].indexOf([2]) == 1`,
];

for (const expr of K8S_TRUE) test(`lists: ${expr}`, () => assert.equal(value(expr), true));

test('lists: min and max of an empty list fail as upstream', () => {
  assert.equal(evalErrorOf(`[].min()`), 'min called on empty list');
  assert.equal(evalErrorOf(`[].max()`), 'max called on empty list');
});

test('lists: a dyn list picks its overload by its first element (cel-go runtime guards)', () => {
  assert.equal(value(`object.l.sum()`, { object: { l: [1.5, 2.5] } }), 4);
  assert.equal(value(`object.l.sum()`, { object: { l: [1, 2] } }), 3);
  // The int overload is chosen by the first element; adding a double to an int has no overload.
  assert.equal(evalErrorOf(`object.l.sum()`, { object: { l: [1, 2.5] } }), 'no such overload');
  assert.equal(evalErrorOf(`object.l.sum()`, { object: { l: ['a'] } }), 'no such overload: sum(list)');
});

// cel-go's lists extension at version 3 (cases from ext/lists_test.go); added in 1.34, so stored
// expressions only. Mixed-type literals of the upstream cases come from JSON here, as Kubernetes'
// homogeneous literal check refuses them.
const EXT_TRUE = [
  `lists.range(4) == [0,1,2,3]`,
  `lists.range(0) == []`,
  `[5,1,2,3].reverse() == [3,2,1,5]`,
  `[].reverse() == []`,
  `[1].reverse() == [1]`,
  `['are', 'you', 'as', 'bored', 'as', 'I', 'am'].reverse() == ['am', 'I', 'as', 'bored', 'as', 'you', 'are']`,
  `[false, true, true].reverse().reverse() == [false, true, true]`,
  `[1,2,3,4].slice(0, 4) == [1,2,3,4]`,
  `[1,2,3,4].slice(0, 0) == []`,
  `[1,2,3,4].slice(1, 1) == []`,
  `[1,2,3,4].slice(4, 4) == []`,
  `[1,2,3,4].slice(1, 3) == [2, 3]`,
  `dyn([]).flatten() == []`,
  `dyn([1,2,3,4]).flatten() == [1,2,3,4]`,
  `[[1, 2], [], [], [3, 4]].flatten() == [1,2,3,4]`,
  `[].sort() == []`,
  `[1].sort() == [1]`,
  `[4, 3, 2, 1].sort() == [1, 2, 3, 4]`,
  `["d", "a", "b", "c"].sort() == ["a", "b", "c", "d"]`,
  `[].sortBy(e, e) == []`,
  `["a"].sortBy(e, e) == ["a"]`,
  `[-3, 1, -5, -2, 4].sortBy(e, -(e * e)) == [-5, 4, -3, -2, 1]`,
  `[-3, 1, -5, -2, 4].map(e, e * 2).sortBy(e, -(e * e)) == [-10, 8, -6, -4, 2]`,
  `lists.range(3).sortBy(e, -e) == [2, 1, 0]`,
  `["a", "c", "b", "first"].sortBy(e, e == "first" ? "" : e) == ["first", "a", "b", "c"]`,
  `[{'x':4}, {'x':3}].sortBy(m, m['x']) == [{'x':3}, {'x':4}]`,
  `[].distinct() == []`,
  `[1].distinct() == [1]`,
  `[-2, 5, -2, 1, 1, 5, -2, 1].distinct() == [-2, 5, 1]`,
  `['c', 'a', 'a', 'b', 'a', 'b', 'c', 'c'].distinct() == ['c', 'a', 'b']`,
  `[[1], [1], [2]].distinct() == [[1], [2]]`,
];

for (const expr of EXT_TRUE) test(`lists extension: ${expr}`, () => assert.equal(value(expr), true));

const EXT_JSON: [string, unknown, unknown][] = [
  ['object.l.flatten()', [1, [2, [3, 4]]], [1, 2, [3, 4]]],
  ['object.l.flatten(2)', [1, [2, [3, 4]]], [1, 2, 3, 4]],
  ['object.l.distinct()', [1, 2.5, 'c', 3, 'c', 1], [1, 2.5, 'c', 3]],
  ['object.l.distinct()', [1, 1.0, 2], [1, 2]],
];
for (const [expr, l, want] of EXT_JSON) test(`lists extension on JSON: ${expr} of ${JSON.stringify(l)}`, () => assert.deepEqual(value(expr, { object: { l } }), want));

const EXT_ERRORS: [string, string, unknown?][] = [
  [`[1,2,3,4].slice(3, 0)`, 'cannot slice(3, 0), start index must be less than or equal to end index'],
  [`[1,2,3,4].slice(0, 10)`, 'cannot slice(0, 10), list is length 4'],
  [`[1,2,3,4].slice(-5, 10)`, 'cannot slice(-5, 10), negative indexes not supported'],
  [`[1,2,3,4].slice(-5, -3)`, 'cannot slice(-5, -3), negative indexes not supported'],
  [`[].flatten(-1)`, 'level must be non-negative'],
  [`dyn({}).flatten()`, 'no such overload: map.flatten()'],
  [`dyn({}).flatten(0)`, 'no such overload: map.flatten(int)'],
  [`[].flatten(dyn('1'))`, 'no such overload: list.flatten(string)'],
  [`object.l.sort()`, 'list elements must have the same type', ['d', 3, 2, 'c']],
];
for (const [expr, err, l] of EXT_ERRORS) test(`lists extension error: ${expr}`, () => assert.equal(evalErrorOf(expr, { object: { l } }), err));

test('lists extension: a newly written expression cannot use it (1.34 compiles new expressions as 1.33)', () => {
  const fresh = admissionEnvironment({ params: false, authorizer: false, compatibility: 'new' });
  const msg = compileErrorOf(`lists.range(3).size() == 3`, fresh);
  assert.match(msg, /undeclared reference to 'lists' \(in container ''\)/);
  assert.match(msg, /undeclared reference to 'range' \(in container ''\)/);
  assert.match(compileErrorOf(`[2, 1].sortBy(x, x) == [1, 2]`, fresh), /undeclared reference to 'sortBy'/);
  assert.match(compileErrorOf(`[2, 1].reverse() == [1, 2]`, fresh), /undeclared reference to 'reverse'/);
});

// The optional library's list functions.
const OPTIONAL_TRUE = [
  `[1, 2, 3].first() == optional.of(1)`,
  `[1, 2, 3].last() == optional.of(3)`,
  `[].first() == optional.none()`,
  `!dyn([]).last().hasValue()`,
  `optional.unwrap([optional.of(1), optional.none()]) == [1]`,
  `[optional.of(1), optional.none(), optional.of(3)].unwrapOpt() == [1, 3]`,
];
for (const expr of OPTIONAL_TRUE) test(`optional lists: ${expr}`, () => assert.equal(value(expr), true));
