import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiError, notFound } from '../../src/api/errors.ts';
import { systemContext } from '../../src/api/request-context.ts';
import type { AdmissionAttributes } from '../../src/admission/attributes.ts';
import { ServiceAccountAdmission } from '../../src/admission/builtin/service-account.ts';
import type { Informer } from '../../src/registry/informer.ts';
import type { ResourceStore } from '../../src/registry/resource-store.ts';
import { assertStatus, create, createNamespace, eventually, uniqueName, type Api } from '../helpers/fixtures.ts';
import { client } from '../helpers/http.ts';
import { serveFile, startTestServer, type TestServer } from '../helpers/server.ts';

// Expectations from upstream's plugin/pkg/admission/serviceaccount/admission.go (1.34) and its tests.
const MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
const pod = (name: string | undefined, spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { ...(name ? { name } : {}), ...metadata },
  spec: { containers: [{ name: 'app', image: 'nginx:1.27' }], ...spec },
});
const sa = (name: string, extra: Record<string, unknown> = {}, annotations?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { name, ...(annotations ? { annotations } : {}) },
  ...extra,
});

/** Waits for the service account controller's `default` account in `ns`. */
async function defaultAccount(api: Api, ns: string): Promise<void> {
  await eventually(async () => (await api.get(`/api/v1/namespaces/${ns}/serviceaccounts/default`)).status === 200, `default service account in ${ns}`);
}

describe('ServiceAccount admission (on by default)', () => {
  const t = serveFile();
  const pods = () => `/api/v1/namespaces/${t.ns}/pods`;

  test('the service account controller gives every namespace a default account, and makes it again when deleted', async () => {
    await defaultAccount(t.api, t.ns);
    await defaultAccount(t.api, 'default');
    const res = await t.api.delete(`/api/v1/namespaces/${t.ns}/serviceaccounts/default`);
    assert.equal(res.status, 200, res.text);
    await defaultAccount(t.api, t.ns);
  });

  test('a pod without a service account gets `default` and the projected kube-api-access volume, mounted in every container', async () => {
    await defaultAccount(t.api, t.ns);
    const created = await create(t.api, pods(), pod('plain', { initContainers: [{ name: 'init', image: 'busybox' }], containers: [{ name: 'a', image: 'nginx' }, { name: 'b', image: 'nginx' }] }));
    const spec = created.spec;
    assert.equal(spec.serviceAccountName, 'default');
    assert.equal(spec.volumes.length, 1);
    const volume = spec.volumes[0];
    assert.match(volume.name, /^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.deepEqual(volume.projected, {
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
      defaultMode: 420,
    });
    for (const c of [...spec.initContainers, ...spec.containers]) {
      assert.deepEqual(c.volumeMounts, [{ name: volume.name, readOnly: true, mountPath: MOUNT_PATH }], c.name);
    }
  });

  test('a pod naming a service account that does not exist is refused with upstream message', async () => {
    const res = await t.api.post(pods(), pod('lost', { serviceAccountName: 'robot' }));
    assertStatus(res, 403, 'Forbidden', `pods "lost" is forbidden: error looking up service account ${t.ns}/robot: serviceaccount "robot" not found`);
    assert.deepEqual(res.json.details, { name: 'lost', kind: 'pods' });
    // generateName: the refusal names the prefix, as names are generated after admission.
    const generated = await t.api.post(pods(), pod(undefined, { serviceAccountName: 'robot' }, { generateName: 'gen-' }));
    assertStatus(generated, 403, 'Forbidden', `pods "gen-" is forbidden: error looking up service account ${t.ns}/robot: serviceaccount "robot" not found`);
    await create(t.api, `/api/v1/namespaces/${t.ns}/serviceaccounts`, sa('robot'));
    const now = await create(t.api, pods(), pod('found', { serviceAccountName: 'robot' }));
    assert.equal(now.spec.serviceAccountName, 'robot');
  });

  test('automountServiceAccountToken: the pod wins over its service account, which wins over the default', async () => {
    await create(t.api, `/api/v1/namespaces/${t.ns}/serviceaccounts`, sa('quiet', { automountServiceAccountToken: false }));
    const podOff = await create(t.api, pods(), pod('pod-off', { automountServiceAccountToken: false }));
    assert.equal(podOff.spec.volumes, undefined);
    assert.equal(podOff.spec.containers[0].volumeMounts, undefined);
    const saOff = await create(t.api, pods(), pod('sa-off', { serviceAccountName: 'quiet' }));
    assert.equal(saOff.spec.volumes, undefined);
    const podOn = await create(t.api, pods(), pod('pod-on', { serviceAccountName: 'quiet', automountServiceAccountToken: true }));
    assert.equal(podOn.spec.volumes.length, 1);
    assert.match(podOn.spec.volumes[0].name, /^kube-api-access-/);
  });

  test('a container with something mounted at the token path keeps it; an existing kube-api-access volume is reused', async () => {
    await defaultAccount(t.api, t.ns);
    const own = await create(
      t.api,
      pods(),
      pod('own-mount', {
        containers: [
          { name: 'mine', image: 'nginx', volumeMounts: [{ name: 'tok', mountPath: MOUNT_PATH }] },
          { name: 'other', image: 'nginx' },
        ],
        volumes: [{ name: 'tok', emptyDir: {} }],
      }),
    );
    assert.deepEqual(own.spec.containers[0].volumeMounts, [{ name: 'tok', mountPath: MOUNT_PATH }]);
    const added = own.spec.volumes.find((v: { name: string }) => v.name.startsWith('kube-api-access-'));
    assert.ok(added, 'the other container needs the token volume');
    assert.deepEqual(own.spec.containers[1].volumeMounts, [{ name: added.name, readOnly: true, mountPath: MOUNT_PATH }]);

    const none = await create(t.api, pods(), pod('all-own', { containers: [{ name: 'mine', image: 'nginx', volumeMounts: [{ name: 'tok', mountPath: MOUNT_PATH }] }], volumes: [{ name: 'tok', emptyDir: {} }] }));
    assert.deepEqual(none.spec.volumes.map((v: { name: string }) => v.name), ['tok'], 'no container needs the token volume');

    const reused = await create(t.api, pods(), pod('reuse', { volumes: [{ name: 'kube-api-access-mine', emptyDir: {} }] }));
    assert.deepEqual(reused.spec.volumes.map((v: { name: string }) => v.name), ['kube-api-access-mine']);
    assert.deepEqual(reused.spec.containers[0].volumeMounts, [{ name: 'kube-api-access-mine', readOnly: true, mountPath: MOUNT_PATH }]);
  });

  test("the service account's imagePullSecrets go to a pod that has none", async () => {
    await create(t.api, `/api/v1/namespaces/${t.ns}/serviceaccounts`, sa('puller', { imagePullSecrets: [{ name: 'registry-a' }, { name: 'registry-b' }] }));
    const copied = await create(t.api, pods(), pod('pulls', { serviceAccountName: 'puller' }));
    assert.deepEqual(copied.spec.imagePullSecrets, [{ name: 'registry-a' }, { name: 'registry-b' }]);
    const kept = await create(t.api, pods(), pod('own-pulls', { serviceAccountName: 'puller', imagePullSecrets: [{ name: 'mine' }] }));
    assert.deepEqual(kept.spec.imagePullSecrets, [{ name: 'mine' }]);
  });

  test('mirror pods are left alone, and may reference neither service accounts nor secrets nor token projections', async () => {
    const mirror = { 'kubernetes.io/config.mirror': 'abc' };
    const plain = await create(t.api, pods(), pod('mirror', {}, { annotations: mirror }));
    assert.equal(plain.spec.serviceAccountName, undefined);
    assert.equal(plain.spec.volumes, undefined);
    assertStatus(await t.api.post(pods(), pod('mirror-sa', { serviceAccountName: 'default' }, { annotations: mirror })), 403, 'Forbidden', 'pods "mirror-sa" is forbidden: a mirror pod may not reference service accounts');
    assertStatus(
      await t.api.post(pods(), pod('mirror-secret', { containers: [{ name: 'app', image: 'nginx', envFrom: [{ secretRef: { name: 's' } }] }] }, { annotations: mirror })),
      403,
      'Forbidden',
      'pods "mirror-secret" is forbidden: a mirror pod may not reference secrets',
    );
    assertStatus(
      await t.api.post(pods(), pod('mirror-token', { volumes: [{ name: 't', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } }] }, { annotations: mirror })),
      403,
      'Forbidden',
      'pods "mirror-token" is forbidden: a mirror pod may not use ServiceAccountToken volume projections',
    );
  });

  test('kubernetes.io/enforce-mountable-secrets limits the secrets a pod may use to those its service account lists', async () => {
    const path = `/api/v1/namespaces/${t.ns}/serviceaccounts`;
    await create(t.api, path, sa('strict', { secrets: [{ name: 'allowed' }], imagePullSecrets: [{ name: 'pull' }] }, { 'kubernetes.io/enforce-mountable-secrets': 'true' }));
    await create(t.api, pods(), pod('strict-ok', { serviceAccountName: 'strict', volumes: [{ name: 's', secret: { secretName: 'allowed' } }] }));
    assertStatus(
      await t.api.post(pods(), pod('strict-vol', { serviceAccountName: 'strict', volumes: [{ name: 's', secret: { secretName: 'other' } }] })),
      403,
      'Forbidden',
      'pods "strict-vol" is forbidden: volume with secret.secretName="other" is not allowed because service account strict does not reference that secret',
    );
    assertStatus(
      await t.api.post(pods(), pod('strict-env', { serviceAccountName: 'strict', containers: [{ name: 'app', image: 'nginx', env: [{ name: 'K', valueFrom: { secretKeyRef: { name: 'other', key: 'k' } } }] }] })),
      403,
      'Forbidden',
      'pods "strict-env" is forbidden: container app with envVar K referencing secret.secretName="other" is not allowed because service account strict does not reference that secret',
    );
    assertStatus(
      await t.api.post(pods(), pod('strict-init', { serviceAccountName: 'strict', initContainers: [{ name: 'setup', image: 'busybox', envFrom: [{ secretRef: { name: 'other' } }] }] })),
      403,
      'Forbidden',
      'pods "strict-init" is forbidden: init container setup with envFrom referencing secret.secretName="other" is not allowed because service account strict does not reference that secret',
    );
    assertStatus(
      await t.api.post(pods(), pod('strict-pull', { serviceAccountName: 'strict', imagePullSecrets: [{ name: 'pull' }, { name: 'nope' }] })),
      403,
      'Forbidden',
      'pods "strict-pull" is forbidden: imagePullSecrets[1].name="nope" is not allowed because service account strict does not reference that imagePullSecret',
    );
    // Not enforced without the annotation (or with a value other than true).
    await create(t.api, path, sa('lax', {}, { 'kubernetes.io/enforce-mountable-secrets': 'no' }));
    await create(t.api, pods(), pod('lax-ok', { serviceAccountName: 'lax', volumes: [{ name: 's', secret: { secretName: 'other' } }] }));
  });

  test('only pod creates are changed: updates keep the pod as it is', async () => {
    await defaultAccount(t.api, t.ns);
    const created = await create(t.api, pods(), pod('upd', { automountServiceAccountToken: false }));
    const res = await t.api.put(`${pods()}/upd`, { ...created, metadata: { ...created.metadata, labels: { a: 'b' } } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.spec.volumes, undefined);
  });
});

describe('ServiceAccount admission when the default account is late', () => {
  let srv: TestServer;
  let api: Api;
  before(async () => {
    // No service account controller: nothing makes `default` but the test.
    srv = await startTestServer(['--controllers=*,-serviceaccount-controller']);
    api = client(srv.url, srv.adminAgent);
  });
  after(() => srv?.stop());

  test('a missing default account is looked up again for a while before the pod is refused', async () => {
    const ns = await createNamespace(api, uniqueName('late'));
    const started = Date.now();
    const refused = await api.post(`/api/v1/namespaces/${ns}/pods`, pod('p'));
    const waited = Date.now() - started;
    assertStatus(refused, 403, 'Forbidden', `pods "p" is forbidden: error looking up service account ${ns}/default: serviceaccount "default" not found`);
    assert.ok(waited >= 900, `ten lookups 100-200 ms apart, took ${waited} ms`);

    // An account that appears while the plugin looks again admits the pod.
    const pending = api.post(`/api/v1/namespaces/${ns}/pods`, pod('q'));
    await new Promise((r) => setTimeout(r, 300));
    await create(api, `/api/v1/namespaces/${ns}/serviceaccounts`, sa('default'));
    const res = await pending;
    assert.equal(res.status, 201, res.text);
    assert.equal(res.json.spec.serviceAccountName, 'default');
  });

  test('another missing account is looked up once', async () => {
    const ns = await createNamespace(api, uniqueName('once'));
    const started = Date.now();
    assertStatus(await api.post(`/api/v1/namespaces/${ns}/pods`, pod('p', { serviceAccountName: 'x' })), 403, 'Forbidden');
    assert.ok(Date.now() - started < 900);
  });
});

describe('ServiceAccount admission disabled', () => {
  const t = serveFile(['--disable-admission-plugins=ServiceAccount']);

  test('pods are stored as sent, whatever service account they name', async () => {
    const created = await create(t.api, `/api/v1/namespaces/${t.ns}/pods`, pod('raw', { serviceAccountName: 'nobody' }));
    assert.equal(created.spec.serviceAccountName, 'nobody');
    assert.equal(created.spec.volumes, undefined);
  });
});

describe('ServiceAccount admission of ephemeral containers (pods/ephemeralcontainers)', () => {
  const account = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'strict', namespace: 'ns', annotations: { 'kubernetes.io/enforce-mountable-secrets': 'true' } }, secrets: [{ name: 'ok' }] };
  const informer = { get: () => undefined } as unknown as Informer;
  const store = {
    get: async (_ctx: unknown, _ns: string, name: string) => {
      if (name === 'strict') return { object: account };
      throw notFound({ group: '', resource: 'serviceaccounts' }, name);
    },
  } as unknown as ResourceStore;
  const plugin = new ServiceAccountAdmission(store, informer, { retryMs: () => 1 });
  const attrs = (spec: Record<string, unknown>): AdmissionAttributes => ({
    operation: 'UPDATE',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    subresource: 'ephemeralcontainers',
    name: 'p',
    namespace: 'ns',
    object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns' }, spec },
    user: { name: 'u', groups: [] },
    dryRun: false,
    context: systemContext(),
  });

  test('an ephemeral container may use only the secrets an enforcing service account lists', async () => {
    await plugin.validate(attrs({ serviceAccountName: 'strict', ephemeralContainers: [{ name: 'dbg', env: [{ name: 'K', valueFrom: { secretKeyRef: { name: 'ok', key: 'k' } } }] }] }));
    await assert.rejects(plugin.validate(attrs({ serviceAccountName: 'strict', ephemeralContainers: [{ name: 'dbg', envFrom: [{ secretRef: { name: 'other' } }] }] })), (err: ApiError) => {
      assert.equal(err.code, 403);
      assert.equal(err.message, 'pods "p" is forbidden: ephemeral container dbg with envFrom referencing secret.secretName="other" is not allowed because service account strict does not reference that secret');
      return true;
    });
    await assert.rejects(plugin.validate(attrs({ ephemeralContainers: [] })), /no service account specified for pod ns\/p/);
  });
});
