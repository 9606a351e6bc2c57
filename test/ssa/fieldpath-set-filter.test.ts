import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FieldSet } from '../../src/ssa/fieldpath/field-set.ts';
import { fieldElement, keyElement, pathString, valueElement, type PathElement } from '../../src/ssa/fieldpath/path-element.ts';
import {
  excludeFilter,
  includeMatcherFilter,
  matchAnyPathElement,
  prefixMatcher,
  type FieldSetFilter,
  type PathElementMatcher,
} from '../../src/ssa/fieldpath/set-filter.ts';
import { element, P, set } from './fixtures.ts';

type Part = string | number | PathElement | PathElementMatcher;
const matcher = (...parts: Part[]) =>
  prefixMatcher(...parts.map((p) => (typeof p === 'object' && 'wildcard' in p ? p : element(p))));
const any = matchAnyPathElement();
const listMapKey = keyElement([['key1', 'value1'], ['key2', 'value2']]);

// Container resize fields: each lies under the first case's pattern or leads to it, so that filter keeps them all.
const resizeFields = (): FieldSet =>
  set(
    P('spec'),
    P('spec', 'containers'),
    P('spec', 'containers', 0),
    P('spec', 'containers', 0, 'resources'),
    P('spec', 'containers', 0, 'resources', 'limits'),
    P('spec', 'containers', 0, 'resources', 'limits', 'cpu'),
    P('spec', 'containers', 0, 'resources', 'claims', 1, 'name'),
    P('spec', 'containers', 1),
    P('spec', 'containers', 1, 'resources', 'limits', 'cpu'),
  );

// Upstream set_test.go TestFilterByPattern.
const cases: [string, FieldSet, FieldSetFilter, FieldSet][] = [
  [
    'container resize fields: exact match',
    resizeFields(),
    includeMatcherFilter(matcher('spec', 'containers', any, 'resources')),
    resizeFields(),
  ],
  [
    'container resize fields: filter status and metadata',
    set(P('spec'), P('status'), P('metadata')),
    includeMatcherFilter(matcher('spec', 'containers', any, 'resources')),
    set(P('spec')),
  ],
  [
    'container resize fields: filter non-container spec fields',
    set(P('spec'), P('spec', 'volumes'), P('spec', 'hostNetwork')),
    includeMatcherFilter(matcher('spec', 'containers', any, 'resources')),
    set(P('spec')),
  ],
  [
    'container resize fields: filter non-resource container fields',
    set(P('spec'), P('spec', 'containers'), P('spec', 'containers', 0), P('spec', 'containers', 0, 'image'), P('spec', 'containers', 0, 'workingDir'), P('spec', 'containers', 0, 'resources')),
    includeMatcherFilter(matcher('spec', 'containers', any, 'resources')),
    set(P('spec'), P('spec', 'containers'), P('spec', 'containers', 0), P('spec', 'containers', 0, 'resources')),
  ],
  [
    'filter listMap key',
    set(
      P('spec'),
      P('spec', 'listMap', listMapKey),
      P('spec', 'listMap', listMapKey, 'field'),
      P('spec', 'listMap', keyElement([['key1', 'valueX'], ['key2', 'valueY']]), 'field'),
    ),
    includeMatcherFilter(matcher('spec', 'listMap', listMapKey)),
    set(P('spec'), P('spec', 'listMap', listMapKey), P('spec', 'listMap', listMapKey, 'field')),
  ],
  [
    'filter value',
    set(P('spec'), P('spec', 'set', valueElement('v1')), P('spec', 'set', valueElement('v2'))),
    includeMatcherFilter(matcher('spec', 'set', valueElement('v1'))),
    set(P('spec'), P('spec', 'set', valueElement('v1'))),
  ],
  [
    'filter by index',
    set(P('spec'), P('spec', 'list'), P('spec', 'list', 0), P('spec', 'list', 0, 'value'), P('spec', 'list', 1), P('spec', 'list', 1, 'value')),
    includeMatcherFilter(matcher('spec', 'list', 1, 'value')),
    set(P('spec'), P('spec', 'list'), P('spec', 'list', 1), P('spec', 'list', 1, 'value')),
  ],
  [
    'multiple index matchers',
    set(P('spec', 'list', 0, 'value'), P('spec', 'list', 1, 'value'), P('spec', 'list', 2, 'value')),
    includeMatcherFilter(matcher('spec', 'list', 0, 'value'), matcher('spec', 'list', 1, 'value')),
    set(P('spec', 'list', 0, 'value'), P('spec', 'list', 1, 'value')),
  ],
  [
    'multiple field matchers',
    set(P('spec'), P('spec', 'f1'), P('spec', 'f1', 'f11'), P('spec', 'f2'), P('spec', 'f2', 'f21'), P('spec', 'f3'), P('spec', 'f3', 'f31')),
    includeMatcherFilter(matcher('spec', 'f1'), matcher('spec', 'f3')),
    set(P('spec'), P('spec', 'f1'), P('spec', 'f1', 'f11'), P('spec', 'f3'), P('spec', 'f3', 'f31')),
  ],
  [
    'wildcard takes precedence',
    set(P('spec', 'list', 0, 'f1'), P('spec', 'list', 0, 'f2'), P('spec', 'list', 1, 'f1'), P('spec', 'list', 1, 'f2'), P('spec', 'list', 2, 'f1')),
    includeMatcherFilter(matcher('spec', 'list', any, 'f1'), matcher('spec', 'list', 1, 'f2')),
    set(P('spec', 'list', 0, 'f1'), P('spec', 'list', 1, 'f1'), P('spec', 'list', 2, 'f1')),
  ],
  [
    'no matchers keep everything',
    set(P('a'), P('b', 'c')),
    includeMatcherFilter(),
    set(P('a'), P('b', 'c')),
  ],
  [
    'exclude filter removes paths and what is below them',
    set(P('spec', 'a'), P('status'), P('status', 'x', 'y'), P('metadata', 'labels', 'l')),
    excludeFilter(set(P('status'), P('metadata', 'labels'))),
    set(P('spec', 'a')),
  ],
];

for (const [name, input, filter, expected] of cases) {
  test(`filter: ${name}`, () => {
    const got = filter.filter(input);
    assert.ok(got.equals(expected), `expected\n${expected}\ngot\n${got}`);
  });
}

test('as upstream, a second wildcard pattern at the same place is shadowed by the first (the pods/resize filter)', () => {
  const filter = includeMatcherFilter(
    matcher('spec', 'containers', any, 'resources'),
    matcher('spec', 'containers', any, 'resizePolicy'),
  );
  const c = keyElement([['name', 'app']]);
  const got = filter.filter(set(P('spec', 'containers', c, 'resources', 'limits'), P('spec', 'containers', c, 'resizePolicy'), P('spec', 'containers', c, 'image')));
  assert.deepEqual(got.paths().map(pathString), ['.spec.containers[name="app"].resources.limits']);
});

test('as upstream, merging finds an existing pattern only when it is the only one at its level', () => {
  // Alone at the top, "a" is found and its patterns merged.
  const merged = includeMatcherFilter(matcher('a', 'x'), matcher('a', 'z'));
  assert.deepEqual(merged.filter(set(P('a', 'x'), P('a', 'z'))).paths().map(pathString), ['.a.x', '.a.z']);
  // Beside "b" it is not: each is added again, and the first copy wins.
  const filter = includeMatcherFilter(matcher('a', 'x'), matcher('b', 'y'), matcher('a', 'z'), matcher('b', 'w'));
  const got = filter.filter(set(P('a', 'x'), P('a', 'z'), P('b', 'y'), P('b', 'w')));
  assert.deepEqual(got.paths().map(pathString), ['.a.x', '.b.y']);
});

test('a key element with no fields is not a pattern', () => {
  assert.throws(() => prefixMatcher(fieldElement('a'), { kind: 'key', fields: [] }), {
    message: 'associative list key type path elements must have at least one key (got zero)',
  });
});
