/**
 * --runtime-config end to end: a version turned off is absent from discovery (legacy and
 * aggregated) and its paths answer 404; a beta version turned on is served; a core resource turned
 * off alone leaves the rest of v1; versions Kubernetes 1.34 no longer serves answer 404; unknown
 * groups and unregistered versions stop the start with upstream's messages.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertStatus } from '../helpers/fixtures.ts';
import { serveFile, startTestServer } from '../helpers/server.ts';

const t = serveFile(['--runtime-config=storage.k8s.io/v1=false,coordination.k8s.io/v1beta1=true,/v1/configmaps=false,api/legacy=false']);

const AGGREGATED_V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

describe('a version turned off', () => {
  test('is absent from /apis and from aggregated discovery', async () => {
    const groups = (await t.api.get('/apis')).json.groups.map((g: any) => g.name);
    assert.equal(groups.includes('storage.k8s.io'), false);
    assert.ok(groups.includes('events.k8s.io'));
    const aggregated = await t.api.get('/apis', { Accept: AGGREGATED_V2 });
    assert.equal(aggregated.status, 200);
    assert.equal(aggregated.json.items.some((g: any) => g.metadata.name === 'storage.k8s.io'), false);
  });

  test('answers 404 on its discovery document and its resources', async () => {
    assertStatus(await t.api.get('/apis/storage.k8s.io/v1'), 404, 'NotFound');
    assertStatus(await t.api.get('/apis/storage.k8s.io/v1/csidrivers'), 404, 'NotFound');
    assertStatus(await t.api.post('/apis/storage.k8s.io/v1/csidrivers', { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: 'x' }, spec: {} }), 404, 'NotFound');
  });
});

describe('a beta version turned on', () => {
  test('is listed next to v1 and serves its kind', async () => {
    const group = (await t.api.get('/apis/coordination.k8s.io')).json;
    assert.deepEqual(group.versions.map((v: any) => v.version), ['v1', 'v1beta1']);
    assert.equal(group.preferredVersion.version, 'v1');
    const resources = (await t.api.get('/apis/coordination.k8s.io/v1beta1')).json.resources.map((r: any) => r.name);
    assert.ok(resources.includes('leasecandidates'));
    assert.equal((await t.api.get(`/apis/coordination.k8s.io/v1beta1/namespaces/${t.ns}/leasecandidates`)).status, 200);
  });
});

describe('one core resource turned off', () => {
  test('leaves the other core resources', async () => {
    const resources = (await t.api.get('/api/v1')).json.resources.map((r: any) => r.name);
    assert.equal(resources.includes('configmaps'), false);
    assert.ok(resources.includes('secrets'));
    assertStatus(await t.api.get(`/api/v1/namespaces/${t.ns}/configmaps`), 404, 'NotFound');
    assert.equal((await t.api.get(`/api/v1/namespaces/${t.ns}/secrets`)).status, 200);
  });
});

describe('versions Kubernetes 1.34 no longer serves', () => {
  test('answer 404, as their groups list only the versions served', async () => {
    for (const path of [
      '/apis/flowcontrol.apiserver.k8s.io/v1beta3/flowschemas',
      '/apis/flowcontrol.apiserver.k8s.io/v1beta1',
      '/apis/events.k8s.io/v1beta1/events',
      '/apis/policy/v1beta1/poddisruptionbudgets',
      '/apis/extensions/v1beta1/networkpolicies',
      '/apis/rbac.authorization.k8s.io/v1beta1/clusterroles',
    ]) {
      assertStatus(await t.api.get(path), 404, 'NotFound');
    }
    const flowcontrol = (await t.api.get('/apis/flowcontrol.apiserver.k8s.io')).json;
    assert.deepEqual(flowcontrol.versions.map((v: any) => v.version), ['v1']);
  });
});

describe('start-up errors', () => {
  test('an unknown group stops the start with upstream\'s message', async () => {
    await assert.rejects(startTestServer(['--runtime-config=widgets.example.com/v1=true']), { name: 'StartupError', message: 'unknown api groups widgets.example.com' });
  });

  test('a version its group never registered stops the start', async () => {
    await assert.rejects(startTestServer(['--runtime-config=batch/v2alpha1=true']), { name: 'StartupError', message: 'group version batch/v2alpha1 that has not been registered' });
  });
});
