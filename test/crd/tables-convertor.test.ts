/**
 * Server-side Tables for custom resources: apiextensions-apiserver's tableconvertor_test.go
 * (cellForJSONValue, ConvertToTable) and the TestColumns case of customresource etcd_test.go.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../src/api/types.ts';
import { NAME_DESCRIPTION } from '../../src/registry/table.ts';
import {
  cellForJsonValue,
  CREATION_TIMESTAMP_DESCRIPTION,
  customResourceTableConvertor,
  servedPrinterColumns,
} from '../../src/crd/tables/index.ts';
import type { PrinterColumn } from '../../src/crd/validation/types.ts';

const NOW = new Date('2026-01-10T12:00:00Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const HOUR = 3600_000;

describe('cellForJSONValue', () => {
  const cases: Array<[string, unknown, unknown]> = [
    ['integer', 42, 42],
    ['integer', 3.14, 3],
    ['integer', -3.9, -3],
    ['integer', true, null],
    ['integer', 'foo', null],
    ['number', 42, 42],
    ['number', 3.14, 3.14],
    ['number', true, null],
    ['number', 'foo', null],
    ['boolean', 42, null],
    ['boolean', 3.14, null],
    ['boolean', true, true],
    ['boolean', 'foo', null],
    ['string', 42, null],
    ['string', true, null],
    ['string', 'foo', null],
    ['date', 42, null],
    ['date', true, null],
    ['date', ago(12 * HOUR + 30 * 60_000), '12h'],
    ['date', new Date(NOW.getTime() + 12 * HOUR + 30 * 60_000).toISOString(), '<invalid>'],
    ['date', '', '<unknown>'],
    ['date', 'yesterday', '<invalid>'],
    ['date', '2026-01-10T11:59:00.123+00:00', '59s'],
    ['unknown', 'foo', null],
    ['integer', null, null],
  ];
  for (const [type, value, want] of cases) {
    it(`${JSON.stringify(value)} of type ${type}`, () => assert.deepEqual(cellForJsonValue(type, value, NOW), want));
  }
});

describe('served printer columns', () => {
  it('a version without columns is served an Age column', () => {
    assert.deepEqual(servedPrinterColumns(undefined), [
      { name: 'Age', type: 'date', description: CREATION_TIMESTAMP_DESCRIPTION, jsonPath: '.metadata.creationTimestamp' },
    ]);
    assert.equal(servedPrinterColumns([]).length, 1);
  });

  it('a version with columns is served them alone (no implicit Age)', () => {
    const cols: PrinterColumn[] = [{ name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' }];
    assert.deepEqual(servedPrinterColumns(cols), cols);
  });
});

describe('column definitions', () => {
  it('Name first, then each column with its type, format, priority and a default description', () => {
    const { convertor, error } = customResourceTableConvertor([
      { name: 'Replicas', type: 'integer', format: 'int32', priority: 1, jsonPath: '.spec.replicas' },
      { name: 'Phase', type: 'string', description: 'the phase', jsonPath: '.status.phase' },
    ]);
    assert.equal(error, undefined);
    assert.deepEqual(convertor.columnDefinitions, [
      { name: 'Name', type: 'string', format: 'name', description: NAME_DESCRIPTION, priority: 0 },
      { name: 'Replicas', type: 'integer', format: 'int32', description: 'Custom resource definition column (in JSONPath format): .spec.replicas', priority: 1 },
      { name: 'Phase', type: 'string', format: '', description: 'the phase', priority: 0 },
    ]);
  });

  it('a path that does not parse stops at that column and reports it', () => {
    const { convertor, error } = customResourceTableConvertor([
      { name: 'A', type: 'string', jsonPath: '.a' },
      { name: 'B', type: 'string', jsonPath: '.b[' },
      { name: 'C', type: 'string', jsonPath: '.c' },
    ]);
    assert.equal(error, 'unrecognized column definition ".b["');
    assert.deepEqual(convertor.columnDefinitions.map((c) => c.name), ['Name', 'A']);
  });
});

describe('ConvertToTable', () => {
  const blah: KubeObject = { apiVersion: 'example.istio.io/v1alpha1', kind: 'Blah', metadata: { name: 'blah', resourceVersion: '5' } };

  it('a single object: its row, its resourceVersion, PartialObjectMetadata rows by default', () => {
    const { convertor } = customResourceTableConvertor([]);
    const table = convertor.toTable([blah], { now: NOW });
    assert.equal(table.kind, 'Table');
    assert.equal(table.apiVersion, 'meta.k8s.io/v1');
    assert.deepEqual(table.metadata, { resourceVersion: '5' });
    assert.deepEqual(table.rows, [{ cells: ['blah'], object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: blah.metadata } }]);
  });

  it('a list: one row per item, the list metadata carried over', () => {
    const { convertor } = customResourceTableConvertor([]);
    const table = convertor.toTable([blah, { metadata: { name: 'blah-2' } }], {
      listMeta: { resourceVersion: '9', continue: 'tok', remainingItemCount: 3 },
      includeObject: 'None',
    });
    assert.deepEqual(table.metadata, { resourceVersion: '9', continue: 'tok', remainingItemCount: 3 });
    assert.deepEqual(table.rows.map((r) => r.cells), [['blah'], ['blah-2']]);
    assert.deepEqual(table.rows.map((r) => r.object), [null, null]);
  });

  it('noHeaders leaves out the column definitions; includeObject=Object carries the object', () => {
    const { convertor } = customResourceTableConvertor([]);
    const table = convertor.toTable([blah], { noHeaders: true, includeObject: 'Object', version: 'v1beta1' });
    assert.deepEqual(table.columnDefinitions, []);
    assert.equal(table.apiVersion, 'meta.k8s.io/v1beta1');
    assert.equal(table.rows[0]!.object, blah);
  });

  const servers: KubeObject = { ...blah, spec: { servers: [{ hosts: ['foo'] }, { hosts: ['bar', 'baz'] }] } };
  const foo: KubeObject = { ...blah, spec: { foo: [{ bar: [1] }, { bar: [2, 3] }] } };
  const col = (name: string, type: string, jsonPath: string): PrinterColumn => ({ name, type, jsonPath });

  it('string columns print one value as text and several as a JSON array', () => {
    const { convertor } = customResourceTableConvertor([
      col('valueOnly', 'string', '.spec.servers[0].hosts[0]'),
      col('single1', 'string', '.spec.servers[0].hosts'),
      col('single2', 'string', '.spec.servers[1].hosts'),
      col('multi', 'string', '.spec.servers[*].hosts'),
    ]);
    assert.deepEqual(convertor.toTable([servers]).rows[0]!.cells, ['blah', 'foo', '["foo"]', '["bar","baz"]', '[["foo"],["bar","baz"]]']);
  });

  it('integer values as strings', () => {
    const { convertor } = customResourceTableConvertor([
      col('valueOnly', 'string', '.spec.foo[0].bar[0]'),
      col('single1', 'string', '.spec.foo[0].bar'),
      col('single2', 'string', '.spec.foo[1].bar'),
      col('multi', 'string', '.spec.foo[*].bar'),
    ]);
    assert.deepEqual(convertor.toTable([foo]).rows[0]!.cells, ['blah', '1', '[1]', '[2,3]', '[[1],[2,3]]']);
  });

  it('integer columns: only a single integer is a cell; arrays and several values are null', () => {
    const { convertor } = customResourceTableConvertor([
      col('valueOnly', 'integer', '.spec.foo[0].bar[0]'),
      col('single1', 'integer', '.spec.foo[0].bar'),
      col('single2', 'integer', '.spec.foo[1].bar'),
      col('multi', 'integer', '.spec.foo[*].bar'),
    ]);
    assert.deepEqual(convertor.toTable([foo]).rows[0]!.cells, ['blah', 1, null, null, null]);
  });

  it('the etcd_test TestColumns row', () => {
    const obj: KubeObject = {
      apiVersion: 'mygroup.example.com/v1beta1',
      kind: 'Noxu',
      metadata: { namespace: 'default', name: 'foo', creationTimestamp: ago(12 * HOUR + 30 * 60_000) },
      spec: { replicas: 7, string: 'string', float64: 3.1415926, bool: true, stringList: ['foo', 'bar'] },
    };
    const { convertor } = customResourceTableConvertor([
      col('Age', 'date', '.metadata.creationTimestamp'),
      col('Replicas', 'integer', '.spec.replicas'),
      col('Missing', 'string', '.spec.missing'),
      col('Invalid', 'integer', '.spec.string'),
      col('String', 'string', '.spec.string'),
      col('StringFloat64', 'string', '.spec.float64'),
      col('StringInt64', 'string', '.spec.replicas'),
      col('StringBool', 'string', '.spec.bool'),
      col('Float64', 'number', '.spec.float64'),
      col('Bool', 'boolean', '.spec.bool'),
    ]);
    const table = convertor.toTable([obj], { now: NOW });
    assert.deepEqual(table.columnDefinitions.map((c) => [c.name, c.type]), [
      ['Name', 'string'], ['Age', 'date'], ['Replicas', 'integer'], ['Missing', 'string'], ['Invalid', 'integer'], ['String', 'string'],
      ['StringFloat64', 'string'], ['StringInt64', 'string'], ['StringBool', 'string'], ['Float64', 'number'], ['Bool', 'boolean'],
    ]);
    assert.deepEqual(table.rows[0]!.cells, ['foo', '12h', 7, null, null, 'string', '3.1415926', '7', 'true', 3.1415926, true]);
  });

  it('the default Age column reads the creation timestamp; a condition filter picks a status', () => {
    const obj: KubeObject = {
      metadata: { name: 'x', creationTimestamp: ago(3 * 24 * HOUR + 4 * HOUR) },
      status: { conditions: [{ type: 'Synced', status: 'False' }, { type: 'Ready', status: 'True' }], note: null },
    };
    const { convertor } = customResourceTableConvertor([
      ...servedPrinterColumns(undefined),
      col('Ready', 'string', '.status.conditions[?(@.type=="Ready")].status'),
      col('Note', 'string', '.status.note'),
      col('Out of range', 'string', '.status.conditions[5].status'),
    ]);
    assert.deepEqual(convertor.toTable([obj], { now: NOW }).rows[0]!.cells, ['x', '3d4h', 'True', '<no value>', null]);
  });
});
