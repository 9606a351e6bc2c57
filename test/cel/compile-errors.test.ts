import assert from 'node:assert/strict';
import { test } from 'node:test';
import { admissionEnvironment } from '../../src/cel/index.ts';
import { compileErrorOf, env } from './helpers.ts';

const EXPR_START = "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";

/** The full detail upstream gives: `compilation failed: ERROR: <input>:line:col: msg`, the line and a caret. */
function detail(src: string, col: number, msg: string): string {
  return `compilation failed: ERROR: <input>:1:${col}: ${msg}\n | ${src}\n | ${'.'.repeat(col - 1)}^`;
}

const CASES: [string, number, string][] = [
  [`object.spec.`, 13, `Syntax error: mismatched input '<EOF>' expecting ${EXPR_START}`],
  [`object.a &&`, 12, `Syntax error: mismatched input '<EOF>' expecting ${EXPR_START}`],
  [`size(object`, 12, "Syntax error: missing ')' at '<EOF>'"],
  [`[1, 2,`, 7, "Syntax error: missing ']' at '<EOF>'"],
  [`object.a b`, 10, "Syntax error: extraneous input 'b' expecting <EOF>"],
  [`object.a b c`, 10, "Syntax error: mismatched input 'b' expecting <EOF>"],
  [`object.a #`, 10, "Syntax error: token recognition error at: '#'"],
  [`as + 1`, 1, 'reserved identifier: as'],
  [`objekt.spec`, 1, "undeclared reference to 'objekt' (in container '')"],
  [`size(objekt)`, 6, "undeclared reference to 'objekt' (in container '')"],
  [`frobnicate(1)`, 11, "undeclared reference to 'frobnicate' (in container '')"],
  [`object.name.frobnicate()`, 23, "undeclared reference to 'frobnicate' (in container '')"],
  [`sets`, 1, "undeclared reference to 'sets' (in container '')"],
  [`1 + 'a'`, 3, "found no matching overload for '_+_' applied to '(int, string)'"],
  [`request.name > 1`, 14, "found no matching overload for '_>_' applied to '(string, int)'"],
  [`!1`, 1, "found no matching overload for '!_' applied to '(int)'"],
  [`size(1)`, 5, "found no matching overload for 'size' applied to '(int)'"],
  [`'a'.startsWith(1)`, 15, "found no matching overload for 'startsWith' applied to 'string.(int)'"],
  [`sets.contains([1], ['a'])`, 14, "found no matching overload for 'sets.contains' applied to '(list(int), list(string))'"],
  [`true ? 1 : 'a'`, 6, "found no matching overload for '_?_:_' applied to '(bool, int, string)'"],
  [`[1][true]`, 4, "found no matching overload for '_[_]' applied to '(list(int), bool)'"],
  [`request.foo`, 8, "undefined field 'foo'"],
  [`request.userInfo.nope`, 17, "undefined field 'nope'"],
  [`namespaceObject.metadata.nope == ''`, 25, "undefined field 'nope'"],
  [`variables.nope`, 10, "undefined field 'nope'"],
  [`1.all(x, x)`, 1, "expression of type 'int' cannot be range of a comprehension (must be list, map, or dynamic)"],
  [`[1].all(1, true)`, 9, 'argument must be a simple name'],
  [`[1].map(1, 1)`, 9, 'argument is not an identifier'],
  [`{'a': 1}.all(k, k, true)`, 17, 'duplicate variable name: k'],
  [`has(object)`, 5, 'invalid argument to has() macro'],
  [`b'abc'.json()`, 12, "undeclared reference to 'json' (in container '')"],
  [`[1, 'a']`, 5, "expected type 'int' but found 'string'"],
  [`{'a': 1, 'b': 'c'}`, 15, "expected type 'int' but found 'string'"],
  [`[object.a, 1]`, 12, "expected type 'dyn' but found 'int'"],
  [`'%d'.format(['a'])`, 14, 'error during formatting: decimal clause can only be used on integers, was given string'],
  [`'%s %s'.format(['a'])`, 15, 'index 1 out of range'],
  [`'%s'.format(['a', 'b'])`, 12, 'too many arguments supplied to string.format (expected 1, got 2)'],
  [`'%q'.format(['a'])`, 12, 'could not parse formatting clause: unrecognized formatting clause "q"'],
];

for (const [src, col, msg] of CASES) {
  test(`compile error: ${src}`, () => assert.equal(compileErrorOf(src), detail(src, col, msg)));
}

test('compile error: math and base64 are not libraries Kubernetes 1.34 enables', () => {
  assert.match(compileErrorOf(`math.greatest(1, 2)`), /1:1: undeclared reference to 'math'[\s\S]*1:14: undeclared reference to 'greatest'/);
  assert.match(compileErrorOf(`base64.encode(b'a')`), /undeclared reference to 'base64'/);
});

test('compile error: every undeclared reference is reported, in source order', () => {
  assert.equal(
    compileErrorOf(`cel.bind(x, 1, x + 1)`),
    [
      "compilation failed: ERROR: <input>:1:1: undeclared reference to 'cel' (in container '')",
      ' | cel.bind(x, 1, x + 1)',
      ' | ^',
      "ERROR: <input>:1:9: undeclared reference to 'bind' (in container '')",
      ' | cel.bind(x, 1, x + 1)',
      ' | ........^',
      "ERROR: <input>:1:10: undeclared reference to 'x' (in container '')",
      ' | cel.bind(x, 1, x + 1)',
      ' | .........^',
      "ERROR: <input>:1:16: undeclared reference to 'x' (in container '')",
      ' | cel.bind(x, 1, x + 1)',
      ' | ...............^',
    ].join('\n'),
  );
});

test('compile error: positions count code points; the caret line marks wide characters', () => {
  assert.equal(compileErrorOf(`'é' + 1`), "compilation failed: ERROR: <input>:1:5: found no matching overload for '_+_' applied to '(string, int)'\n | 'é' + 1\n | .．..^");
});

test('compile error: errors on later lines carry their line number', () => {
  assert.match(compileErrorOf(`object.a ==\n  nope`), /ERROR: <input>:2:3: undeclared reference to 'nope'/);
});

test('result type: an expression must evaluate to what its field takes', () => {
  assert.equal(compileErrorOf(`1 + 1`, env, 'bool'), 'must evaluate to bool but got int');
  assert.equal(compileErrorOf(`[1]`, env, 'bool'), 'must evaluate to bool but got list(int)');
  assert.equal(compileErrorOf(`object.spec`, env, 'bool'), 'must evaluate to bool but got dyn');
  assert.equal(compileErrorOf(`1`, env, 'string-or-null'), 'must evaluate to one of [string null_type] but got int');
  assert.equal(env.problem(`null`, 'string-or-null'), undefined);
  assert.equal(env.problem(`object.spec.x == 1`, 'bool'), undefined);
  // A function result on a dyn receiver: cel-js cannot tell, so it is not held against the expression.
  assert.equal(env.problem(`object.items.max()`, 'bool'), undefined);
});

test('declarations: params and authorizer exist only when declared', () => {
  const bare = admissionEnvironment({ params: false, authorizer: false });
  assert.match(compileErrorOf(`params.x`, bare), /undeclared reference to 'params'/);
  assert.match(compileErrorOf(`authorizer.path('/x').check('get').allowed()`, bare), /undeclared reference to 'authorizer'/);
  assert.match(compileErrorOf(`variables.x`, bare), /undeclared reference to 'variables'/);
  assert.equal(env.problem(`params.x == 1 && authorizer.requestResource.check('get').allowed()`), undefined);
});

test('declarations: typed variables type-check their uses', () => {
  const typed = admissionEnvironment({ params: false, authorizer: false, variables: { n: 'int', s: 'string' } });
  assert.equal(typed.problem(`variables.n + 1 > 2`, 'bool'), undefined);
  assert.match(compileErrorOf(`variables.s + 1`, typed), /found no matching overload for '_\+_' applied to '\(string, int\)'/);
});

test('syntax: a stray character is skipped, as ANTLR skips it, and what the rest lacks is reported too', () => {
  assert.equal(
    compileErrorOf(`1 + $`),
    [
      "compilation failed: ERROR: <input>:1:5: Syntax error: token recognition error at: '$'",
      ' | 1 + $',
      ' | ....^',
      `ERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting ${EXPR_START}`,
      ' | 1 + $',
      ' | .....^',
    ].join('\n'),
  );
});

test('variable types: a compiled variable tells its type to the expressions after it', () => {
  assert.equal(env.compile(`object.spec.containers.map(c, c.name)`).variableType, 'list<dyn>');
  assert.equal(env.compile(`['a'].map(c, c + 'b')`).variableType, 'list<string>');
  assert.equal(env.compile(`size(object.x) > 1`).variableType, 'bool');
  assert.equal(env.compile(`quantity('1')`).variableType, 'dyn');
  assert.equal(env.compile(`{'a': [1]}`).variableType, 'map<string, list<int>>');
  const next = admissionEnvironment({ params: false, authorizer: false, variables: { names: env.compile(`['a'].map(c, c + 'b')`).variableType } });
  assert.match(compileErrorOf(`variables.names + 1`, next), /found no matching overload for '_\+_' applied to '\(list\(string\), int\)'/);
});

test('declarations: null compares with object, opaque, timestamp and duration types (cel-go\'s legacy nullability)', () => {
  assert.equal(env.problem(`namespaceObject == null || namespaceObject.metadata.name != 'kube-system'`, 'bool'), undefined);
  assert.equal(env.problem(`quantity('1') != null && null != timestamp('2023-01-01T00:00:00Z')`, 'bool'), undefined);
  assert.match(compileErrorOf(`1 == null`), /found no matching overload for '_==_' applied to '\(int, null\)'/);
});

test('compile error: a method on a dyn receiver still needs an overload its arguments fit', () => {
  assert.match(compileErrorOf(`object.name.startsWith(1)`), /ERROR: <input>:1:23: found no matching overload for 'startsWith' applied to 'dyn\.\(int\)'/);
  assert.match(compileErrorOf(`object.x.quantity()`), /found no matching overload for 'quantity' applied to 'dyn\.\(\)'/);
  assert.equal(env.problem(`object.name.startsWith('a') && object.items.indexOf(1) >= 0 && object.s.indexOf('a', 1) > 0`), undefined);
});
