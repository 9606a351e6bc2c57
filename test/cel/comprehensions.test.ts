import assert from 'node:assert/strict';
import { test } from 'node:test';
import { evalErrorOf, value } from './helpers.ts';

// The standard macros and the two-variable comprehensions (ext/comprehensions.go), including how
// errors inside them propagate (cel-go's expansions: all/exists let a decisive element outweigh an
// earlier error; the rest fail with the first error).
const TRUE = [
  `[1, 2, 3].all(x, x > 0)`,
  `![1, 2, 3].all(x, x > 1)`,
  `[1, 2, 3].exists(x, x == 2)`,
  `![1, 2, 3].exists(x, x == 5)`,
  `[1, 2, 3].exists_one(x, x == 2)`,
  `![1, 2, 2].exists_one(x, x == 2)`,
  `[1, 2, 3].existsOne(x, x > 2)`,
  `[1, 2, 3].map(x, x * 2) == [2, 4, 6]`,
  `[1, 2, 3].map(x, x > 1, x * 2) == [4, 6]`,
  `[1, 2, 3].filter(x, x != 2) == [1, 3]`,
  `{'a': 1, 'b': 2}.all(k, k.size() == 1)`,
  `{'a': 1, 'b': 2}.map(k, k) == ['a', 'b']`,
  `{'a': 1, 'b': 2}.filter(k, k == 'b') == ['b']`,
  `[[1, 2], [3]].all(l, l.all(x, x > 0))`,
  `[1, 2].all(x, [3, 4].exists(y, y > x))`,
  `['a', 'b'].all(i, v, i < 2 && v.size() == 1)`,
  `['a', 'b'].exists(i, v, i == 1 && v == 'b')`,
  `['a', 'b'].existsOne(i, v, v == 'a')`,
  `['a', 'b'].exists_one(i, v, i == 0)`,
  `{'a': 1, 'b': 2}.all(k, v, v > 0 && k != '')`,
  `['a', 'b'].transformList(i, v, v + string(i)) == ['a0', 'b1']`,
  `['a', 'b', 'c'].transformList(i, v, i != 1, v) == ['a', 'c']`,
  `{'a': 1, 'b': 2}.transformList(k, v, k + string(v)) == ['a1', 'b2']`,
  `['a', 'b'].transformMap(i, v, v) == {0: 'a', 1: 'b'}`,
  `{'a': 1, 'b': 2}.transformMap(k, v, v * 10) == {'a': 10, 'b': 20}`,
  `{'a': 1, 'b': 2}.transformMap(k, v, v > 1, v * 10) == {'b': 20}`,
  `{'a': 1, 'b': 2}.transformMapEntry(k, v, {v: k}) == {1: 'a', 2: 'b'}`,
  `['x', 'y'].transformMapEntry(i, v, {v: i}) == {'x': 0, 'y': 1}`,
  `[1, 2].map(x, [1, 2].map(y, x * y)) == [[1, 2], [2, 4]]`,
  // A later decisive element outweighs an earlier error.
  `![1, 0].all(x, 1 / x > 2)`,
  `[0, 1].exists(x, 1 / x == 1)`,
];

for (const expr of TRUE) test(`comprehension: ${expr}`, () => assert.equal(value(expr), true));

const ERRORS: [string, string][] = [
  [`[0, 1].all(x, 1 / x > 0)`, 'division by zero'],
  [`[0, 1].exists(x, 1 / x > 5)`, 'division by zero'],
  [`[0, 1].exists_one(x, 1 / x == 1)`, 'division by zero'],
  [`[1, 0].map(x, 1 / x)`, 'division by zero'],
  [`[1, 0].filter(x, 1 / x > 0)`, 'division by zero'],
  [`[1, 2].all(x, dyn(x))`, 'no such overload'],
  [`{'a': 1, 'b': 1}.transformMapEntry(k, v, {v: k})`, 'insert failed: key 1 already exists'],
  [`dyn('abc').all(x, true)`, "got 'types.String', expected iterable type"],
];

for (const [expr, err] of ERRORS) test(`comprehension error: ${expr}`, () => assert.equal(evalErrorOf(expr), err));

test('comprehension: over JSON objects and arrays from storage', () => {
  const object = { spec: { containers: [{ name: 'a', ports: [{ containerPort: 80 }] }, { name: 'b', ports: [] }] }, metadata: { labels: { app: 'web', tier: 'fe' } } };
  assert.equal(value(`object.spec.containers.all(c, c.ports.all(p, p.containerPort < 1024))`, { object }), true);
  assert.deepEqual(value(`object.spec.containers.map(c, c.name)`, { object }), ['a', 'b']);
  assert.equal(value(`object.metadata.labels.exists(k, v, k == 'tier' && v == 'fe')`, { object }), true);
  assert.deepEqual(value(`object.metadata.labels.transformMap(k, v, v.upperAscii())`, { object }), { app: 'WEB', tier: 'FE' });
});

test('comprehension: iteration variables shadow declared variables', () => {
  assert.equal(value(`[1, 2].all(object, object > 0)`, { object: 'ignored' }), true);
});
