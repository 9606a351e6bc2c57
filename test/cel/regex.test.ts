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
  // Go's semantics where JavaScript's RegExp differs.
  [`'ab'.find('a|ab')`, 'a'], // leftmost-first, not longest
  [`'aaa'.find('(?U)a+')`, 'a'], // ungreedy mode
  [`'aaa'.find('(?U)a+?')`, 'aaa'],
  [`'a\\vb'.matches('a\\\\sb')`, false], // Go's \s is [\t\n\f\r ]: no \v
  [`'a\\u2003b'.matches('a\\\\sb')`, false],
  [`'٣'.matches('\\\\d')`, false], // \d is ASCII digits
  [`'é'.matches('\\\\w')`, false],
  [`'café'.find('caf\\\\b')`, 'caf'], // \b between ASCII word and non-word characters
  [`'éa'.find('\\\\ba')`, 'a'],
  [`'a\\n'.matches('a$')`, false], // $ is the end of the text, not before a final newline
  [`'a\\nb'.find('(?m)a$')`, 'a'],
  [`'a\\r\\nb'.matches('(?m)a$')`, false], // only \n ends a line
  [`'😀'.matches('^.$')`, true], // a rune, not two UTF-16 units
  [`'😀'.matches('^[^a]$')`, true],
  [`'a😀b'.findAll('x*')`, ['', '', '', '']], // an empty match moves on by one rune
  [`'\\u212a'.matches('(?i)k')`, true], // simple case folding: the Kelvin sign folds to k
  [`'my-app'.matches('^my-app$')`, true],
  [`'aaa'.find('a+(?i)?')`, 'aaa'], // a flags group between repeats is no nested repetition
  [`'xy'.find('(?P<n>x)(?P<n>y)')`, 'xy'], // Go accepts a repeated group name
  [`'x'.matches('^(?<n>x)$')`, true],
  [`'a'.matches('^\\\\p{Any}$')`, true],
  [`'ж'.matches('^\\\\p{Cyrillic}$')`, true],
  [`'a'.matches('^\\\\P{^Latin}$')`, true],
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

test('regex: Go 1.24 refuses what re2js alone would accept, and the reverse', () => {
  // Unicode 16 scripts, binary properties and Go 1.25's names are unknown to Go 1.24.
  assert.equal(re2Error('\\p{Garay}'), 'error parsing regexp: invalid character class range: `\\p{Garay}`');
  assert.equal(re2Error('[x\\p{^Garay}]'), 'error parsing regexp: invalid character class range: `\\p{^Garay}`');
  assert.equal(re2Error('\\p{Emoji}'), 'error parsing regexp: invalid character class range: `\\p{Emoji}`');
  assert.equal(re2Error('\\p{Cn}'), 'error parsing regexp: invalid character class range: `\\p{Cn}`');
  assert.equal(re2Error('\\p{LC}'), 'error parsing regexp: invalid character class range: `\\p{LC}`');
  assert.equal(re2Error('\\p{greek}'), 'error parsing regexp: invalid character class range: `\\p{greek}`');
  // The first error in the pattern is the one reported, whole-pattern quotes as written.
  assert.equal(re2Error('a)\\p{Garay}'), 'error parsing regexp: unexpected ): `a)\\p{Garay}`');
  assert.equal(re2Error('\\p{Garay}a)'), 'error parsing regexp: invalid character class range: `\\p{Garay}`');
  assert.equal(re2Error('\\Q\\p{Garay}\\E'), undefined);
  assert.equal(re2Error('(?P<a>x)(?P<a>y)('), 'error parsing regexp: missing closing ): `(?P<a>x)(?P<a>y)(`');
  // Too short for a named group, Go reads flags.
  assert.equal(re2Error('x(?<'), 'error parsing regexp: invalid or unsupported Perl syntax: `(?<`');
  assert.equal(re2Error('x(?P<'), 'error parsing regexp: invalid or unsupported Perl syntax: `(?P`');
  assert.equal(re2Error('(?P<a'), 'error parsing regexp: invalid named capture: `(?P<a`');
  assert.equal(re2Error('(?<=a)b'), 'error parsing regexp: invalid named capture: `(?<=a)b`');
  assert.equal(re2Error('\\C'), 'error parsing regexp: invalid escape sequence: `\\C`');
  assert.equal(re2Error('\\Z'), 'error parsing regexp: invalid escape sequence: `\\Z`');
  assert.equal(re2Error('(?x)a'), 'error parsing regexp: invalid or unsupported Perl syntax: `(?x`');
  assert.equal(re2Error('a{1000}'), undefined);
  assert.equal(re2Error('(a{1000}){2}'), 'error parsing regexp: invalid repeat count: `{2}`');
  assert.equal(re2Error('('.repeat(1001) + ')'.repeat(1001)), `error parsing regexp: expression nests too deeply: \`${'('.repeat(1001) + ')'.repeat(1001)}\``);
});

test('regex: matching takes time linear in the input, whatever the pattern', () => {
  // Each of these takes a backtracking engine exponential time in the run of a's.
  const object = { s: `${'a'.repeat(20000)}!` };
  assert.equal(value(`object.s.matches('^(a+)+$')`, { object }), false);
  assert.equal(value(`object.s.matches('^(a|aa)*$')`, { object }), false);
  assert.equal(value(`object.s.matches('^(\\\\w+\\\\s?)*$')`, { object }), false);
  assert.equal(value(`object.s.find('(a*)*b')`, { object }), '');
  assert.deepEqual(value(`object.s.findAll('(a+)+!')`, { object }), [object.s]);
});

test('regex: a bad pattern fails at runtime with upstream\'s texts', () => {
  assert.equal(evalErrorOf(`'a'.matches(object.re)`, { object: { re: '[' } }), 'error parsing regexp: missing closing ]: `[`');
  assert.equal(evalErrorOf(`'a'.find(object.re)`, { object: { re: '[' } }), 'Illegal regex: error parsing regexp: missing closing ]: `[`');
});

test('regex: a bad literal pattern does not compile', () => {
  assert.match(compileErrorOf(`'a'.matches('[')`), /ERROR: <input>:1:13: invalid matches argument/);
  assert.equal(compileErrorOf(`'a'.find('[')`), 'program instantiation failed: error parsing regexp: missing closing ]: `[`');
});
