import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  comparePathElements,
  comparePaths,
  fieldElement,
  indexElement,
  keyElement,
  parsePathElement,
  pathElementsEqual,
  pathElementText,
  pathString,
  valueElement,
  type PathElement,
} from '../../src/ssa/fieldpath/path-element.ts';
import { key as k } from './fixtures.ts';

const f = fieldElement;
const v = valueElement;
const i = indexElement;

// Upstream element_test.go TestPathElementLess: a < b, or equal.
const ordered: [string, PathElement, PathElement, boolean][] = [
  ['FieldName-1', f('anteater'), f('zebra'), false],
  ['FieldName-2', f('bee'), f('bee'), true],
  ['FieldName-3', f('capybara'), k('dog', 3), false],
  ['FieldName-4', f('elephant'), v(4), false],
  ['FieldName-5', f('falcon'), i(5), false],
  ['Key-1', k('goat', 1), k('goat', 1), true],
  ['Key-2', k('horse', 1), k('horse', 2), false],
  ['Key-3', k('ibex', 1), k('jay', 1), false],
  ['Key-4', k('kite', 1), k('kite', 1, 'kite-2', 1), false],
  ['Key-5', k('kite', 1), v(1), false],
  ['Key-6', k('kite', 1), i(5), false],
  ['Value-1', v(1), v(2), false],
  ['Value-2', v(1), v(1), true],
  ['Value-3', v(1), i(1), false],
  ['Index-1', i(1), i(2), false],
  ['Index-2', i(1), i(1), true],
];

for (const [name, a, b, eq] of ordered) {
  test(`path element order: ${name}`, () => {
    assert.equal(comparePathElements(a, b), eq ? 0 : -1);
    assert.equal(comparePathElements(b, a), eq ? 0 : 1);
    assert.equal(pathElementsEqual(a, b), eq);
  });
}

test('fields sort before keys, keys before values, values before indexes, whatever their content', () => {
  const mixed = [i(0), v('a'), k('name', 'z'), f('zzz'), v(1), f('a'), k('a', 1), i(-1)];
  assert.deepEqual(
    mixed.sort(comparePathElements).map(pathElementText),
    ['f:a', 'f:zzz', 'k:{"a":1}', 'k:{"name":"z"}', 'v:1', 'v:"a"', 'i:-1', 'i:0'],
  );
});

test('field names order by UTF-8 bytes, not UTF-16 units', () => {
  // U+FF5E (three UTF-8 bytes, one UTF-16 unit above the surrogates) sorts before U+1F600 (four bytes).
  assert.equal(comparePathElements(f('\uff5e'), f('\u{1f600}')), -1);
  assert.equal(comparePathElements(f('\u{1f600}'), f('\uff5e')), 1);
  assert.equal(comparePathElements(f('a'), f('ab')), -1);
});

test('key fields are sorted by name and compare lexically, name then value', () => {
  const key = keyElement([['protocol', 'TCP'], ['port', 80]]);
  assert.equal(pathElementText(key), 'k:{"port":80,"protocol":"TCP"}');
  assert.equal(comparePathElements(k('port', 80, 'protocol', 'TCP'), k('port', 80, 'protocol', 'UDP')), -1);
  assert.equal(comparePathElements(k('port', 443, 'protocol', 'TCP'), k('port', 80, 'protocol', 'UDP')), 1);
  // A float and an int of the same value are one key.
  assert.ok(pathElementsEqual(k('port', 80), parsePathElement('k:{"port":80.0}')));
});

test('paths compare element by element, a prefix first', () => {
  assert.equal(comparePaths([f('a')], [f('a'), f('b')]), -1);
  assert.equal(comparePaths([f('a'), i(2)], [f('a'), i(1)]), 1);
  assert.equal(comparePaths([f('a'), i(2)], [f('a'), i(2)]), 0);
});

// Upstream path_test.go TestPathString.
const pathStrings: [string, PathElement[], string][] = [
  ['basic1', [f('foo'), i(1)], '.foo[1]'],
  ['basic2', [f('foo'), f('bar'), i(1), f('baz')], '.foo.bar[1].baz'],
  ['associative-list-ref', [f('foo'), k('a', 'b', 'c', 1, 'd', 1.5, 'e', true)], '.foo[a="b",c=1,d=1.5,e=true]'],
  ['sets', [f('foo'), v('b'), v(5), v(false), v(3.14159)], '.foo[="b"][=5][=false][=3.14159]'],
  ['simple field', [f('spec')], '.spec'],
  ['app container image', [f('spec'), f('apps'), k('name', 'app-🚀'), f('container'), f('image')], '.spec.apps[name="app-🚀"].container.image'],
  ['field with space', [f('spec'), f('field with space')], '.spec.field with space'],
  ['value with quotes', [f('spec'), f('apps'), v('app with "quotes"'), f('container')], '.spec.apps[="app with \\"quotes\\""].container'],
  ['value with unicode', [f('spec'), v('app-with-unicøde')], '.spec[="app-with-unicøde"]'],
  ['empty path', [], ''],
  ['index at the top', [i(3)], '[3]'],
  ['finalizer', [f('metadata'), f('finalizers'), v('x')], '.metadata.finalizers[="x"]'],
  ['null and nested key values', [k('a', null, 'b', [1, 'x'], 'c', { y: 2, x: 'z' })], '[a=null,b=[1,"x"],c=x="z"y=2]'],
];

for (const [name, path, expected] of pathStrings) {
  test(`pathString: ${name}`, () => assert.equal(pathString(path), expected));
}

test('pathString prints numbers as Go prints the int64 or float64 the apiserver holds', () => {
  assert.equal(pathString([v(1000000)]), '[=1000000]');
  assert.equal(pathString([v(1234567.5)]), '[=1.2345675e+06]');
  assert.equal(pathString([v(0.00001)]), '[=1e-05]');
  assert.equal(pathString([v(0.0001)]), '[=0.0001]');
  assert.equal(pathString([v(-2.5)]), '[=-2.5]');
  assert.equal(pathString([v(1e21)]), '[=1e+21]');
});

test('pathString quotes strings as Go %q does', () => {
  assert.equal(pathString([v('tab\there\u0001\u00a0é\u2028')]), '[="tab\\there\\x01\\u00a0é\\u2028"]');
});

// Upstream serialize-pe_test.go TestPathElementRoundTrip, with the element each text stands for.
const roundTrips: [string, PathElement][] = [
  ['i:0', i(0)],
  ['i:1234', i(1234)],
  ['f:', f('')],
  ['f:spec', f('spec')],
  ['f:more-complicated-string', f('more-complicated-string')],
  ['f: string-with-spaces   ', f(' string-with-spaces   ')],
  ['f:abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', f('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789')],
  ['k:{"name":"my-container"}', k('name', 'my-container')],
  ['k:{"name":"   name with spaces   "}', k('name', '   name with spaces   ')],
  ['k:{"port":"8080","protocol":"TCP"}', k('port', '8080', 'protocol', 'TCP')],
  ['k:{"optionalField":null}', k('optionalField', null)],
  ['k:{"jsonField":{"A":1,"B":null,"C":"D","E":{"F":"G"}}}', k('jsonField', { A: 1, B: null, C: 'D', E: { F: 'G' } })],
  ['k:{"listField":["1","2","3"]}', k('listField', ['1', '2', '3'])],
  ['v:null', v(null)],
  ['v:"some-string"', v('some-string')],
  ['v:1234', v(1234)],
  ['v:{"some":"json"}', v({ some: 'json' })],
  ['v:{"some":" some  with spaces  "}', v({ some: ' some  with spaces  ' })],
  ['k:{"name":"app-🚀"}', k('name', 'app-🚀')],
  ['k:{"name":"你好世界"}', k('name', '你好世界')],
  ['k:{"name":"Привет, мир"}', k('name', 'Привет, мир')],
  ['k:{"name":"नमस्ते दुनिया"}', k('name', 'नमस्ते दुनिया')],
  ['f:spec-🚀', f('spec-🚀')],
  ['f:spec-\\n', f('spec-\\n')],
];

for (const [text, pe] of roundTrips) {
  test(`path element text round trip: ${text}`, () => {
    assert.deepEqual(parsePathElement(text), pe);
    assert.equal(pathElementText(pe), text);
  });
}

// Upstream TestDeserializePathElementSuccess, less its trailing-data cases (see below).
const readable: [string, PathElement][] = [
  ['v: {"some":"json"}', v({ some: 'json' })],
  ['k: {"name":"my-container"}', k('name', 'my-container')],
  ['k:{"name\\u002dcontainer":"my-container"}', k('name-container', 'my-container')],
  ['k:{"name\\nwith\\nnewlines":"my-container"}', k('name\nwith\nnewlines', 'my-container')],
  ['k:{"name\\"quoted\\"":"my-container"}', k('name"quoted"', 'my-container')],
  ['k:{"name-\\ud83d\\ude80":"my-container"}', k('name-🚀', 'my-container')],
  ['k:{"\\u4f60\\u597d":"\\u4e16\\u754c"}', k('你好', '世界')],
  ['v:"value\\"quoted\\""', v('value"quoted"')],
  ['v:"\\ud83d"', v('\ufffd')],
  ['v:"\\ud83dx"', v('\ufffdx')],
  ['k:{ "protocol":"udp","port":443}', k('port', 443, 'protocol', 'udp')],
  ['k:null', { kind: 'key', fields: [] }],
  ['i:+7', i(7)],
  ['i:-1', i(-1)],
];

for (const [text, pe] of readable) {
  test(`path element text reads: ${text}`, () => assert.deepEqual(parsePathElement(text), pe));
}

test('a key with a repeated name keeps both fields, as upstream', () => {
  const pe = parsePathElement('k:{"b":1,"a":2,"b":3}');
  assert.deepEqual(pe, { kind: 'key', fields: [['a', 2], ['b', 1], ['b', 3]] });
  assert.equal(pathElementText(pe), 'k:{"a":2,"b":1,"b":3}');
});

test('like kube-apiserver 1.34, text after the JSON value of k: and v: is ignored', () => {
  assert.deepEqual(parsePathElement('v:{"some":"json"} {"other":"json"}'), v({ some: 'json' }));
  assert.deepEqual(parsePathElement('k:{"name":"my-container"} garbage'), k('name', 'my-container'));
  assert.deepEqual(parsePathElement('v:0x10'), v(0));
});

// Upstream TestDeserializePathElementError, with the messages upstream gives.
const malformed: [string, string][] = [
  ['', 'key must be 2 characters long:'],
  ['v', 'key must be 2 characters long:'],
  ['no-colon', 'missing colon: no-colon'],
  ['é', 'missing colon: é'],
  ['i:index is not a number', 'strconv.Atoi: parsing "index is not a number": invalid syntax'],
  ['i:1.23', 'strconv.Atoi: parsing "1.23": invalid syntax'],
  ['i:', 'strconv.Atoi: parsing "": invalid syntax'],
  ['i: 0', 'strconv.Atoi: parsing " 0": invalid syntax'],
  ['i:0 ', 'strconv.Atoi: parsing "0 ": invalid syntax'],
  ['i:9223372036854775808', 'strconv.Atoi: parsing "9223372036854775808": value out of range'],
  ['v:invalid json', 'Read: unexpected value type: 0, error found in #0 byte of ...|invalid js|..., bigger context ...|invalid json|...'],
  ['v:', 'Read: unexpected value type: 0, error found in #0 byte of ...||..., bigger context ...||...'],
  ['k:invalid json', 'ReadObjectCB: expect { or n, but found i, error found in #1 byte of ...|invalid jso|..., bigger context ...|invalid json|...'],
  ['k:{"name":invalid}', 'Read: unexpected value type: 0, error found in #8 byte of ...|{"name":invalid}|..., bigger context ...|{"name":invalid}|...'],
  ['v:{"some":" \\x41"}', 'readEscapedChar: invalid escape char after \\, error found in #10 byte of ...|some":" \\x41"}|..., bigger context ...|{"some":" \\x41"}|...'],
  ['v:{"a":"b"', 'ReadMapCB: object not ended with }, error found in #8 byte of ...|{"a":"b"|..., bigger context ...|{"a":"b"|...'],
  ['k:{"a":"b"', 'ReadObjectCB: object not ended with }, error found in #8 byte of ...|{"a":"b"|..., bigger context ...|{"a":"b"|...'],
  ['k:{"a" 1}', 'ReadObject: expect : after object field, but found 1, error found in #6 byte of ...|{"a" 1}|..., bigger context ...|{"a" 1}|...'],
  ['v:"a\u0001"', 'ReadString: invalid control character found: 1, error found in #1 byte of ...|"a\u0001"|..., bigger context ...|"a\u0001"|...'],
  ['v:tru', 'skipThreeBytes: expect rue, error found in #3 byte of ...|tru|..., bigger context ...|tru|...'],
  ['v:01', 'readFloat64: leading zero is invalid, error found in #0 byte of ...|01|..., bigger context ...|01|...'],
  ['v:1.', 'readFloat64SlowPath: dot can not be last character, error found in #2 byte of ...|1.|..., bigger context ...|1.|...'],
  ['v:-', 'readNumberAsString: invalid number, error found in #1 byte of ...|-|..., bigger context ...|-|...'],
  ['v:+1', 'Read: unexpected value type: 0, error found in #0 byte of ...|+1|..., bigger context ...|+1|...'],
  ['v:1e400', 'strconv.ParseFloat: parsing "1e400": value out of range'],
  ['v:1+2', 'strconv.ParseFloat: parsing "1+2": invalid syntax'],
  ['v:"\\u12x4"', 'readU4: expects 0~9 or a~f, but found x, error found in #6 byte of ...|"\\u12x4"|..., bigger context ...|"\\u12x4"|...'],
];

for (const [text, message] of malformed) {
  test(`malformed path element text: ${JSON.stringify(text)}`, () => {
    assert.throws(() => parsePathElement(text), { message });
  });
}

test('an unknown element type is its own error', () => {
  assert.throws(() => parsePathElement('r:Hello'), { message: 'unknown path element type' });
});

test('values in k: and v: are written as json-iterator writes them: map keys sorted, HTML characters escaped', () => {
  assert.equal(pathElementText(v({ b: 1, a: [true, null], '<': '&' })), 'v:{"\\u003c":"\\u0026","a":[true,null],"b":1}');
  assert.equal(pathElementText(v('a<b>c&d\u2028\u2029')), 'v:"a\\u003cb\\u003ec\\u0026d\\u2028\\u2029"');
  // Key field names are written as plain object keys: only quotes, backslashes and control bytes escaped.
  assert.equal(pathElementText(k('a<b', '<')), 'k:{"a<b":"\\u003c"}');
  assert.equal(pathElementText(v('\b\f\n\r\t\u0000\u007f')), 'v:"\\u0008\\u000c\\n\\r\\t\\u0000\u007f"');
  assert.equal(pathElementText(v(1.5e-7)), 'v:1.5e-7');
  assert.equal(pathElementText(v(1e21)), 'v:1e+21');
  assert.equal(pathElementText(v(123456789012)), 'v:123456789012');
});
