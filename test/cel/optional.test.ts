import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileErrorOf, evalErrorOf, value } from './helpers.ts';

const object = { metadata: { name: 'x', labels: { app: 'web' } }, spec: { replicas: 3, list: [1, 2] } };

// cel-go's optional library (OptionalTypes, the latest version as Kubernetes enables it).
const TRUE = [
  `object.?spec.?replicas.orValue(1) == 3`,
  `object.?spec.?missing.orValue(1) == 1`,
  `object.?missing.?deeper.orValue('none') == 'none'`,
  `!object.?missing.hasValue()`,
  `object.?spec.replicas.value() == 3`,
  `object.?metadata.labels['app'].value() == 'web'`,
  `object.?metadata.labels[?'nope'].orValue('-') == '-'`,
  `object.spec.?list[1].value() == 2`,
  `object.spec.list[?5].orValue(0) == 0`,
  `optional.of(1).value() == 1`,
  `optional.none().orValue(2) == 2`,
  `optional.of(1).or(optional.of(2)) == optional.of(1)`,
  `optional.none().or(optional.of(2)) == optional.of(2)`,
  `optional.ofNonZeroValue(0) == optional.none()`,
  `optional.ofNonZeroValue('') == optional.none()`,
  `optional.ofNonZeroValue([1]) == optional.of([1])`,
  `optional.of(2).optMap(x, x * 2) == optional.of(4)`,
  `optional.none().optMap(x, x * 2) == optional.none()`,
  `optional.of(2).optFlatMap(x, x > 1 ? optional.of(x) : optional.none()) == optional.of(2)`,
  `optional.of(1).or(optional.of(1 / 0)).value() == 1`,
  `optional.of(1).orValue(1 / 0) == 1`,
  `[?optional.of(1), ?optional.none(), 3] == [1, 3]`,
  `[?object.?spec.?replicas] == [3]`,
  `{'a': 1, ?'b': optional.none(), ?'c': optional.of(3)} == {'a': 1, 'c': 3}`,
  `size({?'b': object.?nope}) == 0`,
];

for (const expr of TRUE) test(`optional: ${expr}`, () => assert.equal(value(expr, { object }), true));

test('optional: value() of none fails as cel-go', () => {
  assert.equal(evalErrorOf(`optional.none().value()`), 'optional.none() dereference');
});

test('optional: an optional entry must be optional', () => {
  assert.match(compileErrorOf(`[?1]`), /expected type 'optional_type\(int\)' but found 'int'/);
});
