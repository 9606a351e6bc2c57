import assert from 'node:assert/strict';
import { storageVersionMigrations } from '../../src/kinds/storage-version-migration.ts';
import { runKindSuite } from './kind-suite.ts';

const svm = (resource: Record<string, unknown>) => ({ apiVersion: 'storagemigration.k8s.io/v1alpha1', kind: 'StorageVersionMigration', spec: { resource } });
const cond = (type: string, status: string) => ({ type, status, lastUpdateTime: '2024-01-01T00:00:00Z', reason: 'Because' });

// Expectations from upstream's StorageVersionMigration validation (1.34).
runKindSuite({
  kind: storageVersionMigrations,
  valid: [{ name: 'a resource to migrate', object: svm({ group: 'apps', version: 'v1', resource: 'deployments' }) }],
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
  ],
  statusUpdates: [
    {
      name: 'a resource version that is not a number; success with failure and running',
      object: svm({ version: 'v1', resource: 'configmaps' }),
      change: (o) => ({ ...o, status: { resourceVersion: 'abc', conditions: [cond('Succeeded', 'True'), cond('Failed', 'True'), cond('Running', 'True')] } }),
      errors: [
        { field: 'status.resourceVersion', message: 'Invalid value: "abc": failed to parse resource version "abc": strconv.ParseInt: parsing "abc": invalid syntax' },
        { field: 'status.conditions', message: 'Invalid value: [{"Type":"Succeeded","Status":"True","LastUpdateTime":"2024-01-01T00:00:00Z","Reason":"Because","Message":""},{"Type":"Failed","Status":"True","LastUpdateTime":"2024-01-01T00:00:00Z","Reason":"Because","Message":""},{"Type":"Running","Status":"True","LastUpdateTime":"2024-01-01T00:00:00Z","Reason":"Because","Message":""}]: Both success and failed conditions cannot be true at the same time' },
        { field: 'status.conditions', message: 'Invalid value: [{"Type":"Succeeded","Status":"True","LastUpdateTime":"2024-01-01T00:00:00Z","Reason":"Because","Message":""},{"Type":"Failed","Status":"True","LastUpdateTime":"2024-01-01T00:00:00Z","Reason":"Because","Message":""},{"Type":"Running","Status":"True","LastUpdateTime":"2024-01-01T00:00:00Z","Reason":"Because","Message":""}]: Running condition cannot be true when success condition is true' },
        { field: 'status.conditions', message: 'Invalid value: [{"Type":"Succeeded","Status":"True","LastUpdateTime":"2024-01-01T00:00:00Z","Reason":"Because","Message":""},{"Type":"Failed","Status":"True","LastUpdateTime":"2024-01-01T00:00:00Z","Reason":"Because","Message":""},{"Type":"Running","Status":"True","LastUpdateTime":"2024-01-01T00:00:00Z","Reason":"Because","Message":""}]: Running condition cannot be true when failed condition is true' },
      ],
    },
    { name: 'a condition without its time and reason', object: svm({ version: 'v1', resource: 'configmaps' }), change: (o) => ({ ...o, status: { conditions: [{ type: 'Running', status: 'True' }] } }), errors: [{ field: 'status.conditions[0].lastTransitionTime', message: 'Required value: must be set' }, { field: 'status.conditions[0].reason', message: 'Required value: must be set' }] },
    { name: 'the controller reports progress', object: svm({ version: 'v1', resource: 'configmaps' }), change: (o) => ({ ...o, status: { resourceVersion: '42', conditions: [cond('Running', 'True')] } }), expect: (o) => assert.equal((o.status as { resourceVersion: string }).resourceVersion, '42') },
  ],
  defaults: [{ name: 'status starts empty', object: svm({ version: 'v1', resource: 'configmaps' }), expect: (o) => assert.deepEqual(o.status, {}) }],
});
