import assert from 'node:assert/strict';
import { test } from 'node:test';
import { goQuote } from '../../src/api/go/quote.ts';
import { CelCompileError } from '../../src/cel/index.ts';
import { env, run, unoptimizedEnv } from './helpers.ts';

interface Case {
  readonly name: string;
  readonly format: string;
  readonly args: string;
  readonly out?: string;
  readonly err?: string;
  readonly cost?: number;
}

// The cases of cel-go's TestStringFormat (ext/formatting_test.go, v0.26) that use the en_US locale
// and no Go-only arguments: `<format>.format([<args>])`, its output or the error it contains, and
// the runtime cost cel-go reports (its test builds programs without OptOptimize).
const CASES: readonly Case[] = [
  {"name": "no-op", "format": "no substitution", "args": "", "out": "no substitution", "cost": 12},
  {"name": "mid-string substitution", "format": "str is %s and some more", "args": "\"filler\"", "out": "str is filler and some more", "cost": 13},
  {"name": "percent escaping", "format": "%% and also %%", "args": "", "out": "% and also %", "cost": 12},
  {"name": "substution inside escaped percent signs", "format": "%%%s%%", "args": "\"text\"", "out": "%text%", "cost": 11},
  {"name": "substitution with one escaped percent sign on the right", "format": "%s%%", "args": "\"percent on the right\"", "out": "percent on the right%", "cost": 11},
  {"name": "substitution with one escaped percent sign on the left", "format": "%%%s", "args": "\"percent on the left\"", "out": "%percent on the left", "cost": 11},
  {"name": "multiple substitutions", "format": "%d %d %d, %s %s %s, %d %d %d, %s %s %s", "args": "1, 2, 3, \"A\", \"B\", \"C\", 4, 5, 6, \"D\", \"E\", \"F\"", "out": "1 2 3, A B C, 4 5 6, D E F", "cost": 14},
  {"name": "percent sign escape sequence support", "format": "%%escaped %s%%", "args": "\"percent\"", "out": "%escaped percent%", "cost": 12},
  {"name": "fixed point formatting clause", "format": "%.3f", "args": "1.2345", "out": "1.234", "cost": 11},
  {"name": "binary formatting clause", "format": "this is 5 in binary: %b", "args": "5", "out": "this is 5 in binary: 101", "cost": 13},
  {"name": "negative binary formatting clause", "format": "this is -5 in binary: %b", "args": "-5", "out": "this is -5 in binary: -101", "cost": 13},
  {"name": "uint support for binary formatting", "format": "unsigned 64 in binary: %b", "args": "uint(64)", "out": "unsigned 64 in binary: 1000000", "cost": 14},
  {"name": "bool support for binary formatting", "format": "bit set from bool: %b", "args": "true", "out": "bit set from bool: 1", "cost": 13},
  {"name": "octal formatting clause", "format": "%o", "args": "11", "out": "13", "cost": 11},
  {"name": "negative octal formatting clause", "format": "%o", "args": "-11", "out": "-13", "cost": 11},
  {"name": "uint support for octal formatting clause", "format": "this is an unsigned octal: %o", "args": "uint(65535)", "out": "this is an unsigned octal: 177777", "cost": 14},
  {"name": "lowercase hexadecimal formatting clause", "format": "%x is 30 in hexadecimal", "args": "30", "out": "1e is 30 in hexadecimal", "cost": 13},
  {"name": "uppercase hexadecimal formatting clause", "format": "%X is 20 in hexadecimal", "args": "30", "out": "1E is 20 in hexadecimal", "cost": 13},
  {"name": "negative hexadecimal formatting clause", "format": "%x is -30 in hexadecimal", "args": "-30", "out": "-1e is -30 in hexadecimal", "cost": 13},
  {"name": "unsigned support for hexadecimal formatting clause", "format": "%X is 6000 in hexadecimal", "args": "uint(6000)", "out": "1770 is 6000 in hexadecimal", "cost": 14},
  {"name": "string support with hexadecimal formatting clause", "format": "%x", "args": "\"Hello world!\"", "out": "48656c6c6f20776f726c6421", "cost": 11},
  {"name": "string support with uppercase hexadecimal formatting clause", "format": "%X", "args": "\"Hello world!\"", "out": "48656C6C6F20776F726C6421", "cost": 11},
  {"name": "byte support with hexadecimal formatting clause", "format": "%x", "args": "b\"byte string\"", "out": "6279746520737472696e67", "cost": 11},
  {"name": "byte support with hexadecimal formatting clause leading zero", "format": "%x", "args": "b\"\\x00\\x00byte string\\x00\"", "out": "00006279746520737472696e6700", "cost": 11},
  {"name": "byte support with uppercase hexadecimal formatting clause", "format": "%X", "args": "b\"byte string\"", "out": "6279746520737472696E67", "cost": 11},
  {"name": "scientific notation formatting clause", "format": "%.6e", "args": "1052.032911275", "out": "1.052033 × 10⁰³", "cost": 11},
  {"name": "default precision for fixed-point clause", "format": "%f", "args": "2.71828", "out": "2.718280", "cost": 11},
  {"name": "default precision for scientific notation", "format": "%e", "args": "2.71828", "out": "2.718280 × 10⁰⁰", "cost": 11},
  {"name": "default precision for string", "format": "%s", "args": "2.71", "out": "2.71", "cost": 11},
  {"name": "default list precision for string", "format": "%s", "args": "[2.71]", "out": "[2.710000]", "cost": 21},
  {"name": "default scientific notation for string", "format": "%s", "args": "0.000000002", "out": "2e-09", "cost": 11},
  {"name": "default list scientific notation for string", "format": "%s", "args": "[0.000000002]", "out": "[0.000000]", "cost": 21},
  {"name": "unicode output for scientific notation", "format": "unescaped unicode: %e, escaped unicode: %e", "args": "2.71828, 2.71828", "out": "unescaped unicode: 2.718280 × 10⁰⁰, escaped unicode: 2.718280 × 10⁰⁰", "cost": 15},
  {"name": "NaN support for fixed-point", "format": "%f", "args": "\"NaN\"", "out": "NaN", "cost": 11},
  {"name": "positive infinity support for fixed-point", "format": "%f", "args": "\"Infinity\"", "out": "∞", "cost": 11},
  {"name": "negative infinity support for fixed-point", "format": "%f", "args": "\"-Infinity\"", "out": "-∞", "cost": 11},
  {"name": "NaN support for string", "format": "%s", "args": "double(\"NaN\")", "out": "NaN"},
  {"name": "positive infinity support for string", "format": "%s", "args": "double(\"Inf\")", "out": "+Inf"},
  {"name": "negative infinity support for string", "format": "%s", "args": "double(\"-Inf\")", "out": "-Inf"},
  {"name": "infinity list support for string", "format": "%s", "args": "[double(\"NaN\"),double(\"+Inf\"), double(\"-Inf\")]", "out": "[\"NaN\", \"+Inf\", \"-Inf\"]"},
  {"name": "uint support for decimal clause", "format": "%d", "args": "uint(64)", "out": "64", "cost": 12},
  {"name": "null support for string", "format": "null: %s", "args": "null", "out": "null: null", "cost": 11},
  {"name": "int support for string", "format": "%s", "args": "999999999999", "out": "999999999999", "cost": 11},
  {"name": "bytes support for string", "format": "some bytes: %s", "args": "b\"xyz\"", "out": "some bytes: xyz", "cost": 12},
  {"name": "type() support for string", "format": "type is %s", "args": "type(\"test string\")", "out": "type is string", "cost": 12},
  {"name": "timestamp support for string", "format": "%s", "args": "timestamp(\"2023-02-03T23:31:20+00:00\")", "out": "2023-02-03T23:31:20Z", "cost": 12},
  {"name": "duration support for string", "format": "%s", "args": "duration(\"1h45m47s\")", "out": "6347s", "cost": 12},
  {"name": "small duration support for string", "format": "%s", "args": "duration(\"2ns\")", "out": "0.000000002s", "cost": 12},
  {"name": "list support for string", "format": "%s", "args": "[\"abc\", 3.14, null, [9, 8, 7, 6], timestamp(\"2023-02-03T23:31:20Z\")]", "out": "[\"abc\", 3.140000, null, [9, 8, 7, 6], timestamp(\"2023-02-03T23:31:20Z\")]", "cost": 32},
  {"name": "map support (all key types)", "format": "map with multiple key types: %s", "args": "{1: \"value1\", uint(2): \"value2\", true: double(\"NaN\")}", "out": "map with multiple key types: {1:\"value1\", 2:\"value2\", true:\"NaN\"}", "cost": 46},
  {"name": "boolean support for %s", "format": "true bool: %s, false bool: %s", "args": "true, false", "out": "true bool: true, false bool: false", "cost": 13},
  {"name": "unrecognized formatting clause", "format": "%a", "args": "1", "err": "could not parse formatting clause: unrecognized formatting clause \"a\""},
  {"name": "out of bounds arg index", "format": "%d %d %d", "args": "0, 1", "err": "index 2 out of range"},
  {"name": "string substitution is not allowed with binary clause", "format": "string is %b", "args": "\"abc\"", "err": "error during formatting: only integers and bools can be formatted as binary, was given string"},
  {"name": "string substitution not allowed with octal clause", "format": "octal: %o", "args": "\"a string\"", "err": "error during formatting: octal clause can only be used on integers, was given string"},
  {"name": "double substitution not allowed with hex clause", "format": "double is %x", "args": "0.5", "err": "error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given double"},
  {"name": "uppercase not allowed for scientific clause", "format": "double is %E", "args": "0.5", "err": "could not parse formatting clause: unrecognized formatting clause \"E\""},
  {"name": "null not allowed for %d", "format": "null: %d", "args": "null", "err": "error during formatting: decimal clause can only be used on integers, was given null_type"},
  {"name": "null not allowed for %e", "format": "null: %e", "args": "null", "err": "error during formatting: scientific clause can only be used on doubles, was given null_type"},
  {"name": "null not allowed for %f", "format": "null: %f", "args": "null", "err": "error during formatting: fixed-point clause can only be used on doubles, was given null_type"},
  {"name": "null not allowed for %x", "format": "null: %x", "args": "null", "err": "error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given null_type"},
  {"name": "null not allowed for %X", "format": "null: %X", "args": "null", "err": "error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given null_type"},
  {"name": "null not allowed for %b", "format": "null: %b", "args": "null", "err": "error during formatting: only integers and bools can be formatted as binary, was given null_type"},
  {"name": "null not allowed for %o", "format": "null: %o", "args": "null", "err": "error during formatting: octal clause can only be used on integers, was given null_type"},
  {"name": "compile-time cardinality check (too few for string)", "format": "%s %s", "args": "\"abc\"", "err": "index 1 out of range"},
  {"name": "compile-time cardinality check (too many for string)", "format": "%s %s", "args": "\"abc\", \"def\", \"ghi\"", "err": "too many arguments supplied to string.format (expected 2, got 3)"},
  {"name": "compile-time syntax check (unexpected end of string)", "format": "filler %", "args": "", "err": "unexpected end of string"},
  {"name": "compile-time syntax check (unrecognized formatting clause)", "format": "%j", "args": "123", "err": "could not parse formatting clause: unrecognized formatting clause \"j\""},
  {"name": "compile-time %d check", "format": "int is %d", "args": "5.2", "err": "error during formatting: decimal clause can only be used on integers"},
  {"name": "compile-time %f check", "format": "double is %f", "args": "true", "err": "error during formatting: fixed-point clause can only be used on doubles"},
  {"name": "compile-time precision syntax check", "format": "double is %.34", "args": "5.0", "err": "could not parse formatting clause: error while parsing precision: could not find end of precision specifier"},
  {"name": "compile-time %e check", "format": "double is %e", "args": "true", "err": "error during formatting: scientific clause can only be used on doubles"},
  {"name": "compile-time %b check", "format": "string is %b", "args": "\"a string\"", "err": "error during formatting: only integers and bools can be formatted as binary"},
  {"name": "compile-time %x check", "format": "%x is a double", "args": "2.5", "err": "error during formatting: only integers, byte buffers, and strings can be formatted as hex"},
  {"name": "compile-time %X check", "format": "%X is a double", "args": "2.5", "err": "error during formatting: only integers, byte buffers, and strings can be formatted as hex"},];

for (const c of CASES) {
  test(`format: ${c.name}`, () => {
    const expr = `${goQuote(c.format)}.format([${c.args}])`;
    let outcome: { value?: unknown; error?: string; cost: number };
    try {
      outcome = run(expr, {}, unoptimizedEnv);
    } catch (e) {
      if (!(e instanceof CelCompileError)) throw e;
      assert.ok(c.err, `unexpected compile error: ${e.message}`);
      assert.ok(e.message.includes(c.err), `${e.message} should contain ${c.err}`);
      return;
    }
    if (c.err !== undefined) {
      assert.ok(outcome.error?.includes(c.err), `${outcome.error ?? JSON.stringify(outcome.value)} should contain ${c.err}`);
      return;
    }
    assert.equal(outcome.error, undefined);
    assert.equal(outcome.value, c.out);
    if (c.cost !== undefined) assert.equal(outcome.cost, c.cost, 'runtime cost');
  });
}

test('format: fixed-point numbers are grouped as the en_US locale groups them', () => {
  assert.equal(run(`"%.2f".format([1234567.891])`).value, '1,234,567.89');
  assert.equal(run(`"%.0f".format([-1000.5])`).value, '-1,000');
});

test('format: fixed-point rounds the exact binary value half to even, as Go', () => {
  assert.equal(run(`"%.2f".format([0.125])`).value, '0.12');
  assert.equal(run(`"%.2f".format([0.375])`).value, '0.38');
});

test('format: a literal list of mixed types is allowed inside format calls only', () => {
  assert.equal(run(`"%s %d".format(["a", 1])`).value, 'a 1');
  assert.ok(env.problem(`["a", 1].size() == 2`)?.includes("expected type 'string' but found 'int'"));
});
