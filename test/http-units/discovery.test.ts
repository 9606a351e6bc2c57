import assert from 'node:assert/strict';
import { statusSubresource } from '../../src/registry/subresources.ts';
import { describe, it } from 'node:test';
import { ApiError } from '../../src/api/errors.ts';
import {
  aggregatedDiscovery,
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  compareKubeAwareVersions,
  discoveryETag,
  negotiateDiscovery,
  sortVersionsByPriority,
  storageVersionHash,
} from '../../src/http/discovery/index.ts';
import { defineKind, type KindInput } from '../../src/registry/kind.ts';

function kind(input: Partial<KindInput> & Pick<KindInput, 'kind' | 'plural'>) {
  return defineKind({ group: '', version: 'v1', namespaced: true, schemaMessage: `test.${input.kind}`, ...input });
}

const namespaces = kind({
  kind: 'Namespace',
  plural: 'namespaces',
  namespaced: false,
  shortNames: ['ns'],
  subresources: [statusSubresource(), { name: 'finalize', verbs: ['update'] }],
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
});
const configMaps = kind({ kind: 'ConfigMap', plural: 'configmaps', shortNames: ['cm'] });
const deployments = kind({
  group: 'apps',
  kind: 'Deployment',
  plural: 'deployments',
  shortNames: ['deploy'],
  categories: ['all'],
  subresources: [
    statusSubresource(),
    { name: 'scale', verbs: ['get', 'patch', 'update'], kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' } },
  ],
});
const leases = kind({ group: 'coordination.k8s.io', kind: 'Lease', plural: 'leases' });
const widgetsV1 = kind({ group: 'example.com', kind: 'Widget', plural: 'widgets' });
const widgetsV1beta1 = kind({ group: 'example.com', version: 'v1beta1', kind: 'Widget', plural: 'widgets' });
const widgetsV2alpha1 = kind({ group: 'example.com', version: 'v2alpha1', kind: 'Widget', plural: 'widgets' });
const gadgets = kind({ group: 'aaa.example.com', kind: 'Gadget', plural: 'gadgets', namespaced: false });

const ALL = [namespaces, configMaps, deployments, leases, widgetsV1beta1, widgetsV2alpha1, widgetsV1, gadgets];

describe('version priority', () => {
  it('sorts GA before beta before alpha, then by major and minor', () => {
    const input = ['v11alpha2', 'foo10', 'v1', 'v10beta3', 'v2', 'v3beta1', 'v12alpha1', 'v11beta2', 'foo1', 'v10'];
    assert.deepEqual(sortVersionsByPriority(input), [
      'v10',
      'v2',
      'v1',
      'v11beta2',
      'v10beta3',
      'v3beta1',
      'v12alpha1',
      'v11alpha2',
      'foo1',
      'foo10',
    ]);
  });

  it('compares pairs with the sign of the higher priority', () => {
    assert.ok(compareKubeAwareVersions('v1', 'v1beta2') > 0);
    assert.ok(compareKubeAwareVersions('v1beta2', 'v1beta1') > 0);
    assert.ok(compareKubeAwareVersions('v1beta1', 'v1alpha1') > 0);
    assert.ok(compareKubeAwareVersions('v1alpha1', 'v2alpha1') < 0);
    assert.equal(compareKubeAwareVersions('v1', 'v1'), 0);
  });
});

describe('storageVersionHash', () => {
  it('matches the real server for known kinds', () => {
    assert.equal(storageVersionHash('', 'v1', 'ConfigMap'), 'qFsyl6wFWjQ=');
    assert.equal(storageVersionHash('apps', 'v1', 'ControllerRevision'), '85nkx63pcBU=');
  });
});

describe('legacy discovery', () => {
  it('serves /api as APIVersions without apiVersion', () => {
    assert.deepEqual(apiVersions('10.0.0.1:6443'), {
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '10.0.0.1:6443' }],
    });
  });

  it('serves /apis with built-in groups first and the most stable version preferred', () => {
    const list = apiGroupList(ALL);
    assert.equal(list.kind, 'APIGroupList');
    assert.equal(list.apiVersion, 'v1');
    assert.deepEqual(
      list.groups.map((g) => g.name),
      ['apps', 'coordination.k8s.io', 'aaa.example.com', 'example.com'],
    );
    const example = list.groups[3]!;
    assert.deepEqual(example.versions, [
      { groupVersion: 'example.com/v1', version: 'v1' },
      { groupVersion: 'example.com/v1beta1', version: 'v1beta1' },
      { groupVersion: 'example.com/v2alpha1', version: 'v2alpha1' },
    ]);
    assert.deepEqual(example.preferredVersion, { groupVersion: 'example.com/v1', version: 'v1' });
    assert.deepEqual(Object.keys(list.groups[0]!), ['name', 'versions', 'preferredVersion']);
  });

  it('serves /apis/<group> as APIGroup and nothing for unknown groups', () => {
    const g = apiGroup(ALL, 'apps');
    assert.deepEqual(g, {
      kind: 'APIGroup',
      apiVersion: 'v1',
      name: 'apps',
      versions: [{ groupVersion: 'apps/v1', version: 'v1' }],
      preferredVersion: { groupVersion: 'apps/v1', version: 'v1' },
    });
    assert.equal(apiGroup(ALL, 'nope'), undefined);
  });

  it('serves /api/v1 with resources and subresources in path order', () => {
    const list = apiResourceList(ALL, '', 'v1')!;
    assert.equal(list.kind, 'APIResourceList');
    assert.equal('apiVersion' in list, false);
    assert.equal(list.groupVersion, 'v1');
    assert.deepEqual(
      list.resources.map((r) => r.name),
      ['configmaps', 'namespaces', 'namespaces/finalize', 'namespaces/status'],
    );
    assert.deepEqual(list.resources[0], {
      name: 'configmaps',
      singularName: 'configmap',
      namespaced: true,
      kind: 'ConfigMap',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['cm'],
      storageVersionHash: 'qFsyl6wFWjQ=',
    });
    assert.deepEqual(list.resources[2], {
      name: 'namespaces/finalize',
      singularName: '',
      namespaced: false,
      kind: 'Namespace',
      verbs: ['update'],
    });
    assert.deepEqual(list.resources[3], {
      name: 'namespaces/status',
      singularName: '',
      namespaced: false,
      kind: 'Namespace',
      verbs: ['get', 'patch', 'update'],
    });
  });

  it('serves /apis/<group>/<version> with apiVersion and subresource kinds from other groups', () => {
    const list = apiResourceList(ALL, 'apps', 'v1')!;
    assert.equal(list.apiVersion, 'v1');
    assert.equal(list.groupVersion, 'apps/v1');
    const deploy = list.resources.find((r) => r.name === 'deployments')!;
    assert.deepEqual(deploy.categories, ['all']);
    assert.equal(deploy.storageVersionHash, storageVersionHash('apps', 'v1', 'Deployment'));
    assert.deepEqual(list.resources.find((r) => r.name === 'deployments/scale'), {
      name: 'deployments/scale',
      singularName: '',
      namespaced: true,
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
      verbs: ['get', 'patch', 'update'],
    });
    assert.equal(apiResourceList(ALL, 'apps', 'v2'), undefined);
  });

  it('hashes every served version of a kind with its storage version', () => {
    const hashes = ['v1', 'v1beta1', 'v2alpha1'].map(
      (v) => apiResourceList(ALL, 'example.com', v)!.resources[0]!.storageVersionHash,
    );
    assert.deepEqual(new Set(hashes).size, 1);
    assert.equal(hashes[0], storageVersionHash('example.com', 'v1', 'Widget'));
  });
});

describe('aggregated discovery', () => {
  it('lists the core group under /api with subresources folded in', () => {
    const doc = aggregatedDiscovery(ALL, 'api', 'v2');
    assert.equal(doc.kind, 'APIGroupDiscoveryList');
    assert.equal(doc.apiVersion, 'apidiscovery.k8s.io/v2');
    assert.deepEqual(doc.metadata, {});
    assert.equal(doc.items.length, 1);
    assert.deepEqual(doc.items[0]!.metadata, { creationTimestamp: null });
    const v1 = doc.items[0]!.versions[0]!;
    assert.equal(v1.version, 'v1');
    assert.equal(v1.freshness, 'Current');
    assert.deepEqual(v1.resources[1], {
      resource: 'namespaces',
      responseKind: { group: '', version: '', kind: 'Namespace' },
      scope: 'Cluster',
      singularResource: 'namespace',
      verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['ns'],
      subresources: [
        { subresource: 'finalize', responseKind: { group: '', version: '', kind: 'Namespace' }, verbs: ['update'] },
        { subresource: 'status', responseKind: { group: '', version: '', kind: 'Namespace' }, verbs: ['get', 'patch', 'update'] },
      ],
    });
    assert.equal(v1.resources[0]!.scope, 'Namespaced');
    assert.equal('subresources' in v1.resources[0]!, false);
  });

  it('lists named groups under /apis in group order, versions by priority', () => {
    const doc = aggregatedDiscovery(ALL, 'apis', 'v2beta1');
    assert.equal(doc.apiVersion, 'apidiscovery.k8s.io/v2beta1');
    assert.deepEqual(
      doc.items.map((i) => i.metadata),
      [
        { name: 'apps', creationTimestamp: null },
        { name: 'coordination.k8s.io', creationTimestamp: null },
        { name: 'aaa.example.com', creationTimestamp: null },
        { name: 'example.com', creationTimestamp: null },
      ],
    );
    assert.deepEqual(
      doc.items[3]!.versions.map((v) => v.version),
      ['v1', 'v1beta1', 'v2alpha1'],
    );
    const deploy = doc.items[0]!.versions[0]!.resources[0]!;
    assert.deepEqual(deploy.subresources, [
      { subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: ['get', 'patch', 'update'] },
      { subresource: 'status', responseKind: { group: '', version: '', kind: 'Deployment' }, verbs: ['get', 'patch', 'update'] },
    ]);
    assert.deepEqual(Object.keys(deploy), [
      'resource',
      'responseKind',
      'scope',
      'singularResource',
      'verbs',
      'shortNames',
      'categories',
      'subresources',
    ]);
  });

  it('has a stable quoted ETag', () => {
    const a = discoveryETag(aggregatedDiscovery(ALL, 'apis'));
    assert.match(a, /^"[0-9A-F]{128}"$/);
    assert.equal(a, discoveryETag(aggregatedDiscovery(ALL, 'apis')));
    assert.notEqual(a, discoveryETag(aggregatedDiscovery([deployments], 'apis')));
  });
});

describe('negotiateDiscovery', () => {
  const KUBECTL =
    'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,' +
    'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

  it('answers aggregated v2 with the exact content type clients match', () => {
    const r = negotiateDiscovery(KUBECTL);
    assert.deepEqual(r, {
      mode: 'aggregated',
      version: 'v2',
      format: 'json',
      contentType: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    });
  });

  it('answers v2beta1 to older clients and honours q-values between aggregated clauses', () => {
    const old = negotiateDiscovery('application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json');
    assert.equal(old.mode, 'aggregated');
    assert.equal(old.mode === 'aggregated' && old.version, 'v2beta1');
    assert.equal(old.contentType, 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList');
    const q = negotiateDiscovery(
      'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=0.5,' +
        'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList',
    );
    assert.equal(q.mode === 'aggregated' && q.version, 'v2beta1');
  });

  it('prefers an aggregated clause even after a plain one, as the real server does', () => {
    const r = negotiateDiscovery('application/json, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    assert.equal(r.mode, 'aggregated');
  });

  it('answers the legacy document otherwise', () => {
    assert.deepEqual(negotiateDiscovery(undefined), { mode: 'legacy', format: 'json', contentType: 'application/json' });
    assert.deepEqual(negotiateDiscovery('application/json'), { mode: 'legacy', format: 'json', contentType: 'application/json' });
    assert.deepEqual(negotiateDiscovery('application/yaml'), { mode: 'legacy', format: 'yaml', contentType: 'application/yaml' });
    assert.equal(negotiateDiscovery('application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList, */*').mode, 'legacy');
  });

  it('serves aggregated protobuf only when protobuf is enabled', () => {
    const accept = 'application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';
    assert.equal(negotiateDiscovery(accept).mode, 'legacy');
    assert.equal(
      negotiateDiscovery(accept, { allowProtobuf: true }).contentType,
      'application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    );
  });

  it('answers 406 when nothing fits', () => {
    assert.throws(
      () => negotiateDiscovery('text/html'),
      (err: unknown) =>
        err instanceof ApiError &&
        err.code === 406 &&
        err.message === 'only the following media types are accepted: application/json, application/yaml',
    );
  });
});
