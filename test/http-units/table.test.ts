import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../src/api/errors.ts';
import type { KubeObject } from '../../src/api/types.ts';
import { defineKind } from '../../src/registry/kind.ts';
import { acceptsTable, humanDuration, parseIncludeObject, tableVersionOf, toTable } from '../../src/registry/table.ts';

const configMaps = defineKind({
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
  schemaMessage: 'k8s.io.api.core.v1.ConfigMap',
});

const deployments = defineKind({
  group: 'apps',
  version: 'v1',
  kind: 'Deployment',
  plural: 'deployments',
  namespaced: true,
  schemaMessage: 'k8s.io.api.apps.v1.Deployment',
  tableColumns: [
    {
      name: 'Ready',
      type: 'string',
      description: 'Ready replicas.',
      cell: (o) => `${(o.status as { readyReplicas?: number } | undefined)?.readyReplicas ?? 0}/1`,
    },
    { name: 'Selector', type: 'string', description: 'Selector.', priority: 1, cell: () => undefined },
  ],
});

function cm(name: string, created: string, rv = '7'): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default', resourceVersion: rv, creationTimestamp: created, uid: `uid-${name}` },
    data: { a: 'b' },
  };
}

describe('toTable', () => {
  it('renders the default two-column table with PartialObjectMetadata rows', () => {
    const table = toTable(configMaps, [cm('a', '2024-01-02T03:04:05Z'), cm('b', '2024-02-01T00:00:00Z')], {
      listMeta: { resourceVersion: '42', continue: 'tok', remainingItemCount: 3 },
    });
    assert.equal(table.kind, 'Table');
    assert.equal(table.apiVersion, 'meta.k8s.io/v1');
    assert.deepEqual(table.metadata, { resourceVersion: '42', continue: 'tok', remainingItemCount: 3 });
    assert.deepEqual(
      table.columnDefinitions.map(({ name, type, format, priority }) => ({ name, type, format, priority })),
      [
        { name: 'Name', type: 'string', format: 'name', priority: 0 },
        { name: 'Created At', type: 'date', format: '', priority: 0 },
      ],
    );
    assert.match(table.columnDefinitions[0]!.description, /^Name must be unique within a namespace/);
    assert.deepEqual(Object.keys(table.columnDefinitions[0]!), ['name', 'type', 'format', 'description', 'priority']);
    assert.deepEqual(table.rows[0], {
      cells: ['a', '2024-01-02T03:04:05Z'],
      object: {
        kind: 'PartialObjectMetadata',
        apiVersion: 'meta.k8s.io/v1',
        metadata: cm('a', '2024-01-02T03:04:05Z').metadata,
      },
    });
    assert.deepEqual(Object.keys(table), ['kind', 'apiVersion', 'metadata', 'columnDefinitions', 'rows']);
  });

  it('includes the full object or nothing on request', () => {
    const obj = cm('a', '2024-01-02T03:04:05Z');
    assert.deepEqual(toTable(configMaps, [obj], { includeObject: 'Object' }).rows[0]!.object, obj);
    assert.equal(toTable(configMaps, [obj], { includeObject: 'None' }).rows[0]!.object, null);
  });

  it('uses the requested meta.k8s.io version for the table and the partial metadata', () => {
    const t = toTable(configMaps, [cm('a', '2024-01-02T03:04:05Z')], { version: 'v1beta1' });
    assert.equal(t.apiVersion, 'meta.k8s.io/v1beta1');
    assert.equal((t.rows[0]!.object as { apiVersion: string }).apiVersion, 'meta.k8s.io/v1beta1');
  });

  it('carries a single object’s resourceVersion and leaves empty lists with empty rows', () => {
    assert.deepEqual(toTable(configMaps, [cm('a', '2024-01-02T03:04:05Z', '99')]).metadata, { resourceVersion: '99' });
    const empty = toTable(configMaps, [], { listMeta: { resourceVersion: '5', continue: '' } });
    assert.deepEqual(empty.rows, []);
    assert.deepEqual(empty.metadata, { resourceVersion: '5' });
  });

  it('renders kind columns between Name and Age, and wide-only columns after Age (as upstream’s deployment table)', () => {
    const now = new Date('2024-01-03T05:04:05Z');
    const d: KubeObject = {
      metadata: { name: 'web', creationTimestamp: '2024-01-02T03:04:05Z' },
      status: { readyReplicas: 1 },
    };
    const t = toTable(deployments, [d], { now });
    assert.deepEqual(
      t.columnDefinitions.map((c) => [c.name, c.type, c.priority]),
      [
        ['Name', 'string', 0],
        ['Ready', 'string', 0],
        ['Age', 'string', 0],
        ['Selector', 'string', 1],
      ],
    );
    assert.deepEqual(t.rows[0]!.cells, ['web', '1/1', '26h', null]);
  });

  it('leaves out column definitions for headerless tables', () => {
    assert.deepEqual(toTable(configMaps, [], { noHeaders: true }).columnDefinitions, []);
  });
});

describe('humanDuration', () => {
  const s = 1000;
  const m = 60 * s;
  const h = 60 * m;
  const d = 24 * h;
  const cases: Array<[number, string]> = [
    [-5 * s, '<invalid>'],
    [-1 * s, '0s'],
    [0, '0s'],
    [119 * s, '119s'],
    [2 * m, '2m'],
    [7 * m + 30 * s, '7m30s'],
    [10 * m + 30 * s, '10m'],
    [179 * m, '179m'],
    [3 * h, '3h'],
    [7 * h + 59 * m, '7h59m'],
    [8 * h + 30 * m, '8h'],
    [47 * h, '47h'],
    [2 * d, '2d'],
    [3 * d + 4 * h, '3d4h'],
    [8 * d + 4 * h, '8d'],
    [729 * d, '729d'],
    [730 * d, '2y'],
    [760 * d, '2y30d'],
    [8 * 365 * d + 40 * d, '8y'],
  ];
  for (const [ms, text] of cases) {
    it(`shows ${ms}ms as ${text}`, () => assert.equal(humanDuration(ms), text));
  }
});

describe('Table request parameters', () => {
  it('parses includeObject and rejects unknown values with the real message', () => {
    assert.equal(parseIncludeObject(undefined), 'Metadata');
    assert.equal(parseIncludeObject(''), 'Metadata');
    assert.equal(parseIncludeObject('Object'), 'Object');
    assert.equal(parseIncludeObject('None'), 'None');
    assert.throws(
      () => parseIncludeObject('All'),
      (err: unknown) =>
        err instanceof ApiError &&
        err.code === 400 &&
        err.message ===
          'Unable to convert to Table as requested: includeObject: Unsupported value: "All": supported values: "Metadata", "None", "Object"',
    );
  });

  it('reads the Table media type parameters', () => {
    assert.equal(tableVersionOf({ as: 'Table', g: 'meta.k8s.io', v: 'v1' }), 'v1');
    assert.equal(tableVersionOf({ as: 'Table', g: 'meta.k8s.io', v: 'v1beta1' }), 'v1beta1');
    assert.equal(tableVersionOf({ as: 'Table', g: 'meta.k8s.io', v: 'v2' }), undefined);
    assert.equal(tableVersionOf({ as: 'PartialObjectMetadata', g: 'meta.k8s.io', v: 'v1' }), undefined);
    assert.equal(acceptsTable('application/json;as=Table;v=v1;g=meta.k8s.io, application/json'), 'v1');
    assert.equal(acceptsTable('application/json'), undefined);
  });
});
