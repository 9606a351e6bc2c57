import assert from 'node:assert/strict';
import { test } from 'node:test';
import { flattenedVerify } from 'jose';
import { detachedJws } from '../../src/controllers/bootstrap-signer.ts';
import { serveFile } from '../helpers/server.ts';

const t = serveFile(['--controllers=*,bootstrapsigner']);
const b64 = (s: string) => Buffer.from(s).toString('base64');
const KUBECONFIG = 'apiVersion: v1\nkind: Config\nclusters:\n- name: ""\n  cluster:\n    server: https://example:6443\n';
const CLUSTER_INFO = '/api/v1/namespaces/kube-public/configmaps/cluster-info';

function tokenSecret(id: string, secret: string, opts: { signing?: boolean; expiration?: Date } = {}) {
  return {
    metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system' },
    type: 'bootstrap.kubernetes.io/token',
    data: {
      'token-id': b64(id),
      'token-secret': b64(secret),
      'usage-bootstrap-signing': b64(opts.signing === false ? 'false' : 'true'),
      ...(opts.expiration ? { expiration: b64(opts.expiration.toISOString()) } : {}),
    },
  };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function verify(jws: string, content: string, token: string): Promise<void> {
  const [header, payload, signature] = jws.split('.');
  assert.equal(payload, '', 'detached');
  const result = await flattenedVerify(
    { protected: header!, payload: Buffer.from(content).toString('base64url'), signature: signature! },
    new TextEncoder().encode(token),
    { algorithms: ['HS256'] },
  );
  assert.deepEqual(result.protectedHeader, { alg: 'HS256', kid: token.split('.')[0] });
}

test('detachedJws matches a known HS256 detached signature', async () => {
  const jws = detachedJws('hello', 'abcdef', '0123456789abcdef');
  assert.match(jws, /^eyJhbGciOiJIUzI1NiIsImtpZCI6ImFiY2RlZiJ9\.\.[A-Za-z0-9_-]{43}$/);
  await verify(jws, 'hello', 'abcdef.0123456789abcdef');
  await assert.rejects(verify(jws, 'hello', 'abcdef.0123456789abcdeX'));
});

test('without cluster-info nothing is created', async () => {
  assert.equal((await t.api.post('/api/v1/namespaces/kube-system/secrets', tokenSecret('zzzzzz', 'zzzzzzzzzzzzzzzz'))).status, 201);
  await new Promise((r) => setTimeout(r, 500));
  assert.equal((await t.api.get(CLUSTER_INFO)).status, 404);
  assert.equal((await t.api.delete('/api/v1/namespaces/kube-system/secrets/bootstrap-token-zzzzzz')).status, 200);
});

test('cluster-info is signed for valid signing tokens and stale signatures go', async () => {
  assert.equal((await t.api.post('/api/v1/namespaces/kube-public/configmaps', { metadata: { name: 'cluster-info' }, data: { kubeconfig: KUBECONFIG, 'jws-kubeconfig-stale0': 'x..y' } })).status, 201);
  for (const s of [
    tokenSecret('abcdef', '0123456789abcdef'),
    tokenSecret('nosign', '0123456789abcdef', { signing: false }),
    tokenSecret('expird', '0123456789abcdef', { expiration: new Date(Date.now() - 60_000) }),
  ]) {
    assert.equal((await t.api.post('/api/v1/namespaces/kube-system/secrets', s)).status, 201);
  }
  const data = await until('signature', async () => {
    const d = (await t.api.get(CLUSTER_INFO)).json.data as Record<string, string>;
    return d['jws-kubeconfig-abcdef'] && !d['jws-kubeconfig-stale0'] ? d : undefined;
  });
  await verify(data['jws-kubeconfig-abcdef']!, KUBECONFIG, 'abcdef.0123456789abcdef');
  assert.deepEqual(Object.keys(data).sort(), ['jws-kubeconfig-abcdef', 'kubeconfig']);

  // A changed kubeconfig is signed again.
  const cm = (await t.api.get(CLUSTER_INFO)).json;
  cm.data.kubeconfig = KUBECONFIG + '# changed\n';
  assert.equal((await t.api.put(CLUSTER_INFO, cm)).status, 200);
  const resigned = await until('new signature', async () => {
    const d = (await t.api.get(CLUSTER_INFO)).json.data as Record<string, string>;
    return d['jws-kubeconfig-abcdef'] !== data['jws-kubeconfig-abcdef'] ? d : undefined;
  });
  await verify(resigned['jws-kubeconfig-abcdef']!, KUBECONFIG + '# changed\n', 'abcdef.0123456789abcdef');

  // The token going takes its signature with it.
  assert.equal((await t.api.delete('/api/v1/namespaces/kube-system/secrets/bootstrap-token-abcdef')).status, 200);
  await until('signature removed', async () => {
    const d = (await t.api.get(CLUSTER_INFO)).json.data as Record<string, string>;
    return d['jws-kubeconfig-abcdef'] === undefined ? true : undefined;
  });
});

test('a token that expires loses its signature at expiry', async () => {
  const expiry = new Date(Date.now() + 1500);
  assert.equal((await t.api.post('/api/v1/namespaces/kube-system/secrets', tokenSecret('soonxx', '0123456789abcdef', { expiration: expiry }))).status, 201);
  await until('signature', async () => ((await t.api.get(CLUSTER_INFO)).json.data['jws-kubeconfig-soonxx'] ? true : undefined));
  await until('signature removed', async () => ((await t.api.get(CLUSTER_INFO)).json.data['jws-kubeconfig-soonxx'] === undefined ? true : undefined));
  assert.ok(Date.now() >= expiry.getTime());
});

test('cluster-info is readable anonymously through the kubeadm Role and RoleBinding', async () => {
  const role = await t.api.get('/apis/rbac.authorization.k8s.io/v1/namespaces/kube-public/roles/kubeadm:bootstrap-signer-clusterinfo');
  assert.equal(role.status, 200);
  assert.deepEqual(role.json.rules, [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['cluster-info'], verbs: ['get'] }]);
  const binding = await t.api.get('/apis/rbac.authorization.k8s.io/v1/namespaces/kube-public/rolebindings/kubeadm:bootstrap-signer-clusterinfo');
  assert.equal(binding.status, 200);
  assert.deepEqual(binding.json.subjects, [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'system:anonymous' }]);
  assert.equal((await t.anon.get(CLUSTER_INFO)).status, 200);
  // Only that one ConfigMap.
  assert.equal((await t.anon.get('/api/v1/namespaces/kube-public/configmaps')).status, 403);
});
