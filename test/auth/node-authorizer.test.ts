/** The Node authorizer: unit-level decisions on a fixed set of pods, and one HTTP round with a kubelet's certificate. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type { RequestInfo } from '../../src/api/request-info.ts';
import { NodeAuthorizer } from '../../src/auth/node/node-authorizer.ts';
import { client } from '../helpers/http.ts';
import { startTestServer } from '../helpers/server.ts';

const pod = (ns: string, name: string, nodeName: string, spec: object) => ({ metadata: { namespace: ns, name }, spec: { nodeName, ...spec } });
const pods = [
  pod('default', 'p1', 'n1', {
    serviceAccountName: 'sa1',
    volumes: [{ name: 'v', secret: { secretName: 's1' } }, { name: 'c', configMap: { name: 'cm1' } }, { name: 'd', persistentVolumeClaim: { claimName: 'pvc1' } }],
    containers: [{ name: 'c', env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'env-secret', key: 'k' } } }] }],
  }),
  pod('default', 'p2', 'n2', { volumes: [{ name: 'v', secret: { secretName: 's2' } }] }),
];
const authz = new NodeAuthorizer({ podsOn: (n) => pods.filter((p) => p.spec.nodeName === n) });
const node = (name: string) => ({ name: `system:node:${name}`, groups: ['system:nodes', 'system:authenticated'] });
const req = (r: Partial<RequestInfo>): RequestInfo =>
  ({ isResourceRequest: true, path: '', verb: 'get', apiPrefix: 'api', apiGroup: '', apiVersion: 'v1', namespace: 'default', resource: 'secrets', subresource: '', name: '', inNamespace: true, parts: [], ...r }) as RequestInfo;

test('a node reads only the secrets, config maps and PVCs of pods bound to it', () => {
  for (const [resource, name] of [['secrets', 's1'], ['secrets', 'env-secret'], ['configmaps', 'cm1'], ['persistentvolumeclaims', 'pvc1']] as const) {
    assert.equal(authz.authorize({ user: node('n1'), request: req({ resource, name }) }).decision, 'allow', `${resource}/${name}`);
  }
  const other = authz.authorize({ user: node('n1'), request: req({ name: 's2' }) });
  assert.deepEqual(other, { decision: 'noOpinion', reason: "no relationship found between node 'n1' and this object" });
  assert.equal(authz.authorize({ user: node('n1'), request: req({ name: 's1', namespace: 'other' }) }).decision, 'noOpinion');
  assert.equal(authz.authorize({ user: node('n1'), request: req({ verb: 'list' }) }).reason, 'No Object name found');
  assert.equal(authz.authorize({ user: node('n1'), request: req({ verb: 'list', name: 's1' }) }).decision, 'allow');
  assert.equal(authz.authorize({ user: node('n1'), request: req({ verb: 'delete', name: 's1' }) }).reason, 'can only read resources of this type');
  assert.equal(authz.authorize({ user: node('n1'), request: req({ resource: 'persistentvolumeclaims', verb: 'list', name: 'pvc1' }) }).reason, 'can only get individual resources of this type');
});

test("pods bound to the node and the node's own Node object", () => {
  const ask = (r: Partial<RequestInfo>) => authz.authorize({ user: node('n1'), request: req(r) });
  assert.equal(ask({ resource: 'pods', name: 'p1' }).decision, 'allow');
  assert.equal(ask({ resource: 'pods', name: 'p2' }).reason, "no relationship found between node 'n1' and this object");
  assert.equal(ask({ resource: 'pods', subresource: 'status', verb: 'patch', name: 'p1' }).decision, 'allow');
  assert.equal(ask({ resource: 'nodes', namespace: '', name: 'n1' }).decision, 'allow');
  assert.equal(ask({ resource: 'nodes', namespace: '', name: 'n2' }).reason, "node 'n1' cannot read 'n2', only its own Node object");
  assert.equal(ask({ resource: 'nodes', namespace: '', verb: 'list' }).reason, "node 'n1' cannot read all nodes, only its own Node object");
  assert.equal(ask({ resource: 'nodes', namespace: '', subresource: 'status', verb: 'patch', name: 'n1' }).decision, 'allow');
});

test('users that are not nodes, and requests the authorizer does not scope, get no opinion', () => {
  assert.deepEqual(authz.authorize({ user: { name: 'system:node:n1', groups: [] }, request: req({ name: 's1' }) }), { decision: 'noOpinion' });
  assert.deepEqual(authz.authorize({ user: { name: 'alice', groups: ['system:nodes'] }, request: req({ name: 's1' }) }), { decision: 'noOpinion' });
  assert.deepEqual(authz.authorize({ user: node('n1'), request: req({ resource: 'services', name: 'x' }) }), { decision: 'noOpinion' });
});

test('service account tokens, own lease and own CSINode', () => {
  const token = (name: string) => authz.authorize({ user: node('n1'), request: req({ resource: 'serviceaccounts', subresource: 'token', verb: 'create', name }) }).decision;
  assert.equal(token('sa1'), 'allow');
  assert.equal(token('default'), 'noOpinion');
  const lease = (namespace: string, name: string) =>
    authz.authorize({ user: node('n1'), request: req({ apiGroup: 'coordination.k8s.io', resource: 'leases', verb: 'update', namespace, name }) }).decision;
  assert.equal(lease('kube-node-lease', 'n1'), 'allow');
  assert.equal(lease('kube-node-lease', 'n2'), 'noOpinion');
  assert.equal(lease('default', 'n1'), 'noOpinion');
  const csi = (name: string) => authz.authorize({ user: node('n1'), request: req({ apiGroup: 'storage.k8s.io', resource: 'csinodes', namespace: '', name }) }).decision;
  assert.equal(csi('n1'), 'allow');
  assert.equal(csi('n2'), 'noOpinion');
});

test('over HTTP, a kubelet certificate reads the secret of its pod and is refused another', async () => {
  const srv = await startTestServer(['--authorization-mode=Node']);
  const work = await mkdtemp(path.join(tmpdir(), 'pgkube-node-authz-'));
  try {
    const admin = client(srv.url, srv.adminAgent);
    for (const name of ['mine', 'theirs']) {
      const r = await admin.post('/api/v1/namespaces/default/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name }, stringData: { k: 'v' } });
      assert.equal(r.status, 201, r.text);
    }
    const p = await admin.post('/api/v1/namespaces/default/pods', {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' },
      spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'busybox' }], volumes: [{ name: 'v', secret: { secretName: 'mine' } }] },
    });
    assert.equal(p.status, 201, p.text);
    const pki = path.join(srv.dataDir, 'pki');
    const [key, csr, crt, ext] = ['key', 'csr', 'crt', 'ext'].map((e) => path.join(work, `n1.${e}`));
    await writeFile(ext!, 'extendedKeyUsage=clientAuth\n');
    execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key!, '-out', csr!, '-subj', '/CN=system:node:n1/O=system:nodes'], { stdio: 'ignore' });
    execFileSync('openssl', ['x509', '-req', '-in', csr!, '-CA', path.join(pki, 'ca.crt'), '-CAkey', path.join(pki, 'ca.key'), '-CAcreateserial', '-out', crt!, '-days', '1', '-extfile', ext!], { stdio: 'ignore' });
    const kubelet = client(srv.url, new https.Agent({ ca: srv.ca, cert: await readFile(crt!, 'utf8'), key: await readFile(key!, 'utf8') }));
    // The informer sees the pod shortly after its write.
    let mine = await kubelet.get('/api/v1/namespaces/default/secrets/mine');
    for (let i = 0; i < 50 && mine.status === 403; i++) {
      await new Promise((r) => setTimeout(r, 100));
      mine = await kubelet.get('/api/v1/namespaces/default/secrets/mine');
    }
    assert.equal(mine.status, 200, mine.text);
    const theirs = await kubelet.get('/api/v1/namespaces/default/secrets/theirs');
    assert.equal(theirs.status, 403, theirs.text);
  } finally {
    await srv.stop();
    await rm(work, { recursive: true, force: true });
  }
});
