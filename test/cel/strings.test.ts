import assert from 'node:assert/strict';
import { test } from 'node:test';
import { admissionEnvironment } from '../../src/cel/index.ts';
import { compileErrorOf, evalErrorOf, value } from './helpers.ts';

// Cases from cel-go's ext/strings_test.go (v0.26, strings version 2 as Kubernetes 1.34 enables it).
const TRUE = [
  `'tacocat'.charAt(3) == 'o'`,
  `'tacocat'.charAt(7) == ''`,
  `'©αT'.charAt(0) == '©' && '©αT'.charAt(1) == 'α' && '©αT'.charAt(2) == 'T'`,
  `'tacocat'.indexOf('') == 0`,
  `'tacocat'.indexOf('ac') == 1`,
  `'tacocat'.indexOf('none') == -1`,
  `'tacocat'.indexOf('', 3) == 3`,
  `'tacocat'.indexOf('a', 3) == 5`,
  `'tacocat'.indexOf('at', 3) == 5`,
  `'ta©o©αT'.indexOf('©') == 2`,
  `'ta©o©αT'.indexOf('©', 3) == 4`,
  `'ta©o©αT'.indexOf('©αT', 3) == 4`,
  `'ta©o©αT'.indexOf('©α', 5) == -1`,
  `'ijk'.indexOf('k') == 2`,
  `'hello wello'.indexOf('hello wello') == 0`,
  `'hello wello'.indexOf('ello', 6) == 7`,
  `'hello wello'.indexOf('elbo room!!') == -1`,
  `'hello wello'.indexOf('elbo room!!!') == -1`,
  `''.lastIndexOf('@@') == -1`,
  `'tacocat'.lastIndexOf('') == 7`,
  `'tacocat'.lastIndexOf('at') == 5`,
  `'tacocat'.lastIndexOf('none') == -1`,
  `'tacocat'.lastIndexOf('', 3) == 3`,
  `'tacocat'.lastIndexOf('a', 3) == 1`,
  `'ta©o©αT'.lastIndexOf('©') == 4`,
  `'ta©o©αT'.lastIndexOf('©', 3) == 2`,
  `'ta©o©αT'.lastIndexOf('©α', 4) == 4`,
  `'hello wello'.lastIndexOf('ello', 6) == 1`,
  `'hello wello'.lastIndexOf('low') == -1`,
  `'hello wello'.lastIndexOf('elbo room!!') == -1`,
  `'hello wello'.lastIndexOf('elbo room!!!') == -1`,
  `'hello wello'.lastIndexOf('hello wello') == 0`,
  `'bananananana'.lastIndexOf('nana', 7) == 6`,
  `'TacoCat'.lowerAscii() == 'tacocat'`,
  `'TacoCÆt'.lowerAscii() == 'tacocÆt'`,
  `'TacoCÆt Xii'.lowerAscii() == 'tacocÆt xii'`,
  `"12 days 12 hours".replace("{0}", "2") == "12 days 12 hours"`,
  `"{0} days {0} hours".replace("{0}", "2") == "2 days 2 hours"`,
  `"{0} days {0} hours".replace("{0}", "2", 1).replace("{0}", "23") == "2 days 23 hours"`,
  `"1 ©αT taco".replace("αT", "o©α") == "1 ©o©α taco"`,
  `"hello hello".replace("", "_") == "_h_e_l_l_o_ _h_e_l_l_o_"`,
  `"hello hello".replace("h", "") == "ello ello"`,
  `"hello world".split(" ") == ["hello", "world"]`,
  `"hello world events!".split(" ", 0) == []`,
  `"hello world events!".split(" ", 1) == ["hello world events!"]`,
  `"o©o©o©o".split("©", -1) == ["o", "o", "o", "o"]`,
  `"tacocat".substring(4) == "cat"`,
  `"tacocat".substring(7) == ""`,
  `"tacocat".substring(0, 4) == "taco"`,
  `"tacocat".substring(4, 4) == ""`,
  `'ta©o©αT'.substring(2, 6) == "©o©α"`,
  `'ta©o©αT'.substring(7, 7) == ""`,
  `" \\f\\n\\r\\t\\vtext  ".trim() == "text"`,
  `"\\u0085\\u00a0\\u1680text".trim() == "text"`,
  `"text\\u2000\\u2001\\u2002\\u2003\\u2004\\u2004\\u2006\\u2007\\u2008\\u2009".trim() == "text"`,
  `"\\u200atext\\u2028\\u2029\\u202F\\u205F\\u3000".trim() == "text"`,
  `"\\u180etext\\u200b\\u200c\\u200d\\u2060\\ufeff".trim() == "\\u180etext\\u200b\\u200c\\u200d\\u2060\\ufeff"`,
  `'tacoCat'.upperAscii() == 'TACOCAT'`,
  `'tacoCαt'.upperAscii() == 'TACOCαT'`,
  `['x', 'y'].join() == 'xy'`,
  `['x', 'y'].join('-') == 'x-y'`,
  `[].join() == ''`,
  `[].join('-') == ''`,
  `strings.quote("first\\nsecond") == "\\"first\\\\nsecond\\""`,
  `strings.quote("bell\\a") == "\\"bell\\\\a\\""`,
  `strings.quote("\\bbackspace") == "\\"\\\\bbackspace\\""`,
  `strings.quote("\\fform feed") == "\\"\\\\fform feed\\""`,
  `strings.quote("carriage \\r return") == "\\"carriage \\\\r return\\""`,
  `strings.quote("horizontal tab\\t") == "\\"horizontal tab\\\\t\\""`,
  `strings.quote("vertical \\v tab") == "\\"vertical \\\\v tab\\""`,
  `strings.quote("double \\\\\\\\ slash") == "\\"double \\\\\\\\\\\\\\\\ slash\\""`,
  `strings.quote("two escape sequences \\a\\n") == "\\"two escape sequences \\\\a\\\\n\\""`,
  `strings.quote("verbatim") == "\\"verbatim\\""`,
  `strings.quote("ends with \\\\") == "\\"ends with \\\\\\\\\\""`,
  `strings.quote("\\\\ starts with") == "\\"\\\\\\\\ starts with\\""`,
  `strings.quote("printable unicode😀") == "\\"printable unicode😀\\""`,
  `strings.quote("mid string \\" quote") == "\\"mid string \\\\\\" quote\\""`,
  `strings.quote('single-quote with "double quote"') == "\\"single-quote with \\\\\\"double quote\\\\\\"\\""`,
  `strings.quote("size('ÿ')") == "\\"size('ÿ')\\""`,
  `strings.quote("завтра") == "\\"завтра\\""`,
  `strings.quote("\\U0001F431\\U0001F600\\U0001F61B") == "\\"\\U0001F431\\U0001F600\\U0001F61B\\""`,
  `strings.quote("") == "\\"\\""`,
  `strings.quote('%s %s').format(['hello', 'world']) == "\\"hello world\\""`,
  `'tacocat'.indexOf('a', 30) == -1`,
  `'tacocat'.lastIndexOf('a', 30) == -1`,
];

for (const expr of TRUE) {
  test(`strings: ${expr}`, () => assert.equal(value(expr), true));
}

const ERRORS: [string, string][] = [
  [`'tacocat'.charAt(30) == ''`, 'index out of range: 30'],
  [`'tacocat'.lastIndexOf('a', -1) == -1`, 'index out of range: -1'],
  [`"tacocat".substring(40) == "cat"`, 'index out of range: 40'],
  [`"tacocat".substring(-1) == "cat"`, 'index out of range: -1'],
  [`"tacocat".substring(1, 50) == "cat"`, 'index out of range: 50'],
  [`"tacocat".substring(49, 50) == "cat"`, 'index out of range: 49'],
  [`"tacocat".substring(4, 3) == ""`, 'invalid substring range. start: 4, end: 3'],
  [`'tacocat'.indexOf('a', -1) == 1`, 'index out of range: -1'],
  // Dynamic arguments reach the runtime guards.
  [`dyn(42).indexOf('4', 0) == 0`, "no such overload: indexOf(int, string, int)"],
];

for (const [expr, err] of ERRORS) {
  test(`strings error: ${expr}`, () => assert.equal(evalErrorOf(expr), err));
}

test('strings: join refuses a list holding other than strings (from JSON, so only at runtime)', () => {
  assert.equal(evalErrorOf(`object.l.join()`, { object: { l: ['a', 1] } }), 'join: invalid input: 1');
});

test('strings: a list literal mixing string and dyn does not compile (homogeneous literals)', () => {
  assert.match(compileErrorOf(`['a', dyn(1)].join() == ''`), /ERROR: <input>:1:10: expected type 'string' but found 'dyn'/);
});

test('strings: reverse is strings version 3, which Kubernetes 1.34 does not enable', () => {
  assert.match(compileErrorOf(`'gums'.reverse() == 'smug'`), /found no matching overload for 'reverse' applied to 'string\.\(\)'/);
});

test('strings: lowerAscii leaves non-ASCII letters alone; cel-js would lower them', () => {
  assert.equal(value(`'ÀÉ'.lowerAscii()`), 'ÀÉ');
});

test('strings: a newly written expression compiles against the same strings library', () => {
  const fresh = admissionEnvironment({ params: false, authorizer: false, compatibility: 'new' });
  assert.equal(value(`'a,b'.split(',').join('-')`, {}, fresh), 'a-b');
});
