import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FieldSet } from '../../src/ssa/fieldpath/field-set.ts';
import { comparePaths, fieldElement, indexElement, pathsEqual, pathString, valueElement, type Path, type PathElement } from '../../src/ssa/fieldpath/path-element.ts';
import { key, P, set } from './fixtures.ts';
const lines = (s: FieldSet) => s.paths().map(pathString);

function assertSetEqual(actual: FieldSet, expected: FieldSet): void {
  assert.ok(actual.equals(expected), `expected\n${expected}\ngot\n${actual}`);
}

// Upstream TestSetInsertHas.
test('insert and has', () => {
  const s1 = set(
    P('foo', 0, 'bar', 'baz'),
    P('foo', 0, 'bar'),
    P('foo', 0),
    P('foo', 1, 'bar', 'baz'),
    P('foo', 1, 'bar'),
    P('qux', key('name', 'first')),
    P('qux', key('name', 'first'), 'bar'),
    P('qux', key('name', 'second'), 'bar'),
    P('canonicalOrder', key('a', 'a', 'b', 'a', 'c', 'a', 'd', 'a', 'e', 'a', 'f', 'a')),
  );
  const table: [Path, boolean][] = [
    [P('qux', key('name', 'second')), false],
    [P('qux', key('name', 'second'), 'bar'), true],
    [P('qux', key('name', 'first')), true],
    [P('xuq', key('name', 'first')), false],
    [P('foo', 0), true],
    [P('foo', 0, 'bar'), true],
    [P('foo', 0, 'bar', 'baz'), true],
    [P('foo', 1), false],
    [P('foo', 1, 'bar'), true],
    [P('foo', 1, 'bar', 'baz'), true],
    [P('canonicalOrder', key('f', 'a', 'e', 'a', 'd', 'a', 'c', 'a', 'b', 'a', 'a', 'a')), true],
  ];
  for (const [path, expected] of table) assert.equal(s1.has(path), expected, pathString(path));
  assert.equal(FieldSet.empty().has([]), false, 'no one owns the whole object');
  assert.equal(set([]).has([]), false);
  assert.ok(set([]).isEmpty(), 'inserting the empty path does nothing');
});

// Upstream TestSetString.
test('a one-path set prints as the path', () => {
  const p = P('foo', key('name', 'first'));
  assert.equal(set(p).toString(), pathString(p));
});

// Upstream TestSetIterSize.
test('iteration visits every path once, and size and isEmpty count them', () => {
  const s1 = set(
    P('foo', 0, 'bar', 'baz'),
    P('foo', 0, 'bar', 'zot'),
    P('foo', 0, 'bar'),
    P('foo', 0),
    P('foo', 1, 'bar', 'baz'),
    P('foo', 1, 'bar'),
    P('qux', key('name', 'first')),
    P('qux', key('name', 'first'), 'bar'),
    P('qux', key('name', 'second'), 'bar'),
  );
  const s2 = FieldSet.empty();
  let added = 0;
  for (const p of s1.paths()) {
    assert.equal(s2.size(), added);
    assert.equal(s2.isEmpty(), added === 0);
    s2.insert(p);
    added++;
  }
  assert.equal(added, 9);
  assertSetEqual(s2, s1);
});

test("paths come in upstream order: a level's members first, then each child in turn", () => {
  const s = set(P('b', 'x'), P('a'), P('c'), P('a', 'y'), P('b'), P('a', 'x', 1), P(valueElement('v')), P(key('k', 1)));
  assert.deepEqual(lines(s), ['.a', '.b', '.c', '[k=1]', '[="v"]', '.a.y', '.a.x[1]', '.b.x']);
});

// Upstream TestSetEquals.
test('equals', () => {
  const table: [FieldSet, FieldSet, boolean][] = [
    [set(P('foo')), set(P('bar')), false],
    [set(P('foo')), set(P('foo')), true],
    [set(), set(P(0, 'foo')), false],
    [set(P(1, 'foo')), set(P(0, 'foo')), false],
    [set(P(1, 'foo')), set(P(1, 'foo', 'bar')), false],
    [set(P(0), P(1)), set(P(1), P(0)), true],
    [set(P('foo', 0), P('foo', 1)), set(P('foo', 1), P('foo', 0)), true],
    [
      set(P('foo', 0), P('foo'), P('bar', 'baz'), P('qux', key('name', 'first'))),
      set(P('foo', 1), P('bar', 'baz'), P('bar'), P('qux', key('name', 'second'))),
      false,
    ],
  ];
  for (const [a, b, equal] of table) {
    assert.equal(a.equals(b), equal, `${a}\n--\n${b}`);
    assert.equal(b.equals(a), equal);
  }
});

// Upstream TestSetUnion.
test('union', () => {
  const s1 = set(P('foo', 0), P('foo'), P('bar', 'baz'), P('qux', key('name', 'first')), P('parent', 'child', 'grandchild'));
  const s2 = set(P('foo', 1), P('bar', 'baz'), P('bar'), P('qux', key('name', 'second')), P('parent', 'child'));
  const u = set(
    P('foo', 0),
    P('foo', 1),
    P('foo'),
    P('bar', 'baz'),
    P('bar'),
    P('qux', key('name', 'first')),
    P('qux', key('name', 'second')),
    P('parent', 'child'),
    P('parent', 'child', 'grandchild'),
  );
  assertSetEqual(s1.union(s2), u);
  assertSetEqual(s2.union(s1), u);
});

// Upstream TestSetIntersectionDifference.
test('intersection and difference', () => {
  const nameFirst = key('name', 'first');
  const s1 = set(P('a0'), P('a1'), P('foo', 0), P('foo', 1), P('b0', nameFirst), P('b1', nameFirst), P('bar', 'c0'), P('cp', nameFirst, 'child'));
  const s2 = set(P('a1'), P('a2'), P('foo', 1), P('foo', 2), P('b1', nameFirst), P('b2', nameFirst), P('bar', 'c2'), P('cp', nameFirst));
  const both = set(P('a1'), P('foo', 1), P('b1', nameFirst));

  assertSetEqual(s1.intersection(s2), both);
  assertSetEqual(s1.difference(s2), set(P('a0'), P('foo', 0), P('b0', nameFirst), P('bar', 'c0'), P('cp', nameFirst, 'child')));
  assertSetEqual(s2.difference(s1), set(P('a2'), P('foo', 2), P('b2', nameFirst), P('bar', 'c2'), P('cp', nameFirst)));
  // Intersection the hard way: the union less what is in only one of them.
  const notBoth = s2.difference(s1).union(s1.difference(s2));
  assertSetEqual(s1.union(s2).difference(notBoth), both);
});

test('intersection and difference leave no empty child behind', () => {
  const a = set(P('x', 'y'), P('z'));
  const b = set(P('x', 'w'), P('x', 'y'));
  assert.deepEqual(lines(a.intersection(set(P('x', 'w')))), []);
  assert.ok(a.intersection(set(P('x', 'w'))).equals(FieldSet.empty()));
  assert.ok(a.difference(b).equals(set(P('z'))));
});

// Upstream TestSetLeaves.
test('leaves', () => {
  const a = key('name', 'a');
  const p = key('name', 'p');
  const table: [string, FieldSet, FieldSet][] = [
    ['empty set', set(), set()],
    ['all leaves', set(P('path1'), P('path2'), P('path3')), set(P('path1'), P('path2'), P('path3'))],
    ['only one leaf', set(P('root'), P('root', 'l1'), P('root', 'l1', 'l2'), P('root', 'l1', 'l2', 'l3')), set(P('root', 'l1', 'l2', 'l3'))],
    [
      'multiple values, check for overwrite',
      set(P('root', a), P('root', a, 'name'), P('root', a, 'value', 'b'), P('root', a, 'value', 'c')),
      set(P('root', a, 'name'), P('root', a, 'value', 'b'), P('root', a, 'value', 'c')),
    ],
    [
      'multiple values and nested',
      set(P('root', a), P('root', a, 'name'), P('root', a, 'value', 'b'), P('root', a, 'value', 'b', 'd'), P('root', a, 'value', 'c')),
      set(P('root', a, 'name'), P('root', a, 'value', 'b', 'd'), P('root', a, 'value', 'c')),
    ],
    [
      'all-in-one',
      set(
        P('root'),
        P('root', a),
        P('root', a, 'name'),
        P('root', a, 'value', 'b'),
        P('root', a, 'value', 'b', 'c'),
        P('root', a, 'value', 'd'),
        P('root', a, 'value', 'e'),
        P('root', 'x'),
        P('root', 'x', 'y'),
        P('root', 'x', 'z'),
        P('root', p),
        P('root', p, 'name'),
        P('root', p, 'value', 'q'),
      ),
      set(
        P('root', a, 'name'),
        P('root', a, 'value', 'b', 'c'),
        P('root', a, 'value', 'd'),
        P('root', a, 'value', 'e'),
        P('root', 'x', 'y'),
        P('root', 'x', 'z'),
        P('root', p, 'name'),
        P('root', p, 'value', 'q'),
      ),
    ],
  ];
  for (const [name, input, expected] of table) assert.ok(input.leaves().equals(expected), name);
});

// Upstream TestSetDifference.
test('difference and recursiveDifference', () => {
  const table: [string, FieldSet, FieldSet, FieldSet, FieldSet][] = [
    ['removes simple path', set(P('a')), set(P('a')), set(), set()],
    ['removes direct path', set(P('a', 'b', 'c')), set(P('a', 'b', 'c')), set(), set()],
    ['only removes matching child', set(P('a', 'b', 'c'), P('b', 'b', 'c')), set(P('a', 'b', 'c')), set(P('b', 'b', 'c')), set(P('b', 'b', 'c'))],
    ['does not remove parent of specific path', set(P('a')), set(P('a', 'aa')), set(P('a')), set(P('a'))],
    ['recursiveDifference removes nested path', set(P('a', 'b', 'c')), set(P('a')), set(P('a', 'b', 'c')), set()],
    [
      'recursiveDifference only removes nested path for matching children',
      set(P('a', 'aa', 'aab'), P('a', 'ab', 'aba')),
      set(P('a', 'aa')),
      set(P('a', 'aa', 'aab'), P('a', 'ab', 'aba')),
      set(P('a', 'ab', 'aba')),
    ],
    [
      'recursiveDifference removes all matching children',
      set(P('a', 'aa', 'aab'), P('a', 'ab', 'aba')),
      set(P('a')),
      set(P('a', 'aa', 'aab'), P('a', 'ab', 'aba')),
      set(),
    ],
  ];
  for (const [name, a, b, difference, recursive] of table) {
    assertSetEqual(a.difference(b), difference);
    assert.ok(a.recursiveDifference(b).equals(recursive), name);
  }
});

test('withPrefix and child give the paths below an element', () => {
  const s = set(P('spec', 'replicas'), P('spec', 'template', 'spec'), P('status'));
  assert.deepEqual(lines(s.withPrefix(fieldElement('spec'))), ['.replicas', '.template.spec']);
  assert.ok(s.withPrefix(fieldElement('status')).isEmpty());
  assert.equal(s.child(fieldElement('status')), undefined);
  assert.ok(s.hasMember(fieldElement('status')));
  assert.ok(!s.hasMember(fieldElement('spec')));
  assert.deepEqual(s.memberElements(), [fieldElement('status')]);
  assert.deepEqual(s.childEntries().map(([pe]) => pe), [fieldElement('spec')]);
});

test('operations never change their inputs, and inserting into a result does not reach them', () => {
  const a = set(P('a', 'x'), P('b', 'y'));
  const b = set(P('c', 'z'));
  const u = a.union(b);
  u.insert(P('a', 'w'));
  u.insert(P('c', 'w'));
  assert.deepEqual(lines(a), ['.a.x', '.b.y']);
  assert.deepEqual(lines(b), ['.c.z']);
  assert.deepEqual(lines(u), ['.a.w', '.a.x', '.b.y', '.c.w', '.c.z']);
  // And the other way round: inserting into an input after the fact leaves the result alone.
  a.insert(P('b', 'q'));
  assert.deepEqual(lines(u), ['.a.w', '.a.x', '.b.y', '.c.w', '.c.z']);
  const d = a.difference(b);
  a.insert(P('a', 'v'));
  assert.deepEqual(lines(d), ['.a.x', '.b.q', '.b.y']);
});

test('a subtree handed out cannot be inserted into, but its clone can', () => {
  const s = set(P('spec', 'a'));
  const spec = s.withPrefix(fieldElement('spec'));
  assert.throws(() => spec.insert(P('b')), /clone\(\) it first/);
  const copy = spec.clone();
  copy.insert(P('b'));
  assert.deepEqual(lines(copy), ['.a', '.b']);
  assert.deepEqual(lines(s), ['.spec.a']);
  const whole = s.clone();
  whole.insert(P('spec', 'c'));
  assert.deepEqual(lines(s), ['.spec.a']);
  assert.deepEqual(lines(whole), ['.spec.a', '.spec.c']);
});

test('fromParts sorts, counts a member once and keeps the last of repeated children', () => {
  const s = FieldSet.fromParts(
    [fieldElement('b'), fieldElement('a'), fieldElement('b')],
    [
      [fieldElement('c'), set(P('x'))],
      [fieldElement('a'), set(P('y'))],
      [fieldElement('c'), set(P('z'))],
    ],
  );
  assert.deepEqual(lines(s), ['.a', '.b', '.a.y', '.c.z']);
});

// A seeded generator, so that failures repeat.
function random(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31;
  };
}

const alphabet: PathElement[] = [
  ...['aaa', 'aab', 'aac', 'aad', 'aae', 'aaf'].map(fieldElement),
  key('name', 'привет'),
  key('name', 'first'),
  key('port', 443, 'protocol', 'tcp'),
  key('port', 443, 'protocol', 'udp'),
  key('unicode-key', 'unicode-value-🔥'),
  ...[1, 2, 3, 'aa', 'ab', true, 0, -1, 3.14159, 'string with "quotes"', false].map(valueElement),
  ...[1, 2, 3, 4, 0, 5, 100, 2147483648].map(indexElement),
];

function randomPaths(next: () => number, count: number, minLength: number, maxLength: number): Path[] {
  const paths: Path[] = [];
  for (let i = 0; i < count; i++) {
    const length = minLength + Math.floor(next() * (maxLength - minLength));
    paths.push(Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]!));
  }
  return paths;
}

// Set operations checked against lists of paths, the obvious way.
const contains = (paths: readonly Path[], p: Path) => paths.some((q) => pathsEqual(p, q));
const isPrefix = (prefix: Path, p: Path) => prefix.length <= p.length && pathsEqual(prefix, p.slice(0, prefix.length));

test('set operations agree with the same operations on lists of paths', () => {
  const next = random(7);
  for (let round = 0; round < 100; round++) {
    const pa = randomPaths(next, 30, 1, 4);
    const pb = [...randomPaths(next, 20, 1, 4), ...pa.slice(0, 10)];
    const a = FieldSet.fromPaths(pa);
    const b = FieldSet.fromPaths(pb);
    const sorted = (paths: Path[]) => paths.filter((p, i) => !paths.slice(0, i).some((q) => pathsEqual(p, q))).sort(comparePaths);
    const got = (s: FieldSet) => s.paths().sort(comparePaths);

    assert.deepEqual(got(a.union(b)), sorted([...pa, ...pb]));
    assert.deepEqual(got(a.intersection(b)), sorted(pa.filter((p) => contains(pb, p))));
    assert.deepEqual(got(a.difference(b)), sorted(pa.filter((p) => !contains(pb, p))));
    assert.deepEqual(got(a.recursiveDifference(b)), sorted(pa.filter((p) => !pb.some((q) => isPrefix(q, p)))));
    assert.deepEqual(got(a.leaves()), sorted(pa.filter((p) => !pa.some((q) => q.length > p.length && isPrefix(p, q)))));
    assert.equal(a.size(), sorted(pa).length);
    for (const p of pb) assert.equal(a.has(p), contains(pa, p));
  }
});
