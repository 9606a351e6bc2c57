/**
 * Go's string and number renderings (src/api/go) that apply errors and field paths share with the rest
 * of the server's messages: one implementation each, checked here against what Go prints.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { goFloat, goNumber } from '../../src/api/go/number.ts';
import { goQuote, goQuoteList, goStringSlice, isGoPrint } from '../../src/api/go/quote.ts';
import { compareGoStrings } from '../../src/api/go/strings.ts';
import { goString, goSyntax, goType, goTypeName, goValue } from '../../src/api/go/values.ts';

test('strings order by UTF-8 bytes', () => {
  assert.equal(compareGoStrings('\uffff', '\u{10000}'), -1);
  assert.equal(compareGoStrings('\u{10000}', '\uffff'), 1);
  assert.equal(compareGoStrings('\ud7ff', '\u{10000}'), -1);
  assert.equal(compareGoStrings('Z', 'a'), -1);
  assert.equal(compareGoStrings('', 'a'), -1);
});

test('goFloat prints as strconv.FormatFloat(x, g, -1, 64)', () => {
  const cases: [number, string][] = [
    [3.14159, '3.14159'],
    [1.5, '1.5'],
    [100000, '100000'],
    [1000000, '1e+06'],
    [123456789, '1.23456789e+08'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [1.5e-7, '1.5e-07'],
    [1e100, '1e+100'],
    [-0.5, '-0.5'],
    [-0, '-0'],
  ];
  for (const [x, text] of cases) assert.equal(goFloat(x), text, String(x));
});

test('goNumber prints an integral value that fits as an int64, anything else as a float64', () => {
  assert.equal(goNumber(1000000), '1000000');
  assert.equal(goNumber(-9007199254740991), '-9007199254740991');
  assert.equal(goNumber(1e19), '1e+19');
  assert.equal(goNumber(2.5), '2.5');
});

test('goQuote escapes as strconv.Quote', () => {
  assert.equal(goQuote('a"b\\c'), '"a\\"b\\\\c"');
  assert.equal(goQuote('\x07\b\f\n\r\t\v'), '"\\a\\b\\f\\n\\r\\t\\v"');
  assert.equal(goQuote('\x00\x7f\x80\u00ad'), '"\\x00\\x7f\\u0080\\u00ad"');
  assert.equal(goQuote('ok 🚀 é 你好'), '"ok 🚀 é 你好"');
  assert.equal(goQuote('\u{e0001}'), '"\\U000e0001"');
  assert.equal(goQuote('\ud800'), '"\ufffd"');
});

test('goQuote escapes every character Go does not print, not only control characters', () => {
  // No-break space, zero-width space, BOM, line separator, private use: all unprintable to Go.
  assert.equal(goQuote('a\u00a0b\u200bc\ufeff\u2028\ue000'), '"a\\u00a0b\\u200bc\\ufeff\\u2028\\ue000"');
  assert.equal(isGoPrint(' '), true);
  assert.equal(isGoPrint('é'), true);
  assert.equal(isGoPrint('\u00a0'), false);
  assert.equal(isGoPrint('\u200b'), false);
});

test('string lists print as %#v and %q print them', () => {
  assert.equal(goStringSlice(null), '[]string(nil)');
  assert.equal(goStringSlice(['a', 'b\u00a0']), '[]string{"a", "b\\u00a0"}');
  assert.equal(goQuoteList(['a', 'b"']), '["a" "b\\""]');
});

test('decoded JSON prints as %v, %#v and %T print it, numbers and map order as Go has them', () => {
  const v = { '\u{1f600}': [1e-7, 1234567.5, 1e19, 3], '\uff21': null, a: true };
  assert.equal(goValue(v), 'map[a:true Ａ:<nil> 😀:[1e-07 1.2345675e+06 1e+19 3]]');
  assert.equal(
    goSyntax(v),
    'map[string]interface {}{"a":true, "Ａ":interface {}(nil), "😀":[]interface {}{1e-07, 1.2345675e+06, 1e+19, 3}}',
  );
  assert.deepEqual([3, 1e19, 2.5, 'x', false, null, [], {}].map(goType), [
    'int64',
    'float64',
    'float64',
    'string',
    'bool',
    '<nil>',
    '[]interface {}',
    'map[string]interface {}',
  ]);
  assert.equal(goTypeName(null), '%!s(<nil>)');
  assert.equal(goTypeName(1e19), 'float64');
  assert.equal(goString(1.5e-7), '%!s(float64=1.5e-07)');
});
