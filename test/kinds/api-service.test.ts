import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { KubeObject } from '../../src/api/types.ts';
import { apiServices } from '../../src/kinds/api-service.ts';
import { toTable } from '../../src/registry/table.ts';
import { openTestRegistry, testContext, type TestRegistry } from '../helpers/registry.ts';
import { runKindSuite } from './kind-suite.ts';

const svc = (name: string, spec: Record<string, unknown>, meta: Record<string, unknown> = {}) => ({ apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name, ...meta }, spec });
// Each case names its own group: APIService names are fixed by the group version.
const remote = (group: string) => ({ group, version: 'v1beta1', groupPriorityMinimum: 100, versionPriority: 100, service: { namespace: 'kube-system', name: 'metrics-server' }, insecureSkipTLSVerify: true });
const local = (group: string) => ({ group, version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 });
const conditionsOf = (o: KubeObject) => (o.status as { conditions?: Record<string, unknown>[] }).conditions;
const DNS1035 = `a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`;
const DNS1123 = `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`;

// Expectations from kube-aggregator's ValidateAPIService(StatusUpdate), strategies, v1 defaults and table (1.34).
runKindSuite({
  kind: apiServices,
  valid: [
    { name: 'an extension API server', object: svc('v1beta1.metrics.k8s.io', remote('metrics.k8s.io')) },
    { name: 'a local core API (empty group, v1)', object: svc('v1.', { version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 }) },
    { name: 'priorities at their upper bounds, port 65535', object: svc('v1.bounds.example.com', { ...local('bounds.example.com'), groupPriorityMinimum: 20000, versionPriority: 1000, service: { namespace: 'ns', name: 's', port: 65535 }, caBundle: 'AAEC' }) },
  ],
  invalid: [
    {
      name: 'a name that is not <version>.<group>',
      object: svc('metrics', remote('metrics.k8s.io')),
      errors: [{ field: 'metadata.name', message: 'Invalid value: "metrics": must be `spec.version+"."+spec.group`: "v1beta1.metrics.k8s.io"' }],
    },
    {
      name: 'a name that is no path segment is judged by that rule only',
      object: svc('v1%x', local('x')),
      errors: [{ field: 'metadata.name', message: `Invalid value: "v1%x": may not contain '%'` }],
    },
    {
      name: 'group, version and priorities',
      object: svc('1x.', { version: '1x', groupPriorityMinimum: 0, versionPriority: 1001 }),
      errors: [
        { field: 'spec.group', message: 'Required value: only v1 may have an empty group and it better be legacy kube' },
        { field: 'spec.version', message: `Invalid value: "1x": ${DNS1035}` },
        { field: 'spec.groupPriorityMinimum', message: 'Invalid value: 0: must be positive and less than 20000' },
        { field: 'spec.versionPriority', message: 'Invalid value: 1001: must be positive and less than 1000' },
      ],
    },
    {
      name: 'a group that is no DNS subdomain, priorities past the top and below zero',
      object: svc('v1.Bad_Group', { group: 'Bad_Group', version: 'v1', groupPriorityMinimum: 20001, versionPriority: -1 }),
      errors: [
        { field: 'spec.group', message: `Invalid value: "Bad_Group": ${DNS1123}` },
        { field: 'spec.groupPriorityMinimum', message: 'Invalid value: 20001: must be positive and less than 20000' },
        { field: 'spec.versionPriority', message: 'Invalid value: -1: must be positive and less than 1000' },
      ],
    },
    {
      name: 'a local API with a CA bundle and insecure TLS',
      object: svc('v1.example.com', { ...local('example.com'), caBundle: 'AAEC', insecureSkipTLSVerify: true }),
      errors: [
        { field: 'spec.caBundle', message: 'Invalid value: "3 bytes": local APIServices may not have a caBundle' },
        { field: 'spec.insecureSkipTLSVerify', message: 'Invalid value: true: local APIServices may not have insecureSkipTLSVerify' },
      ],
    },
    {
      name: 'a service without namespace or name, a bad port, insecure with a CA',
      object: svc('v1.example.com', { ...local('example.com'), caBundle: 'AAEC', insecureSkipTLSVerify: true, service: { port: 70000 } }),
      errors: [
        { field: 'spec.service.namespace', message: 'Required value' },
        { field: 'spec.service.name', message: 'Required value' },
        { field: 'spec.service.port', message: 'Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive' },
        { field: 'spec.insecureSkipTLSVerify', message: 'Invalid value: true: may not be true if caBundle is present' },
      ],
    },
    {
      name: 'port 0 is not defaulted away',
      object: svc('v1.port.example.com', { ...local('port.example.com'), service: { namespace: 'ns', name: 's', port: 0 } }),
      errors: [{ field: 'spec.service.port', message: 'Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive' }],
    },
  ],
  updates: [
    {
      name: 'an update is judged as a create',
      object: svc('v1.upd.example.com', local('upd.example.com')),
      change: (o) => ({ ...o, spec: { ...(o.spec as object), version: 'v2' } }),
      errors: [{ field: 'metadata.name', message: 'Invalid value: "v1.upd.example.com": must be `spec.version+"."+spec.group`: "v2.upd.example.com"' }],
    },
    {
      name: 'status is kept on a main-resource update',
      object: svc('v1beta1.keep.example.com', remote('keep.example.com')),
      change: (o) => ({ ...o, spec: { ...(o.spec as object), versionPriority: 7 }, status: { conditions: [{ type: 'Available', status: 'True' }] } }),
      expect: (o) => {
        assert.equal((o.spec as { versionPriority: number }).versionPriority, 7);
        assert.deepEqual(o.status, {});
      },
    },
  ],
  statusUpdates: [
    {
      name: 'condition statuses',
      object: svc('v1beta1.status.example.com', remote('status.example.com')),
      change: (o) => ({ ...o, status: { conditions: [{ type: 'Available', status: 'Maybe' }] } }),
      errors: [{ field: 'status.conditions[0].status', message: 'Unsupported value: "Maybe": supported values: "True", "False", "Unknown"' }],
    },
    {
      name: 'a status write keeps spec, labels and annotations as stored',
      object: svc('v1beta1.meta.example.com', remote('meta.example.com'), { labels: { a: '1' } }),
      change: (o) => ({ ...o, metadata: { ...o.metadata, labels: { a: '2' }, annotations: { b: '3' } }, spec: { ...(o.spec as object), versionPriority: 9 }, status: { conditions: [{ type: 'Available', status: 'False', reason: 'MissingEndpoints' }] } }),
      expect: (o) => {
        assert.deepEqual(o.metadata?.labels, { a: '1' });
        assert.equal(o.metadata?.annotations, undefined);
        assert.equal((o.spec as { versionPriority: number }).versionPriority, 100);
        assert.equal(conditionsOf(o)![0]!.reason, 'MissingEndpoints');
      },
    },
  ],
  defaults: [
    { name: 'the service port defaults to 443', object: svc('v1beta1.defaults.example.com', remote('defaults.example.com')), expect: (o) => assert.equal((o.spec as { service: { port: number } }).service.port, 443) },
    { name: 'a remote API starts with an empty status', object: svc('v1beta1.empty.example.com', { ...remote('empty.example.com'), service: { namespace: 'n', name: 's', port: 8443 } }), expect: (o) => assert.deepEqual(o.status, {}) },
    {
      name: 'a local API is Available at once',
      object: { ...svc('v1.avail.example.com', local('avail.example.com')), status: { conditions: [{ type: 'Available', status: 'False' }] } },
      expect: (o) => {
        const [c, ...rest] = conditionsOf(o)!;
        assert.deepEqual(rest, []);
        assert.deepEqual({ ...c, lastTransitionTime: undefined }, { type: 'Available', status: 'True', lastTransitionTime: undefined, reason: 'Local', message: 'Local APIServices are always available' });
        assert.match(String(c!.lastTransitionTime), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      },
    },
  ],
  columns: [
    { name: 'a service, availability unknown', object: svc('v1beta1.columns.example.com', remote('columns.example.com')), cells: ['kube-system/metrics-server', 'Unknown'] },
    { name: 'local, available', object: svc('v1.local.example.com', local('local.example.com')), cells: ['Local', 'True'] },
  ],
});

describe('APIService: the rest of upstream strategy', () => {
  let registry: TestRegistry;
  const store = () => registry.store('apiservices', 'apiregistration.k8s.io');
  before(async () => {
    registry = await openTestRegistry();
  });
  after(async () => {
    await registry.close();
  });

  test('a PUT must name the resourceVersion it replaces', async () => {
    await store().create(testContext(), '', svc('v1.put.example.com', local('put.example.com')));
    await assert.rejects(store().replace(testContext(), '', 'v1.put.example.com', svc('v1.put.example.com', local('put.example.com'))), (err: { code?: number; message?: string }) => {
      assert.equal(err.code, 422);
      assert.match(String(err.message), /metadata\.resourceVersion: Invalid value: 0x0: must be specified for an update/);
      return true;
    });
  });

  test('the Available column: True alone, otherwise the status with its reason when there is one', async () => {
    const name = 'v1beta1.avail.example.com';
    await store().create(testContext(), '', svc(name, remote('avail.example.com')));
    const cells: unknown[] = [];
    for (const condition of [{ status: 'False', reason: 'MissingEndpoints' }, { status: 'True', reason: 'Passed' }, { status: 'Unknown' }]) {
      const { stored } = await store().update(testContext({ subresource: 'status' }), '', name, { build: (o) => ({ ...o!, status: { conditions: [{ type: 'Available', ...condition }] } }) });
      cells.push(toTable(apiServices, [stored.object]).rows[0]!.cells[2]);
    }
    assert.deepEqual(cells, ['False (MissingEndpoints)', 'True', 'Unknown']);
  });

  test('a generated name can never be <version>.<group>', async () => {
    const body = { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { generateName: 'v1.gen.example.com-' }, spec: local('gen.example.com') };
    await assert.rejects(store().create(testContext(), '', body), (err: { code?: number; status?: { details?: { causes?: { field?: string; message?: string }[] } } }) => {
      assert.equal(err.code, 422);
      const causes = err.status?.details?.causes ?? [];
      assert.deepEqual(
        causes.map((c) => c.field),
        ['metadata.generateName', 'metadata.name'],
      );
      assert.equal(causes[0]!.message, 'Invalid value: "v1.gen.example.com-": must be `spec.version+"."+spec.group`: "v1.gen.example.com"');
      return true;
    });
  });
});
