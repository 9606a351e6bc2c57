/**
 * Validation as upstream's AsTyped does it, with its exact error texts (they reach apply responses as
 * `failed to create typed patch object (…): <text>`).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { messageSchema, type FieldNode, type ObjectSchema } from '../../src/schema/type-schema.ts';
import type { JsonValue } from '../../src/ssa/fieldpath/path-element.ts';
import { SchemaError, validate } from '../../src/ssa/typed/index.ts';

const deployment = messageSchema('k8s.io.api.apps.v1.Deployment');
const configMap = messageSchema('k8s.io.api.core.v1.ConfigMap');
const revision = messageSchema('k8s.io.api.apps.v1.ControllerRevision');

function errorOf(value: JsonValue, schema: ObjectSchema = deployment, allowDuplicates = false): string {
  try {
    validate(value, schema, { allowDuplicates });
  } catch (e) {
    assert.ok(e instanceof SchemaError);
    return e.message;
  }
  return 'valid';
}

const containers = (items: JsonValue[]): JsonValue => ({ spec: { template: { spec: { containers: items } } } });
const C = '.spec.template.spec.containers';

describe('scalars', () => {
  test('numbers, strings and booleans of the wrong kind', () => {
    assert.equal(errorOf({ spec: { replicas: 'x' } }), '.spec.replicas: expected numeric (int or float), got string');
    assert.equal(errorOf({ spec: { replicas: true } }), '.spec.replicas: expected numeric (int or float), got bool');
    assert.equal(errorOf({ spec: { replicas: {} } }), '.spec.replicas: expected numeric (int or float), got map[string]interface {}');
    assert.equal(errorOf({ metadata: { name: 1 } }), '.metadata.name: expected string, got &value.valueUnstructured{Value:1}');
    assert.equal(errorOf({ metadata: { name: ['a', 2.5] } }), '.metadata.name: expected string, got &value.valueUnstructured{Value:[]interface {}{"a", 2.5}}');
    assert.equal(errorOf({ spec: { paused: 'yes' } }), '.spec.paused: expected boolean, got &{yes}');
    assert.equal(errorOf({ spec: { paused: 1e21 } }), '.spec.paused: expected boolean, got &{1e+21}');
    assert.equal(errorOf({ spec: { paused: { b: 1, a: [1, 'x'] } } }), '.spec.paused: expected boolean, got &{map[a:[1 x] b:1]}');
  });

  test('nulls are valid everywhere', () => {
    assert.equal(errorOf({ spec: { replicas: null, paused: null, selector: null, template: { spec: { containers: null } } } }), 'valid');
  });

  test('untyped scalars (quantities, int-or-strings, times) take any scalar but no container', () => {
    assert.equal(errorOf(containers([{ name: 'c', resources: { limits: { cpu: 1, memory: '1Gi' } } }])), 'valid');
    assert.equal(errorOf({ metadata: { creationTimestamp: { a: 'b' } } }), '.metadata.creationTimestamp: expected any scalar, got &{map[a:b]}');
  });
});

describe('structure', () => {
  test('undeclared fields; the walk of a map stops at the first', () => {
    assert.equal(errorOf({ spec: { foo: 1, replicas: 'x' } }), '.spec.foo: field not declared in schema');
    assert.equal(errorOf({ status2: {} }), '.status2: field not declared in schema');
  });

  test('several errors are listed under errors:', () => {
    assert.equal(
      errorOf({ spec: { replicas: 'x', paused: 'y' } }),
      ['errors:', '  .spec.replicas: expected numeric (int or float), got string', '  .spec.paused: expected boolean, got &{y}'].join('\n'),
    );
  });

  test('lists and maps of the wrong shape', () => {
    assert.equal(errorOf({ metadata: { finalizers: 'a' } }, configMap), '.metadata.finalizers: expected list, got &{a}');
    assert.equal(errorOf({ spec: 5 }), '.spec: expected map, got &{5}');
    assert.equal(errorOf({ data: ['a'] }, configMap), '.data: expected map, got &{[a]}');
  });

  test('errors inside list items carry the item’s name', () => {
    assert.equal(errorOf(containers([{ name: 'a', image: 3 }])), `${C}[name="a"].image: expected string, got &value.valueUnstructured{Value:3}`);
    assert.equal(
      errorOf(containers([{ name: 'a', ports: [{ containerPort: 'x' }] }])),
      `${C}[name="a"].ports[containerPort="x",protocol="TCP"].containerPort: expected numeric (int or float), got string`,
    );
  });

  test('RawExtension takes any JSON', () => {
    assert.equal(errorOf({ data: [1, { a: [null] }], revision: 2 }, revision), 'valid');
  });

  test('untyped (preserve-unknown-fields) values take any JSON', () => {
    const node: FieldNode = { name: 'spec', schema: { kind: 'any' }, required: false, goType: '', goElementType: '', patchStrategies: [], patchMergeKey: '' };
    const crd: ObjectSchema = { kind: 'object', goName: 'X', typeMeta: true, atomic: false, fields: new Map([['spec', node]]) };
    assert.equal(errorOf({ apiVersion: 'x/v1', kind: 'X', spec: { a: [{ b: 1 }], c: null } }, crd), 'valid');
    assert.equal(errorOf({ other: 1 }, crd), '.other: field not declared in schema');
  });
});

describe('associative list items', () => {
  test('items that cannot be named stop the walk of their list', () => {
    assert.equal(errorOf(containers([null])), `${C}: element 0: associative list with keys may not have a null element`);
    assert.equal(errorOf(containers(['c'])), `${C}: element 0: associative list with keys may not have non-map elements`);
    assert.equal(
      errorOf(containers([{ name: 'a', image: 1 }, { image: 'x' }, { name: 'b', image: 2 }])),
      [
        'errors:',
        `  ${C}[name="a"].image: expected string, got &value.valueUnstructured{Value:1}`,
        `  ${C}: element 1: associative list with keys has an element that omits all key fields ["name"] (and doesn't have default values for any key fields)`,
      ].join('\n'),
    );
  });

  test('set items must be scalars', () => {
    assert.equal(errorOf({ metadata: { finalizers: [{ a: 1 }] } }, configMap), ".metadata.finalizers: element 0: associative list without keys has an element that's a map type");
    assert.equal(errorOf({ metadata: { finalizers: ['a', null] } }, configMap), ".metadata.finalizers: element 1: associative list without keys has an element that's an explicit null");
    assert.equal(errorOf({ metadata: { finalizers: [['a']] } }, configMap), '.metadata.finalizers: element 0: not supported: associative list with lists as elements');
  });

  test('duplicates are errors unless allowed; a defaulted key counts as given', () => {
    assert.equal(errorOf({ metadata: { finalizers: ['a', 'b', 'a'] } }, configMap), '.metadata.finalizers: duplicate entries for key [="a"]');
    assert.equal(errorOf({ metadata: { finalizers: ['a', 'b', 'a'] } }, configMap, true), 'valid');
    assert.equal(errorOf(containers([{ name: 'a' }, { name: 'a' }])), `${C}: duplicate entries for key [name="a"]`);
    assert.equal(
      errorOf(containers([{ name: 'a', ports: [{ containerPort: 80 }, { containerPort: 80, protocol: 'TCP' }] }])),
      `${C}[name="a"].ports: duplicate entries for key [containerPort=80,protocol="TCP"]`,
    );
    assert.equal(errorOf(containers([{ name: 'a', ports: [{ containerPort: 80 }, { containerPort: 80, protocol: 'UDP' }] }])), 'valid');
  });

  test('atomic lists are not checked for duplicates', () => {
    assert.equal(errorOf(containers([{ name: 'a', args: ['x', 'x'] }])), 'valid');
  });
});

describe('SchemaError', () => {
  test('carries every error with its path and message', () => {
    try {
      validate({ spec: { replicas: 'x', paused: 'y' } }, deployment);
      assert.fail('expected SchemaError');
    } catch (e) {
      assert.ok(e instanceof SchemaError);
      assert.deepEqual(e.errors, [
        { path: '.spec.replicas', message: 'expected numeric (int or float), got string' },
        { path: '.spec.paused', message: 'expected boolean, got &{y}' },
      ]);
    }
  });
});
