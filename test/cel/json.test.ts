import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CelEvalError, fromCel, JsonMap, LazyVariables, toCel, unorderedList, type CelValue, type MapKey } from '../../src/cel/index.ts';
import { env, evalErrorOf, value } from './helpers.ts';

test('json: numbers become int when integral, double otherwise; objects are wrapped, not copied', () => {
  assert.equal(toCel(3), 3n);
  assert.equal(toCel(2.5), 2.5);
  assert.equal(toCel(null), null);
  assert.equal(toCel(undefined), null);
  const raw = { a: { b: [1, { c: 2 }] } };
  const m = toCel(raw);
  assert.ok(m instanceof JsonMap);
  assert.equal((m as JsonMap).raw, raw);
  assert.equal(fromCel(m), raw);
});

test('json: values back to JSON', () => {
  assert.deepEqual(value(`{'a': dyn([dyn(1), dyn(2.5), dyn('x'), dyn(null), dyn(true)]), 'b': dyn({'c': duration('90s')})}`), { a: [1, 2.5, 'x', null, true], b: { c: '90s' } });
  assert.equal(value(`timestamp('2023-01-01T00:00:00Z')`), '2023-01-01T00:00:00Z');
  assert.equal(value(`b'hi'`), 'aGk=');
  assert.equal(value(`3u`), 3);
});

test('json: reading a missing field is upstream\'s "no such key"', () => {
  assert.equal(evalErrorOf(`object.metadata.annotations['x']`, { object: { metadata: {} } }), 'no such key: annotations');
});

test('variables: resolved lazily, once, their errors surfacing where they are read', () => {
  let calls = 0;
  const resolver = (name: string) => {
    calls++;
    if (name === 'isProd') return true;
    throw new CelEvalError(`composited variable "${name}" fails to evaluate: boom`);
  };
  const p = env.compile(`variables.isProd && variables.isProd`);
  const r = p.evaluate({ variables: resolver });
  assert.deepEqual(r, { value: true, cost: 4 });
  assert.equal(calls, 1);
  assert.deepEqual(p.variableRefs, ['isProd']);
  const lazy = new LazyVariables(new Set(['isProd']), () => {
    throw new CelEvalError('composited variable "isProd" fails to evaluate: boom');
  });
  assert.deepEqual(env.compile(`variables.isProd`).evaluate({ variables: lazy }), { error: 'composited variable "isProd" fails to evaluate: boom', cost: 2 });
  assert.equal(value(`variables.isProd`, { variables: { isProd: false } }), false);
});

test('unordered lists: x-kubernetes-list-type set and map compare without order and merge on +', () => {
  const a = unorderedList([1n, 2n], 'set');
  assert.equal(value(`object.a == [2, 1]`, { object: new Map([['a', a]]) }), true);
  assert.deepEqual(value(`object.a + [2, 3]`, { object: new Map([['a', a]]) }), [1, 2, 3]);
  const entry = (k: string, v: bigint) => new Map<MapKey, CelValue>([['k', k], ['v', v]]);
  const m = unorderedList([entry('x', 1n), entry('y', 2n)], { mapKeys: ['k'] });
  assert.deepEqual(value(`object.m + [{'k': dyn('x'), 'v': dyn(9)}, {'k': dyn('z'), 'v': dyn(3)}]`, { object: new Map([['m', m]]) }), [{ k: 'x', v: 9 }, { k: 'y', v: 2 }, { k: 'z', v: 3 }]);
  assert.equal(value(`[1, 2] == [2, 1]`), false);
});
