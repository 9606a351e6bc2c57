import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileRe2, re2Error } from '../../src/cel/runtime/re2.ts';
import { compileErrorOf, evalErrorOf, value } from './helpers.ts';

// Go's regexp semantics (RE2 syntax, leftmost-first, FindAllString's treatment of empty matches).
const RESULTS: [string, unknown][] = [
  [`"abc 123".find('[0-9]+')`, '123'],
  [`"abc 123".find('[0-9]*')`, ''],
  [`"abc 123".find('xyz')`, ''],
  [`"123 abc 456".findAll('[0-9]+')`, ['123', '456']],
  [`"123 abc 456".findAll('[0-9]+', 1)`, ['123']],
  [`"123 abc 456".findAll('[0-9]+', 0)`, []],
  [`"123 abc 456".findAll('xyz')`, []],
  [`"123 abc 456".findAll('[0-9]*')`, ['123', '', '', '', '', '456']],
  [`"abc".findAll('b*')`, ['', 'b', '']],
  [`'hello'.matches('^h.*o$')`, true],
  [`'hello'.matches('ell')`, true],
  [`matches('hello', '^e')`, false],
  [`'a b'.matches('a\\\\sb')`, true],
  [`'a\\u00a0b'.matches('a\\\\sb')`, false],
  [`'Straße'.matches('(?i)STRASSE')`, false],
  [`'ABC'.matches('(?i)abc')`, true],
  [`'xABC'.matches('x(?i:abc)')`, true],
  [`'XABC'.matches('^x(?i:abc)')`, false],
  [`'a\\nb'.matches('(?s)a.b')`, true],
  [`'a\\nb'.matches('a.b')`, false],
  [`'l1\\nl2'.matches('(?m)^l2$')`, true],
  [`'l1\\nl2'.matches('^l2$')`, false],
  [`'αβγ'.matches('^\\\\pL+$')`, true],
  [`'αβγ'.matches('^\\\\p{Greek}+$')`, true],
  [`'a1'.matches('^[[:alpha:]][[:digit:]]$')`, true],
  [`'a.b'.matches('\\\\Qa.b\\\\E')`, true],
  [`'axb'.matches('\\\\Qa.b\\\\E')`, false],
  [`'abc'.matches('\\\\Aabc\\\\z')`, true],
  [`'aaa'.matches('^a{3}$')`, true],
  [`'x{y'.matches('x{y')`, true],
];

for (const [expr, want] of RESULTS) test(`regex: ${expr}`, () => assert.deepEqual(value(expr), want));

test('regex: RE2 refuses what JavaScript would accept, with Go\'s errors', () => {
  assert.equal(re2Error('(a)\\1'), 'error parsing regexp: invalid escape sequence: `\\1`');
  assert.equal(re2Error('(?=a)'), 'error parsing regexp: invalid or unsupported Perl syntax: `(?=`');
  assert.equal(re2Error('[a'), 'error parsing regexp: missing closing ]: `[a`');
  assert.equal(re2Error('(a'), 'error parsing regexp: missing closing ): `(a`');
  assert.equal(re2Error('a)'), 'error parsing regexp: unexpected ): `a)`');
  assert.equal(re2Error('*a'), 'error parsing regexp: missing argument to repetition operator: `*`');
  assert.equal(re2Error('a**'), 'error parsing regexp: invalid nested repetition operator: `**`');
  assert.equal(re2Error('a{1001}'), 'error parsing regexp: invalid repeat count: `{1001}`');
  assert.equal(re2Error('[z-a]'), 'error parsing regexp: invalid character class range: `z-a`');
  assert.equal(re2Error('a\\'), 'error parsing regexp: trailing backslash at end of expression: ``');
  assert.equal(re2Error('(?P<name>x)'), undefined);
  assert.ok(compileRe2('(?P<name>x)').test('x'));
});

test('regex: a bad pattern fails at runtime with upstream\'s texts', () => {
  assert.equal(evalErrorOf(`'a'.matches(object.re)`, { object: { re: '[' } }), 'error parsing regexp: missing closing ]: `[`');
  assert.equal(evalErrorOf(`'a'.find(object.re)`, { object: { re: '[' } }), 'Illegal regex: error parsing regexp: missing closing ]: `[`');
});

test('regex: a bad literal pattern does not compile', () => {
  assert.match(compileErrorOf(`'a'.matches('[')`), /ERROR: <input>:1:13: invalid matches argument/);
  assert.equal(compileErrorOf(`'a'.find('[')`), 'program instantiation failed: error parsing regexp: missing closing ]: `[`');
});
