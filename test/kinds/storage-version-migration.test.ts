import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { KubeObject } from '../../src/api/types.ts';
import { storageVersionMigrations } from '../../src/kinds/storage-version-migration.ts';
import { columnDefinitions } from '../../src/registry/table.ts';
import { openTestRegistry, testContext, type TestRegistry } from '../helpers/registry.ts';
import { runKindSuite } from './kind-suite.ts';

const svm = (resource: Record<string, unknown>, meta: Record<string, unknown> = {}) => ({ apiVersion: 'storagemigration.k8s.io/v1alpha1', kind: 'StorageVersionMigration', metadata: meta, spec: { resource } });
const cond = (type: string, status: string) => ({ type, status, lastUpdateTime: '2024-01-01T00:00:00Z', reason: 'Because' });
const shown = (conditions: { type: string; status: string }[]) => JSON.stringify(conditions.map((c) => ({ Type: c.type, Status: c.status, LastUpdateTime: '2024-01-01T00:00:00Z', Reason: 'Because', Message: '' })));
const configMaps = { version: 'v1', resource: 'configmaps' };
const statusOf = (o: KubeObject) => o.status as { resourceVersion?: string; conditions?: unknown[] };

// Expectations from upstream's StorageVersionMigration validation, strategies and printer (1.34, v1alpha1).
runKindSuite({
  kind: storageVersionMigrations,
  valid: [
    { name: 'a resource to migrate', object: svm({ group: 'apps', version: 'v1', resource: 'deployments' }) },
    { name: 'a core resource (no group)', object: svm(configMaps) },
  ],
  invalid: [
    {
      name: 'resource and version are required',
      object: svm({ group: 'apps' }),
      errors: [
        { field: 'spec.resource.resource', message: 'Required value: resource is required' },
        { field: 'spec.resource.version', message: 'Required value: version is required' },
      ],
    },
  ],
  updates: [
    { name: 'the resource is immutable (paths as upstream spells them)', object: svm({ group: 'apps', version: 'v1', resource: 'deployments' }), change: (o) => ({ ...o, spec: { resource: { group: 'apps', version: 'v1', resource: 'statefulsets' } } }), errors: [{ field: 'resource', message: 'Invalid value: "statefulsets": field is immutable' }] },
    {
      name: 'group and version are immutable, and still required',
      object: svm({ group: 'apps', version: 'v1', resource: 'deployments' }),
      change: (o) => ({ ...o, spec: { resource: { group: 'batch', resource: 'deployments' } } }),
      errors: [
        { field: 'spec.resource.version', message: 'Required value: version is required' },
        { field: 'group', message: 'Invalid value: "batch": field is immutable' },
        { field: 'version', message: 'Invalid value: "": field is immutable' },
      ],
    },
    { name: 'status is kept on a main-resource update', object: svm(configMaps), change: (o) => ({ ...o, metadata: { ...o.metadata, labels: { a: 'b' } }, status: { resourceVersion: '5' } }), expect: (o) => assert.deepEqual(o.status, {}) },
  ],
  statusUpdates: [
    {
      name: 'a resource version that is not a number; success with failure and running',
      object: svm(configMaps),
      change: (o) => ({ ...o, status: { resourceVersion: 'abc', conditions: [cond('Succeeded', 'True'), cond('Failed', 'True'), cond('Running', 'True')] } }),
      errors: [
        { field: 'status.resourceVersion', message: 'Invalid value: "abc": failed to parse resource version "abc": strconv.ParseInt: parsing "abc": invalid syntax' },
        { field: 'status.conditions', message: `Invalid value: ${shown([cond('Succeeded', 'True'), cond('Failed', 'True'), cond('Running', 'True')])}: Both success and failed conditions cannot be true at the same time` },
        { field: 'status.conditions', message: `Invalid value: ${shown([cond('Succeeded', 'True'), cond('Failed', 'True'), cond('Running', 'True')])}: Running condition cannot be true when success condition is true` },
        { field: 'status.conditions', message: `Invalid value: ${shown([cond('Succeeded', 'True'), cond('Failed', 'True'), cond('Running', 'True')])}: Running condition cannot be true when failed condition is true` },
      ],
    },
    {
      name: 'resource versions out of int64 range, or negative',
      object: svm(configMaps),
      change: (o) => ({ ...o, status: { resourceVersion: '9223372036854775808' } }),
      errors: [{ field: 'status.resourceVersion', message: 'Invalid value: "9223372036854775808": failed to parse resource version "9223372036854775808": strconv.ParseInt: parsing "9223372036854775808": value out of range' }],
    },
    { name: 'a negative resource version', object: svm(configMaps), change: (o) => ({ ...o, status: { resourceVersion: '-9223372036854775808' } }), errors: [{ field: 'status.resourceVersion', message: 'Invalid value: -9223372036854775808: must be greater than or equal to 0' }] },
    {
      name: 'conditions: type, status, time, reason, duplicates',
      object: svm(configMaps),
      change: (o) => ({ ...o, status: { conditions: [{ type: 'Running', status: 'True' }, { ...cond('Running', 'Maybe'), reason: '1bad' }, { ...cond('bad type!', 'False'), message: 'x'.repeat(32 * 1024 + 1) }] } }),
      errors: [
        { field: 'status.conditions[0].lastTransitionTime', message: 'Required value' },
        { field: 'status.conditions[0].reason', message: 'Required value' },
        { field: 'status.conditions[1].type', message: 'Duplicate value: "Running"' },
        { field: 'status.conditions[1].status', message: 'Unsupported value: "Maybe": supported values: "False", "True", "Unknown"' },
        { field: 'status.conditions[1].reason', message: `Invalid value: "1bad": a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')` },
        { field: 'status.conditions[2].type', message: `Invalid value: "bad type!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')` },
        { field: 'status.conditions[2].message', message: 'Too long: may not be more than 32768 bytes' },
      ],
    },
    { name: 'a reason too long', object: svm(configMaps), change: (o) => ({ ...o, status: { conditions: [{ ...cond('Running', 'True'), reason: 'R'.repeat(1025) }] } }), errors: [{ field: 'status.conditions[0].reason', message: 'Too long: may not be more than 1024 bytes' }] },
    { name: 'the controller reports progress', object: svm(configMaps), change: (o) => ({ ...o, status: { resourceVersion: '42', conditions: [cond('Running', 'True')] } }), expect: (o) => assert.equal(statusOf(o).resourceVersion, '42') },
    {
      name: 'a status write keeps spec, labels and annotations as stored',
      object: svm(configMaps, { labels: { a: '1' }, annotations: { b: '2' } }),
      change: (o) => ({ ...o, metadata: { ...o.metadata, labels: {}, annotations: { b: '3' } }, spec: { resource: { version: 'v2', resource: 'secrets' } }, status: { resourceVersion: '1' } }),
      expect: (o) => {
        assert.deepEqual(o.metadata?.labels, { a: '1' });
        assert.deepEqual(o.metadata?.annotations, { b: '2' });
        assert.deepEqual(o.spec, { resource: configMaps });
        assert.equal(statusOf(o).resourceVersion, '1');
      },
    },
  ],
  defaults: [{ name: 'status starts empty', object: { ...svm(configMaps), status: { resourceVersion: '3' } }, expect: (o) => assert.deepEqual(o.status, {}) }],
  columns: [
    { name: 'resource.version.group', object: svm({ group: 'apps', version: 'v1', resource: 'deployments' }), cells: ['deployments.v1.apps'] },
    { name: 'a core resource ends with a dot', object: svm(configMaps), cells: ['configmaps.v1.'] },
  ],
});

describe('StorageVersionMigration: status transitions and table layout', () => {
  let registry: TestRegistry;
  let counter = 0;
  const store = () => registry.store('storageversionmigrations', 'storagemigration.k8s.io');
  before(async () => {
    registry = await openTestRegistry({ kinds: [storageVersionMigrations] });
  });
  after(async () => {
    await registry.close();
  });

  /** Creates a migration, writes `first` as its status, then tries `second`; the 422's causes. */
  async function secondStatusWrite(first: Record<string, unknown>, second: Record<string, unknown>) {
    const name = `transition-${++counter}`;
    await store().create(testContext(), '', svm(configMaps, { name }));
    const status = testContext({ subresource: 'status' });
    await store().update(status, '', name, { build: (o) => ({ ...o!, status: first }) });
    try {
      await store().update(status, '', name, { build: (o) => ({ ...o!, status: second }) as KubeObject });
    } catch (err) {
      return ((err as { status?: { details?: { causes?: { field?: string; message?: string }[] } } }).status?.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`);
    }
    return [];
  }

  test('the resource version cannot change once set', async () => {
    assert.deepEqual(await secondStatusWrite({ resourceVersion: '7' }, { resourceVersion: '8' }), ['status.resourceVersion: Invalid value: "8": cannot be updated']);
  });

  test('success and failure are final', async () => {
    const running = cond('Running', 'True');
    assert.deepEqual(await secondStatusWrite({ conditions: [cond('Succeeded', 'True')] }, { conditions: [cond('Succeeded', 'False'), running] }), [
      `status.conditions: Invalid value: ${shown([cond('Succeeded', 'False'), running])}: Success condition cannot be set to false once it is true`,
    ]);
    assert.deepEqual(await secondStatusWrite({ conditions: [cond('Failed', 'True')] }, { conditions: [] }), ['status.conditions: Invalid value: []: Failed condition cannot be set to false once it is true']);
  });

  test('the table is Name (no name format) and Resource, without Age', () => {
    assert.deepEqual(
      columnDefinitions(storageVersionMigrations).map((c) => [c.name, c.type, c.format]),
      [
        ['Name', 'string', ''],
        ['Resource', 'string', ''],
      ],
    );
  });
});
