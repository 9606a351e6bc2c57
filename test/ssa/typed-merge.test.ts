/**
 * merge (upstream's TypedValue.Merge), with upstream merge_test's set-ordering triplets ported onto
 * finalizers and its null/empty cases onto real fields.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { messageSchema, type FieldNode, type ObjectSchema } from '../../src/schema/type-schema.ts';
import type { JsonValue } from '../../src/ssa/fieldpath/path-element.ts';
import { merge } from '../../src/ssa/typed/index.ts';

const deployment = messageSchema('k8s.io.api.apps.v1.Deployment');
const configMap = messageSchema('k8s.io.api.core.v1.ConfigMap');
const pod = messageSchema('k8s.io.api.core.v1.Pod');

const fin = (xs: string[]): JsonValue => ({ metadata: { finalizers: xs } });
const split = (s: string): string[] => (s === '' ? [] : s.split(','));

describe('set order after a merge (merge_test triplets)', () => {
  // [live, config, merged]
  const triplets: [string, string, string][] = [
    ['a,b,c', 'a,b', 'a,b,c'],
    ['a,b', 'a,b,c', 'a,b,c'],
    ['a,b,c', '', 'a,b,c'],
    ['', 'a,b,c', 'a,b,c'],
    ['a,b', 'b,a', 'b,a'],
    ['a,b,c', 'd,e,f', 'a,b,c,d,e,f'],
    ['a,b,c', 'c,d,e,f', 'a,b,c,d,e,f'],
    ['a,b,c,g,f', 'c,d,e,f', 'a,b,c,g,d,e,f'],
    ['a,b,c', 'd,e,f,x,y,z', 'a,b,c,d,e,f,x,y,z'],
    ['c,d,e,f', 'a,c,e', 'a,c,d,e,f'],
    ['a,b,c,x,y,z', 'd,e,f', 'a,b,c,x,y,z,d,e,f'],
    ['a,b,c,x,y,z', 'd,e,f,x,y,z', 'a,b,c,d,e,f,x,y,z'],
    ['c,a,g,f', 'c,f,a,g', 'c,f,a,g'],
    ['a,b,c,d', 'd,e,f,a', 'b,c,d,e,f,a'],
    ['c,d,e,f,g,h,i,j', '2,h,3,e,4,k,l', 'c,d,f,g,2,h,i,j,3,e,4,k,l'],
    ['a,b,c,d,e,f,g,h,i,j', '1,b,2,h,3,e,4,k,l', 'a,1,b,c,d,f,g,2,h,i,j,3,e,4,k,l'],
    // Duplicates on the live side: kept when untouched, collapsed to the configuration's item otherwise.
    ['a,b,b', 'c', 'a,b,b,c'],
    ['a,b,b', 'b', 'a,b'],
    ['a,b,b', 'a', 'a,b,b'],
    ['a,b,c,d,e,c', '1,b,2,e,d', 'a,1,b,c,2,e,c,d'],
    ['a,b,c,d,e,c', '1,b,2,c,e,d', 'a,1,b,2,c,e,d'],
    ['a,a,b,b', 'b,c,d', 'a,a,b,c,d'],
    ['a,a,b,b', '', 'a,a,b,b'],
  ];
  for (const [live, config, out] of triplets) {
    test(`[${live}] + [${config}] = [${out}]`, () => {
      assert.deepEqual(merge(fin(split(live)), fin(split(config)), configMap), fin(split(out)));
    });
  }
});

describe('list maps', () => {
  const containers = (...items: JsonValue[]): JsonValue => ({ spec: { template: { spec: { containers: items } } } });

  test('items merge field by field, matched by key', () => {
    const live = containers({ name: 'a', image: 'x', workingDir: '/w' }, { name: 'b', image: 'y' });
    const config = containers({ name: 'b', image: 'z' });
    assert.deepEqual(merge(live, config, deployment), containers({ name: 'a', image: 'x', workingDir: '/w' }, { name: 'b', image: 'z' }));
  });

  test('nested list maps merge too; a defaulted key matches the stated one', () => {
    const live = containers({ name: 'a', ports: [{ containerPort: 80, protocol: 'TCP', name: 'http' }] });
    const config = containers({ name: 'a', ports: [{ containerPort: 80, hostPort: 8080 }, { containerPort: 443 }] });
    assert.deepEqual(
      merge(live, config, deployment),
      containers({ name: 'a', ports: [{ containerPort: 80, protocol: 'TCP', name: 'http', hostPort: 8080 }, { containerPort: 443 }] }),
    );
  });

  test('atomic lists and structs are replaced whole', () => {
    assert.deepEqual(
      merge(containers({ name: 'a', args: ['x', 'y'] }), containers({ name: 'a', args: ['z'] }), deployment),
      containers({ name: 'a', args: ['z'] }),
    );
    assert.deepEqual(
      merge({ spec: { selector: { matchLabels: { a: '1' }, matchExpressions: [] } } }, { spec: { selector: { matchLabels: { b: '2' } } } }, deployment),
      { spec: { selector: { matchLabels: { b: '2' } } } },
    );
  });

  test('a live item that is duplicated is replaced by the configuration’s, never merged with either copy', () => {
    const live = containers({ name: 'a', image: '1' }, { name: 'b' }, { name: 'a', image: '2' });
    assert.deepEqual(merge(live, containers({ name: 'a', workingDir: '/w' }), deployment), containers({ name: 'a', workingDir: '/w' }, { name: 'b' }));
  });

  test('a configuration with duplicate items is rejected', () => {
    assert.throws(() => merge(containers(), containers({ name: 'a' }, { name: 'a' }), deployment), {
      name: 'SchemaError',
      message: '.spec.template.spec.containers: duplicate entries for key [name="a"]',
    });
  });
});

describe('maps, nulls and empties (merge_test null/empty cases)', () => {
  const cases: [string, JsonValue, JsonValue, JsonValue][] = [
    ['empty map added', {}, { metadata: { labels: {} } }, { metadata: { labels: {} } }],
    ['null map added', {}, { metadata: { labels: null } }, { metadata: { labels: null } }],
    ['null map to empty', { metadata: { labels: null } }, { metadata: { labels: {} } }, { metadata: { labels: {} } }],
    ['empty map to null', { metadata: { labels: {} } }, { metadata: { labels: null } }, { metadata: { labels: null } }],
    ['null struct to empty', { spec: { strategy: null } }, { spec: { strategy: {} } }, { spec: { strategy: {} } }],
    ['empty struct to null', { spec: { strategy: {} } }, { spec: { strategy: null } }, { spec: { strategy: null } }],
    ['empty atomic list to null', { spec: { template: { spec: { tolerations: [] } } } }, { spec: { template: { spec: { tolerations: null } } } }, { spec: { template: { spec: { tolerations: null } } } }],
    ['null over a full map keeps its keys', { metadata: { labels: { a: '1' } } }, { metadata: { labels: null } }, { metadata: { labels: { a: '1' } } }],
    ['empty list over a full set keeps its items', { metadata: { finalizers: ['a'] } }, { metadata: { finalizers: [] } }, { metadata: { finalizers: ['a'] } }],
    ['explicit null scalar wins', { spec: { replicas: 3 } }, { spec: { replicas: null } }, { spec: { replicas: null } }],
    ['granular map keys merge', { metadata: { labels: { a: '1', b: '2' } } }, { metadata: { labels: { b: '3', c: '4' } } }, { metadata: { labels: { a: '1', b: '3', c: '4' } } }],
  ];
  for (const [name, live, config, out] of cases) {
    test(name, () => {
      const schema = name.includes('struct') || name.includes('list') || name.includes('scalar') ? deployment : configMap;
      assert.deepEqual(merge(live, config, schema), out);
    });
  }

  test('an atomic map (nodeSelector) is replaced whole', () => {
    assert.deepEqual(
      merge({ spec: { nodeSelector: { a: '1' } } }, { spec: { nodeSelector: { b: '2' } } }, pod),
      { spec: { nodeSelector: { b: '2' } } },
    );
  });

  test('live keys keep their order, new keys follow', () => {
    const out = merge({ metadata: { labels: { z: '1', a: '2' } } }, { metadata: { labels: { m: '3', z: '4' } } }, configMap) as { metadata: { labels: object } };
    assert.deepEqual(Object.keys(out.metadata.labels), ['z', 'a', 'm']);
  });

  test('an untyped value changing kind takes the configuration’s', () => {
    const node: FieldNode = { name: 'spec', schema: { kind: 'any' }, required: false, goType: '', goElementType: '', patchStrategies: [], patchMergeKey: '' };
    const crd: ObjectSchema = { kind: 'object', goName: 'X', typeMeta: true, atomic: false, fields: new Map([['spec', node]]) };
    assert.deepEqual(merge({ spec: { a: { b: 1 }, l: [1] } }, { spec: { a: 5, l: [2] } }, crd), { spec: { a: 5, l: [2] } });
    assert.deepEqual(merge({ spec: { a: 5 } }, { spec: { a: { b: 1 } } }, crd), { spec: { a: { b: 1 } } });
  });

  test('inputs are not modified', () => {
    const live = { metadata: { labels: { a: '1' }, finalizers: ['x'] } };
    const config = { metadata: { labels: { b: '2' }, finalizers: ['y'] } };
    const copies = structuredClone([live, config]);
    merge(live, config, configMap);
    assert.deepEqual([live, config], copies);
  });
});

describe('a map key named __proto__', () => {
  test('is merged and kept as an own key, as Go keeps any key', () => {
    const live = JSON.parse('{"data":{"__proto__":"a","b":"1"}}') as JsonValue;
    const config = JSON.parse('{"data":{"__proto__":"x","c":"2"}}') as JsonValue;
    const out = merge(live, config, configMap) as { data: Record<string, string> };
    assert.deepEqual(Object.keys(out.data), ['__proto__', 'b', 'c']);
    assert.equal(Object.getOwnPropertyDescriptor(out.data, '__proto__')?.value, 'x');
    assert.equal(Object.getPrototypeOf(out.data), Object.prototype);
  });
});
