/**
 * Custom resources in legacy and aggregated discovery, as apiextensions-apiserver and the aggregator
 * publish them: the kinds are put on the server's surface directly (customResourceKinds), without the
 * CRD controllers.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { customResourceKinds } from '../../src/crd/serving/kinds.ts';
import type { CustomResourceDefinition } from '../../src/crd/validation/types.ts';
import { assertStatus } from '../helpers/fixtures.ts';
import { serveFile } from '../helpers/server.ts';

const AGGREGATED_V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const AGGREGATED_V2BETA1 = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';
const CR_VERBS = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];
const SUB_VERBS = ['get', 'patch', 'update'];

interface CrdInput {
  group: string;
  kind: string;
  plural: string;
  scope?: 'Namespaced' | 'Cluster';
  shortNames?: string[];
  categories?: string[];
  versions: { name: string; served?: boolean; storage?: boolean; status?: boolean; scale?: boolean; deprecated?: boolean }[];
  terminating?: boolean;
}

/** An established CRD as the API stores it (accepted names equal to the spec's). */
function crd(input: CrdInput): CustomResourceDefinition {
  const names = {
    plural: input.plural,
    singular: input.kind.toLowerCase(),
    kind: input.kind,
    listKind: `${input.kind}List`,
    ...(input.shortNames ? { shortNames: input.shortNames } : {}),
    ...(input.categories ? { categories: input.categories } : {}),
  };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${input.plural}.${input.group}` },
    spec: {
      group: input.group,
      names,
      scope: input.scope ?? 'Namespaced',
      versions: input.versions.map((v) => ({
        name: v.name,
        served: v.served ?? true,
        storage: v.storage ?? false,
        ...(v.deprecated ? { deprecated: true } : {}),
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { cronSpec: { type: 'string' } } } } } },
        ...(v.status || v.scale
          ? { subresources: {
            ...(v.status ? { status: {} } : {}),
            ...(v.scale ? { scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } } : {}),
          } }
          : {}),
      })),
    },
    status: {
      acceptedNames: names,
      storedVersions: input.versions.filter((v) => v.storage).map((v) => v.name),
      conditions: [
        { type: 'NamesAccepted', status: 'True' },
        { type: 'Established', status: 'True' },
        ...(input.terminating ? [{ type: 'Terminating', status: 'True' }] : []),
      ],
    },
  };
}

/** base64 of the first 8 bytes of SHA-256 of `<group>/<version>/<kind>` (apiserver's StorageVersionHash). */
function hash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

const cronTabs = crd({
  group: 'stable.example.com', kind: 'CronTab', plural: 'crontabs', shortNames: ['ct'], categories: ['all'],
  versions: [
    { name: 'v1beta1', deprecated: true },
    { name: 'v1', storage: true, status: true, scale: true },
    { name: 'v2alpha1' },
    { name: 'v10' },
    { name: 'v3', served: false },
  ],
});
const widgets = crd({ group: 'a.example.org', kind: 'Widget', plural: 'widgets', scope: 'Cluster', versions: [{ name: 'v1', storage: true }] });
/** Stored in a version that is no longer served: upstream publishes no storage version hash. */
const gizmos = crd({ group: 'b.example.org', kind: 'Gizmo', plural: 'gizmos', versions: [{ name: 'v1', served: false, storage: true }, { name: 'v2' }] });
const dying = crd({ group: 'b.example.org', kind: 'Relic', plural: 'relics', terminating: true, versions: [{ name: 'v2', storage: true }] });

const t = serveFile([], ({ srv }) => {
  for (const def of [cronTabs, widgets, gizmos, dying]) for (const kind of customResourceKinds(def)) srv.server.surface.add(kind);
});

const CRONTAB_V1 = {
  name: 'crontabs',
  singularName: 'crontab',
  namespaced: true,
  kind: 'CronTab',
  verbs: CR_VERBS,
  shortNames: ['ct'],
  categories: ['all'],
  storageVersionHash: hash('stable.example.com', 'v1', 'CronTab'),
};

describe('legacy discovery of custom resources', () => {
  test('/apis lists custom resource groups after every built-in group, by name, versions by Kubernetes priority', async () => {
    const res = await t.api.get('/apis');
    assert.equal(res.status, 200);
    const names: string[] = res.json.groups.map((g: any) => g.name);
    const firstCustom = names.indexOf('a.example.org');
    assert.deepEqual(names.slice(firstCustom), ['a.example.org', 'b.example.org', 'stable.example.com']);
    assert.ok(names.slice(0, firstCustom).every((n) => n.endsWith('.k8s.io') || !n.includes('.')), names.join(' '));
    const stable = res.json.groups.find((g: any) => g.name === 'stable.example.com');
    assert.deepEqual(stable, {
      name: 'stable.example.com',
      versions: ['v10', 'v1', 'v1beta1', 'v2alpha1'].map((v) => ({ groupVersion: `stable.example.com/${v}`, version: v })),
      preferredVersion: { groupVersion: 'stable.example.com/v10', version: 'v10' },
    });
  });

  test('/apis/<group> describes a custom resource group; unserved versions are not in it', async () => {
    const res = await t.api.get('/apis/b.example.org');
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, {
      kind: 'APIGroup',
      apiVersion: 'v1',
      name: 'b.example.org',
      versions: [{ groupVersion: 'b.example.org/v2', version: 'v2' }],
      preferredVersion: { groupVersion: 'b.example.org/v2', version: 'v2' },
    });
    assertStatus(await t.api.get('/apis/stable.example.com/v3'), 404, 'NotFound');
  });

  test('/apis/<group>/<version> lists the resource, then its status and scale (an autoscaling/v1 Scale)', async () => {
    const res = await t.api.get('/apis/stable.example.com/v1');
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, {
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: 'stable.example.com/v1',
      resources: [
        CRONTAB_V1,
        { name: 'crontabs/status', singularName: '', namespaced: true, kind: 'CronTab', verbs: SUB_VERBS },
        { name: 'crontabs/scale', singularName: '', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: SUB_VERBS },
      ],
    });
  });

  test('every served version carries the hash of the storage version', async () => {
    const res = await t.api.get('/apis/stable.example.com/v1beta1');
    assert.deepEqual(res.json.resources, [CRONTAB_V1]);
    const widgetsRes = await t.api.get('/apis/a.example.org/v1');
    assert.deepEqual(widgetsRes.json.resources, [{
      name: 'widgets', singularName: 'widget', namespaced: false, kind: 'Widget', verbs: CR_VERBS,
      storageVersionHash: hash('a.example.org', 'v1', 'Widget'),
    }]);
  });

  test('a storage version that is not served gives no hash; a terminating CRD serves only reads and deletes', async () => {
    const res = await t.api.get('/apis/b.example.org/v2');
    assert.deepEqual(res.json.resources, [
      { name: 'gizmos', singularName: 'gizmo', namespaced: true, kind: 'Gizmo', verbs: CR_VERBS },
      { name: 'relics', singularName: 'relic', namespaced: true, kind: 'Relic', verbs: ['delete', 'deletecollection', 'get', 'list', 'watch'],
        storageVersionHash: hash('b.example.org', 'v2', 'Relic') },
    ]);
  });
});

describe('aggregated discovery of custom resources', () => {
  for (const [accept, apiVersion] of [[AGGREGATED_V2, 'apidiscovery.k8s.io/v2'], [AGGREGATED_V2BETA1, 'apidiscovery.k8s.io/v2beta1']] as const) {
    test(`${apiVersion}: custom resource groups come last, their resources name their group and version`, async () => {
      const res = await t.api.get('/apis', { Accept: accept });
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-type'], accept);
      assert.equal(res.json.apiVersion, apiVersion);
      const names: string[] = res.json.items.map((g: any) => g.metadata.name);
      assert.deepEqual(names.slice(-3), ['a.example.org', 'b.example.org', 'stable.example.com']);
      const stable = res.json.items.at(-1);
      assert.deepEqual(stable.versions.map((v: any) => [v.version, v.freshness]), [
        ['v10', 'Current'], ['v1', 'Current'], ['v1beta1', 'Current'], ['v2alpha1', 'Current'],
      ]);
      assert.deepEqual(stable.versions[1], {
        version: 'v1',
        resources: [{
          resource: 'crontabs',
          responseKind: { group: 'stable.example.com', version: 'v1', kind: 'CronTab' },
          scope: 'Namespaced',
          singularResource: 'crontab',
          verbs: CR_VERBS,
          shortNames: ['ct'],
          categories: ['all'],
          subresources: [
            { subresource: 'status', responseKind: { group: 'stable.example.com', version: 'v1', kind: 'CronTab' }, verbs: SUB_VERBS },
            { subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: SUB_VERBS },
          ],
        }],
        freshness: 'Current',
      });
      // A deprecated version is listed like any other: aggregated discovery has no field that marks it.
      assert.deepEqual(Object.keys(stable.versions[2]), ['version', 'resources', 'freshness']);
      assert.deepEqual(Object.keys(stable.versions[2].resources[0]).sort(), ['categories', 'resource', 'responseKind', 'scope', 'shortNames', 'singularResource', 'verbs']);
      const widgets = res.json.items.find((g: any) => g.metadata.name === 'a.example.org');
      assert.deepEqual(widgets.versions[0].resources, [{
        resource: 'widgets',
        responseKind: { group: 'a.example.org', version: 'v1', kind: 'Widget' },
        scope: 'Cluster',
        singularResource: 'widget',
        verbs: CR_VERBS,
      }]);
      const core = await t.api.get('/api', { Accept: accept });
      assert.ok(!JSON.stringify(core.json).includes('example'));
    });
  }

  test('discovery follows kinds leaving the surface (documents are rebuilt per generation)', async () => {
    const before = await t.api.get('/apis', { Accept: AGGREGATED_V2 });
    const surface = t.srv.server.surface;
    const [relics] = customResourceKinds(dying);
    assert.equal(surface.remove('b.example.org', 'v2', 'relics'), true);
    try {
      const after = await t.api.get('/apis', { Accept: AGGREGATED_V2 });
      assert.notEqual(after.headers.etag, before.headers.etag);
      const b = after.json.items.find((g: any) => g.metadata.name === 'b.example.org');
      assert.deepEqual(b.versions[0].resources.map((r: any) => r.resource), ['gizmos']);
      const legacy = await t.api.get('/apis/b.example.org/v2');
      assert.deepEqual(legacy.json.resources.map((r: any) => r.name), ['gizmos']);
    } finally {
      surface.add(relics!);
    }
  });
});
