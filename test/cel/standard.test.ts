import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileErrorOf, env, evalErrorOf, unoptimizedEnv, value } from './helpers.ts';

// CEL's standard operators and functions with cel-go's results (CEL conformance semantics).
const TRUE = [
  `1 + 2 == 3`,
  `7 / 2 == 3`,
  `-7 / 2 == -3`,
  `-7 % 2 == -1`,
  `1u + 2u == 3u`,
  `0.1 + 0.2 > 0.3`,
  `1.0 / 0.0 == double('inf')`,
  `'a' + 'b' == 'ab'`,
  `b'a' + b'b' == b'ab'`,
  `[1] + [2] == [1, 2]`,
  `1 < 2.5 && 2u > 1 && 3.0 >= 3u`,
  `'a' < 'b' && 'B' < 'a'`,
  `b'a' < b'b'`,
  `false < true`,
  `dyn(1) == 1.0 && dyn(1) == 1u && dyn(1u) == 1.0`,
  `dyn('1') != 1`,
  `[1, 2] == [1, 2] && [1, 2] != [2, 1]`,
  `{'a': 1, 'b': 2} == {'b': 2, 'a': 1}`,
  `dyn([1]) == [1.0]`,
  `null == null && dyn(null) != 1`,
  `1 in [1, 2] && !(3 in [1, 2])`,
  `'a' in {'a': 1}`,
  `dyn(1.0) in [1]`,
  `1 in {1: 'x'} && dyn(1u) in {1: 'x'}`,
  `{1: 'x'}[1.0] == 'x'`,
  `true || (1 / 0 > 0)`,
  `(1 / 0 > 0) || true`,
  `!(false && (1 / 0 > 0))`,
  `!((1 / 0 > 0) && false)`,
  `(true ? 1 : 2) == 1`,
  `int('123') == 123 && int('-5') == -5`,
  `int(1.9) == 1 && int(-1.9) == -1`,
  `int(2u) == 2`,
  `uint(2) == 2u && uint(2.7) == 2u`,
  `double('1e3') == 1000.0 && double(2) == 2.0 && double('-Infinity') < 0.0`,
  `string(1.5) == '1.5' && string(1e6) == '1e+06' && string(123456.0) == '123456' && string(0.00001) == '1e-05'`,
  `string(-0.0) == '-0'`,
  `string(true) == 'true' && string(12) == '12' && string(7u) == '7'`,
  `string(b'abc') == 'abc' && bytes('abc') == b'abc'`,
  `bool('true') && !bool('F') && bool('1')`,
  `string(duration('1h30m')) == '5400s' && string(duration('1.5s')) == '1.5s' && string(duration('-2ns')) == '-0.000000002s'`,
  `string(timestamp('2023-01-01T00:00:00Z')) == '2023-01-01T00:00:00Z'`,
  `string(timestamp('2023-01-01T00:00:00.120Z')) == '2023-01-01T00:00:00.12Z'`,
  `string(timestamp('2023-01-01T10:00:00+01:00')) == '2023-01-01T10:00:00+01:00'`,
  `timestamp('2023-01-01T10:00:00+01:00') == timestamp('2023-01-01T09:00:00Z')`,
  `int(timestamp('2023-01-01T00:00:00Z')) == 1672531200`,
  `timestamp(0) == timestamp('1970-01-01T00:00:00Z')`,
  `type(1) == int && type('a') == string && type([]) == list && type({}) == map`,
  `type(null) == null_type && type(1u) == uint && type(type(1)) == type && type(b'') == bytes && type(1.0) == double && type(true) == bool`,
  `type(duration('1s')) == google.protobuf.Duration && type(timestamp(0)) == google.protobuf.Timestamp`,
  `size('héllo') == 5 && size(b'ab') == 2 && size([1, 2]) == 2 && size({'a': 1}) == 1 && 'abc'.size() == 3`,
  `size('😀') == 1`,
  `'hello'.contains('ell') && 'hello'.startsWith('he') && 'hello'.endsWith('lo')`,
  `timestamp('2023-05-15T10:30:45.123Z').getFullYear() == 2023`,
  `timestamp('2023-05-15T10:30:45.123Z').getMonth() == 4`,
  `timestamp('2023-05-15T10:30:45.123Z').getDate() == 15`,
  `timestamp('2023-05-15T10:30:45.123Z').getDayOfMonth() == 14`,
  `timestamp('2023-05-15T10:30:45.123Z').getDayOfWeek() == 1`,
  `timestamp('2023-05-15T10:30:45.123Z').getDayOfYear() == 134`,
  `timestamp('2023-05-15T10:30:45.123Z').getHours() == 10`,
  `timestamp('2023-05-15T10:30:45.123Z').getMinutes() == 30`,
  `timestamp('2023-05-15T10:30:45.123Z').getSeconds() == 45`,
  `timestamp('2023-05-15T10:30:45.123Z').getMilliseconds() == 123`,
  `timestamp('2023-05-15T10:30:45Z').getHours('America/New_York') == 6`,
  `timestamp('2023-01-15T10:30:45Z').getHours('America/New_York') == 5`,
  `timestamp('2023-05-15T10:30:45Z').getHours('+05:30') == 16`,
  `timestamp('2023-05-15T10:30:45Z').getHours('-01:00') == 9`,
  `timestamp('2023-12-31T23:30:00Z').getFullYear('Asia/Tokyo') == 2024`,
  `timestamp('2023-01-01T00:00:00Z') + duration('1h') == timestamp('2023-01-01T01:00:00Z')`,
  `duration('1h') + timestamp('2023-01-01T00:00:00Z') == timestamp('2023-01-01T01:00:00Z')`,
  `timestamp('2023-01-01T01:00:00Z') - timestamp('2023-01-01T00:00:00Z') == duration('1h')`,
  `timestamp('2023-01-01T01:00:00Z') - duration('30m') == timestamp('2023-01-01T00:30:00Z')`,
  `duration('1h') + duration('30m') == duration('90m')`,
  `duration('1h').getMinutes() == 60 && duration('-1.5h').getHours() == -1 && duration('1500ms').getMilliseconds() == 1500`,
  `duration('1h') > duration('59m') && timestamp('2023-01-02T00:00:00Z') > timestamp('2023-01-01T00:00:00Z')`,
  `dyn([1, 2])[1.0] == 2`,
  `has({'a': 1}.a) && !has({'a': 1}.b)`,
];

for (const expr of TRUE) test(`standard: ${expr}`, () => assert.equal(value(expr), true));

const ERRORS: [string, string, unknown?][] = [
  [`9223372036854775807 + 1`, 'integer overflow'],
  [`-9223372036854775808 - 1`, 'integer overflow'],
  [`-(-9223372036854775808)`, 'integer overflow'],
  [`-9223372036854775808 / -1`, 'integer overflow'],
  [`-9223372036854775808 % -1`, 'integer overflow'],
  [`5 / 0`, 'division by zero'],
  [`5 % 0`, 'modulus by zero'],
  [`1u - 2u`, 'unsigned integer overflow'],
  [`18446744073709551615u + 1u`, 'unsigned integer overflow'],
  [`(1 / 0 > 0) && true`, 'division by zero'],
  [`int('1.5')`, "type conversion error from 'string' to 'int'"],
  [`int(9.3e18)`, 'integer overflow'],
  [`int(18446744073709551615u)`, 'integer overflow'],
  [`uint(-1)`, 'unsigned integer overflow'],
  [`uint(-1.0)`, 'unsigned integer overflow'],
  [`double('abc')`, "type conversion error from 'string' to 'double'"],
  [`double('1e400')`, "type conversion error from 'string' to 'double'"],
  [`bool('maybe')`, "type conversion error from 'string' to 'bool'"],
  [`string(b'\\xff')`, 'invalid UTF-8 in bytes, cannot convert to string'],
  [`timestamp(object.t)`, "type conversion error from 'string' to 'google.protobuf.Timestamp'", { t: 'yesterday' }],
  [`duration(object.d)`, "type conversion error from 'string' to 'google.protobuf.Duration'", { d: '1x' }],
  [`timestamp('9999-12-31T23:59:59Z') + duration('1s')`, 'timestamp overflow'],
  [`duration('2562047h') + duration('2562047h')`, 'duration overflow'],
  [`double('NaN') < 1.0`, 'NaN values cannot be ordered'],
  [`{'a': 1}.b`, 'no such key: b'],
  [`{'a': 1}['b']`, 'no such key: b'],
  [`[1][1]`, 'index out of bounds: 1'],
  [`[1][-1]`, 'index out of bounds: -1'],
  [`dyn([1])['a']`, "unsupported index type 'string' in list"],
  [`dyn([1])[1.5]`, 'unsupported index value 1.5 in list'],
  [`object.name.foo`, 'no such key: foo', { name: 'x' }],
  [`oldObject.metadata`, 'no such key: metadata'],
  [`has(object.a.b)`, 'no such key: a', {}],
  [`dyn(1) + 'a'`, 'no such overload'],
  [`dyn(true) + 1`, 'no such overload: _+_'],
  [`dyn(1) < 'a'`, 'no such overload'],
  [`!dyn(1)`, 'no such overload'],
  [`dyn(1) ? 1 : 2`, 'no such overload'],
  [`dyn('a') && true`, 'no such overload'],
  [`timestamp('2023-01-01T00:00:00Z').getHours('Mars/Olympus')`, 'unknown time zone Mars/Olympus'],
];

// Under OptOptimize (Kubernetes' programs) a conversion of constants is computed when the program is
// built, so one that fails fails the build with the same text.
for (const [expr, err, object] of ERRORS) {
  test(`standard error: ${expr}`, () => {
    const activation = { object: object ?? null, oldObject: null };
    assert.equal(evalErrorOf(expr, activation, unoptimizedEnv), err);
    const buildError = env.problem(expr);
    if (buildError !== undefined) assert.equal(buildError, `program instantiation failed: ${err}`);
    else assert.equal(evalErrorOf(expr, activation), err);
  });
}

test('standard: has() on a null or a scalar is false, not an error', () => {
  assert.equal(value(`has(oldObject.metadata)`, { oldObject: null }), false);
  assert.equal(value(`has(object.name.foo)`, { object: { name: 'x' } }), false);
});

test('standard: durations cannot be negated (cel-go declares -_ for int and double only)', () => {
  assert.match(compileErrorOf(`-duration('1s') == duration('-1s')`), /found no matching overload for '-_' applied to '\(duration\)'/);
});

test('standard: equality of different static types does not compile', () => {
  assert.match(compileErrorOf(`1 == 1.0`), /found no matching overload for '_==_' applied to '\(int, double\)'/);
  assert.match(compileErrorOf(`1 == 1u`), /found no matching overload for '_==_' applied to '\(int, uint\)'/);
});

test('standard: literal timestamps, durations and integers are checked when compiling', () => {
  assert.match(compileErrorOf(`timestamp('yesterday')`), /ERROR: <input>:1:11: invalid timestamp argument/);
  assert.match(compileErrorOf(`duration('1x')`), /ERROR: <input>:1:10: invalid duration argument/);
  assert.match(compileErrorOf(`9223372036854775808 > 0`), /ERROR: <input>:1:1: invalid int literal/);
  assert.equal(value(`-9223372036854775808 < 0`), true);
});

test('standard: JSON numbers are int when integral, double otherwise', () => {
  assert.equal(value(`type(object.a) == int && type(object.b) == double`, { object: { a: 3, b: 2.5 } }), true);
  assert.equal(value(`object.a + 1`, { object: { a: 3 } }), 4);
});
