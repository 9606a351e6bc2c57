import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fieldErrorText, invalid as invalidStatus } from '../../src/api/errors.ts';
import * as field from '../../src/registry/validation/field.ts';

const line = (e: ReturnType<typeof field.invalid>) => `${e.field}: ${fieldErrorText(e)}`;

// Expected texts are those of apimachinery's field package (errors.go and errors_test.go, 1.34).
test('each error type reads as apimachinery 1.34 prints it', () => {
  assert.equal(line(field.required(field.path('spec', 'name'))), 'spec.name: Required value');
  assert.equal(line(field.required(field.path('spec'), 'name is required')), 'spec: Required value: name is required');
  assert.equal(line(field.invalid(field.path('a'), 'x', 'bad')), 'a: Invalid value: "x": bad');
  assert.equal(line(field.invalid(field.path('a'), 5, 'bad')), 'a: Invalid value: 5: bad');
  assert.equal(line(field.invalid(field.path('a'), -1.5, 'bad')), 'a: Invalid value: -1.5: bad');
  assert.equal(line(field.invalid(field.path('a'), true, 'bad')), 'a: Invalid value: true: bad');
  assert.equal(line(field.invalid(field.path('a'), null, 'bad')), 'a: Invalid value: null: bad');
  assert.equal(line(field.invalid(field.path('a'), { b: 1, a: '<x>' }, 'bad')), 'a: Invalid value: {"a":"\\u003cx\\u003e","b":1}: bad');
  assert.equal(line(field.invalid(field.path('a'), ['x', 'y'], 'bad')), 'a: Invalid value: ["x","y"]: bad');
  assert.equal(line(field.invalid(field.path('a'), 'tab\there', 'bad')), 'a: Invalid value: "tab\\there": bad');
  assert.equal(line(field.typeInvalid(field.path('a'), 'x', 'must be an integer')), 'a: Invalid value: "x": must be an integer');
  assert.equal(line(field.notSupported(field.path('type'), 'X', ['A', 'B'])), 'type: Unsupported value: "X": supported values: "A", "B"');
  assert.equal(line(field.notSupported(field.path('type'), 'X', [])), 'type: Unsupported value: "X"');
  assert.equal(line(field.forbidden(field.path('spec'), 'not allowed')), 'spec: Forbidden: not allowed');
  assert.equal(line(field.tooLong(field.path('data'), 1048576)), 'data: Too long: may not be more than 1048576 bytes');
  assert.equal(line(field.tooLong(field.path('data'), 1)), 'data: Too long: may not be more than 1 byte');
  assert.equal(line(field.tooLong(field.path('data'), -1)), 'data: Too long: value is too long');
  assert.equal(line(field.tooLongCharacters(field.path('note'), 10)), 'note: Too long: may not be more than 10 characters');
  assert.equal(line(field.tooMany(field.path('items'), 5, 3)), 'items: Too many: 5: must have at most 3 items');
  assert.equal(line(field.tooMany(field.path('items'), 2, 1)), 'items: Too many: 2: must have at most 1 item');
  assert.equal(line(field.tooMany(field.path('items'), -1, -1)), 'items: Too many: has too many items');
  assert.equal(line(field.duplicate(field.path('keys').index(2), 'k')), 'keys[2]: Duplicate value: "k"');
  assert.equal(line(field.notFound(field.path('ref'), 'x')), 'ref: Not found: "x"');
  assert.equal(line(field.immutable(field.path('type'), 'Opaque')), 'type: Invalid value: "Opaque": field is immutable');
});

test('paths are written as upstream writes them', () => {
  assert.equal(String(field.path('spec').child('finalizers').index(0)), 'spec.finalizers[0]');
  assert.equal(String(field.path('data').key('a.b')), 'data[a.b]');
  assert.equal(String(field.path('metadata').child('labels', 'x')), 'metadata.labels.x');
  assert.equal(String(field.path()), '');
  assert.equal(String(field.path().child('spec')), 'spec');
});

test('a 422 lists one cause per error and the summary in upstream form', () => {
  const err = invalidStatus('', 'ConfigMap', 'c', [field.required(field.path('a')), field.invalid(field.path('b'), 'x', 'bad')]);
  assert.equal(err.status.message, 'ConfigMap "c" is invalid: [a: Required value, b: Invalid value: "x": bad]');
  assert.deepEqual(err.status.details?.causes, [
    { reason: 'FieldValueRequired', message: 'Required value', field: 'a' },
    { reason: 'FieldValueInvalid', message: 'Invalid value: "x": bad', field: 'b' },
  ]);
});
