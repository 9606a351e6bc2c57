/**
 * The Node authorizer: decisions on a node graph built from plain pods, the graph kept by informers
 * on a real registry, the populator's update rules, and HTTP rounds with a kubelet's certificate.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { featureGateSet, type RequestContext } from '../../src/api/request-context.ts';
import type { RequestInfo } from '../../src/api/request-info.ts';
import type { StoredKubeObject } from '../../src/api/types.ts';
import { populateNodeGraph } from '../../src/auth/node/graph-populator.ts';
import { NodeAuthorizer } from '../../src/auth/node/node-authorizer.ts';
import { NodeGraph } from '../../src/auth/node/node-graph.ts';
import type { InformerHandlers } from '../../src/registry/informer.ts';
import { Informer } from '../../src/registry/informer.ts';
import { parseDeleteOptions } from '../../src/registry/delete-options.ts';
import { client, type Reply } from '../helpers/http.ts';
import { openTestRegistry, testContext, type TestRegistry } from '../helpers/registry.ts';
import { startTestServer } from '../helpers/server.ts';
import { userAgent } from './rbac-user-agent.ts';

type Obj = Record<string, any>;

const node = (name: string) => ({ name: `system:node:${name}`, groups: ['system:nodes', 'system:authenticated'] });
const req = (r: Partial<RequestInfo> & { fieldSelector?: string }): RequestInfo =>
  ({ isResourceRequest: true, path: '', verb: 'get', apiPrefix: 'api', apiGroup: '', apiVersion: 'v1', namespace: 'default', resource: 'secrets', subresource: '', name: '', inNamespace: true, parts: [], ...r }) as RequestInfo;
const noRelationship = (n: string) => ({ decision: 'noOpinion', reason: `no relationship found between node '${n}' and this object` });

/** Polls until `ok` holds (or fails after a few seconds with the last value). */
async function eventually<T>(probe: () => T | Promise<T>, ok: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await probe();
    if (ok(value)) return value;
    if (Date.now() > deadline) assert.fail(`${what}: still ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('on a graph of plain pods', () => {
  const pod = (ns: string, name: string, nodeName: string, spec: object) => ({ metadata: { namespace: ns, name }, spec: { nodeName, ...spec } });
  const graph = new NodeGraph();
  graph.setPod(
    pod('default', 'p1', 'n1', {
      serviceAccountName: 'sa1',
      volumes: [{ name: 'v', secret: { secretName: 's1' } }, { name: 'c', configMap: { name: 'cm1' } }, { name: 'd', persistentVolumeClaim: { claimName: 'pvc1' } }],
      containers: [{ name: 'c', env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'env-secret', key: 'k' } } }] }],
    }),
  );
  graph.setPod(pod('default', 'p2', 'n2', { volumes: [{ name: 'v', secret: { secretName: 's2' } }] }));
  const authz = new NodeAuthorizer(graph);

  test('a node reads only the secrets, config maps and PVCs of pods bound to it', () => {
    for (const [resource, name] of [['secrets', 's1'], ['secrets', 'env-secret'], ['configmaps', 'cm1'], ['persistentvolumeclaims', 'pvc1']] as const) {
      assert.equal(authz.authorize({ user: node('n1'), request: req({ resource, name }) }).decision, 'allow', `${resource}/${name}`);
    }
    const other = authz.authorize({ user: node('n1'), request: req({ name: 's2' }) });
    assert.deepEqual(other, noRelationship('n1'));
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

  test('users that are not nodes, and requests neither subdivided nor in the node rules, get no opinion', () => {
    assert.deepEqual(authz.authorize({ user: { name: 'system:node:n1', groups: [] }, request: req({ name: 's1' }) }), { decision: 'noOpinion' });
    assert.deepEqual(authz.authorize({ user: { name: 'alice', groups: ['system:nodes'] }, request: req({ name: 's1' }) }), { decision: 'noOpinion' });
    assert.deepEqual(authz.authorize({ user: node('n1'), request: req({ apiGroup: 'apps', resource: 'deployments', name: 'x' }) }), { decision: 'noOpinion' });
    assert.deepEqual(authz.authorize({ user: node('n1'), request: req({ isResourceRequest: false, path: '/healthz', resource: '' }) }), { decision: 'noOpinion' });
  });

  test('a node user without a node name is refused with the user named', () => {
    assert.deepEqual(authz.authorize({ user: { name: 'system:node:', groups: ['system:nodes'] }, request: req({ name: 's1' }) }), {
      decision: 'noOpinion',
      reason: 'unknown node for user "system:node:"',
    });
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

  test('the node rules allow what the authorizer does not subdivide', () => {
    const ask = (r: Partial<RequestInfo>) => authz.authorize({ user: node('n1'), request: req(r) }).decision;
    assert.equal(ask({ resource: 'services', verb: 'list' }), 'allow');
    assert.equal(ask({ resource: 'events', verb: 'create' }), 'allow');
    assert.equal(ask({ resource: 'endpoints', name: 'e' }), 'allow');
    assert.equal(ask({ apiGroup: 'certificates.k8s.io', resource: 'certificatesigningrequests', namespace: '', verb: 'create' }), 'allow');
    assert.equal(ask({ apiGroup: 'authentication.k8s.io', resource: 'tokenreviews', namespace: '', verb: 'create' }), 'allow');
    assert.equal(ask({ apiGroup: 'authorization.k8s.io', resource: 'subjectaccessreviews', namespace: '', verb: 'create' }), 'allow');
    assert.equal(ask({ apiGroup: 'storage.k8s.io', resource: 'csidrivers', namespace: '', verb: 'watch' }), 'allow');
    assert.equal(ask({ apiGroup: 'node.k8s.io', resource: 'runtimeclasses', namespace: '', verb: 'list' }), 'allow');
    assert.equal(ask({ resource: 'services', verb: 'delete', name: 'x' }), 'noOpinion');
    assert.equal(ask({ resource: 'events', verb: 'delete', name: 'x' }), 'noOpinion');
    assert.equal(ask({ apiGroup: 'events.k8s.io', resource: 'events', verb: 'create' }), 'noOpinion');
  });
});

describe('on the graph informers keep from a registry', () => {
  let registry: TestRegistry;
  let graph: NodeGraph;
  let authz: NodeAuthorizer;
  const informers: Informer[] = [];
  // DynamicResourceAllocation is on in 1.34 (GA); without it pods lose their resource claims on write.
  const ctx: RequestContext = { ...testContext(), featureGates: featureGateSet(new Map([['DynamicResourceAllocation', true]])) };
  const logger = pino({ level: 'silent' });
  const podBody = (name: string, nodeName: string | undefined, spec: Obj = {}, metadata: Obj = {}) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, ...metadata },
    spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'app', image: 'busybox' }], ...spec },
  });
  const pvBody = (name: string, claim: string | undefined, csi: Obj) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name },
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], csi: { driver: 'csi.example.com', volumeHandle: name, ...csi }, ...(claim ? { claimRef: { namespace: 'default', name: claim } } : {}) },
  });
  const vaBody = (name: string, nodeName: string) => ({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'VolumeAttachment',
    metadata: { name },
    spec: { attacher: 'csi.example.com', nodeName, source: { persistentVolumeName: 'pv1' } },
  });
  const ask = (n: string, r: Partial<RequestInfo> & { fieldSelector?: string }) => authz.authorize({ user: node(n), request: req(r) });
  const gone = { gracePeriodSeconds: '0' };

  before(async () => {
    registry = await openTestRegistry();
    graph = new NodeGraph();
    const informer = (plural: string, group?: string) => {
      const inf = new Informer(registry.store(plural, group), { logger });
      informers.push(inf);
      return inf;
    };
    populateNodeGraph(graph, { pods: informer('pods'), persistentVolumes: informer('persistentvolumes'), volumeAttachments: informer('volumeattachments', 'storage.k8s.io') });
    await Promise.all(informers.map((i) => i.start()));
    authz = new NodeAuthorizer(graph);

    const pods = registry.store('pods');
    await pods.create(
      ctx,
      'default',
      podBody('p1', 'n1', {
        serviceAccountName: 'sa1',
        imagePullSecrets: [{ name: 'pull-s' }],
        initContainers: [{ name: 'init', image: 'busybox', env: [{ name: 'I', valueFrom: { configMapKeyRef: { name: 'init-cm', key: 'k' } } }] }],
        containers: [
          {
            name: 'app',
            image: 'busybox',
            env: [{ name: 'S', valueFrom: { secretKeyRef: { name: 'env-s', key: 'k' } } }, { name: 'C', valueFrom: { configMapKeyRef: { name: 'env-cm', key: 'k' } } }],
            envFrom: [{ secretRef: { name: 'envfrom-s' } }, { configMapRef: { name: 'envfrom-cm' } }],
          },
        ],
        volumes: [
          { name: 'sec', secret: { secretName: 's1' } },
          { name: 'cm', configMap: { name: 'cm1' } },
          { name: 'claim', persistentVolumeClaim: { claimName: 'pvc1' } },
          { name: 'proj', projected: { sources: [{ secret: { name: 'proj-s' } }, { configMap: { name: 'proj-cm' } }, { serviceAccountToken: { path: 't' } }] } },
          { name: 'inline', csi: { driver: 'csi.example.com', nodePublishSecretRef: { name: 'csi-s' } } },
          { name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } } },
          { name: 'shared', secret: { secretName: 'shared' } },
        ],
      }),
    );
    await pods.create(ctx, 'default', podBody('p2', 'n2', { volumes: [{ name: 'v', secret: { secretName: 's2' } }, { name: 'shared', secret: { secretName: 'shared' } }] }));
    await pods.create(ctx, 'kube-system', podBody('p3', 'n1', { volumes: [{ name: 'v', secret: { secretName: 'system-s' } }] }));
    await pods.create(ctx, 'default', podBody('static', 'n1', { volumes: [{ name: 'v', secret: { secretName: 'mirror-s' } }] }, { annotations: { 'kubernetes.io/config.mirror': 'abc' } }));
    await pods.create(ctx, 'default', podBody('pending', undefined, { volumes: [{ name: 'v', secret: { secretName: 'pending-s' } }] }));
    const pvs = registry.store('persistentvolumes');
    await pvs.create(ctx, '', pvBody('pv1', 'pvc1', { nodePublishSecretRef: { namespace: 'default', name: 'pv-node-s' }, controllerPublishSecretRef: { namespace: 'default', name: 'pv-controller-s' } }));
    await pvs.create(ctx, '', pvBody('pv2', 'pvc-unused', { nodeStageSecretRef: { namespace: 'default', name: 'pv2-s' } }));
    await pvs.create(ctx, '', pvBody('pv3', undefined, {}));
    const vas = registry.store('volumeattachments', 'storage.k8s.io');
    await vas.create(ctx, '', vaBody('va1', 'n1'));
    await vas.create(ctx, '', vaBody('va2', 'n2'));
    await eventually(() => graph.hasVertex('volumeattachment', '', 'va2') && graph.hasVertex('pod', 'default', 'static'), Boolean, 'the graph catches up');
  });
  after(async () => {
    for (const i of informers) i.stop();
    await registry.close();
  });

  test('what a bound pod names, and what its volumes name, is readable by its node only', () => {
    const table: [string, Partial<RequestInfo>, 'allow' | 'noOpinion'][] = [
      ['volume secret', { resource: 'secrets', name: 's1' }, 'allow'],
      ['image pull secret', { resource: 'secrets', name: 'pull-s' }, 'allow'],
      ['env secret', { resource: 'secrets', name: 'env-s' }, 'allow'],
      ['envFrom secret', { resource: 'secrets', name: 'envfrom-s' }, 'allow'],
      ['projected secret', { resource: 'secrets', name: 'proj-s' }, 'allow'],
      ['inline CSI node publish secret', { resource: 'secrets', name: 'csi-s' }, 'allow'],
      ['shared secret', { resource: 'secrets', name: 'shared' }, 'allow'],
      ['volume config map', { resource: 'configmaps', name: 'cm1' }, 'allow'],
      ['init container env config map', { resource: 'configmaps', name: 'init-cm' }, 'allow'],
      ['env config map', { resource: 'configmaps', name: 'env-cm' }, 'allow'],
      ['envFrom config map', { resource: 'configmaps', name: 'envfrom-cm' }, 'allow'],
      ['projected config map', { resource: 'configmaps', name: 'proj-cm' }, 'allow'],
      ['claim', { resource: 'persistentvolumeclaims', name: 'pvc1' }, 'allow'],
      ['ephemeral volume claim <pod>-<volume>', { resource: 'persistentvolumeclaims', name: 'p1-scratch' }, 'allow'],
      ['claim status update', { resource: 'persistentvolumeclaims', subresource: 'status', verb: 'patch', name: 'pvc1' }, 'allow'],
      ['the bound volume', { resource: 'persistentvolumes', namespace: '', name: 'pv1' }, 'allow'],
      ["the bound volume's node secret", { resource: 'secrets', name: 'pv-node-s' }, 'allow'],
      ['service account', { resource: 'serviceaccounts', name: 'sa1' }, 'allow'],
      ['service account token', { resource: 'serviceaccounts', subresource: 'token', verb: 'create', name: 'sa1' }, 'allow'],
      ['own pod', { resource: 'pods', name: 'p1' }, 'allow'],
      ['own pod in another namespace', { resource: 'pods', namespace: 'kube-system', name: 'p3' }, 'allow'],
      ['its secret', { resource: 'secrets', namespace: 'kube-system', name: 'system-s' }, 'allow'],
      ['own volume attachment', { apiGroup: 'storage.k8s.io', resource: 'volumeattachments', namespace: '', name: 'va1' }, 'allow'],
      ["another node's secret", { resource: 'secrets', name: 's2' }, 'noOpinion'],
      ['a secret in another namespace', { resource: 'secrets', namespace: 'kube-system', name: 's1' }, 'noOpinion'],
      ["the bound volume's controller secret", { resource: 'secrets', name: 'pv-controller-s' }, 'noOpinion'],
      ['a volume bound to a claim no pod uses', { resource: 'persistentvolumes', namespace: '', name: 'pv2' }, 'noOpinion'],
      ["that volume's secret", { resource: 'secrets', name: 'pv2-s' }, 'noOpinion'],
      ['an unbound volume', { resource: 'persistentvolumes', namespace: '', name: 'pv3' }, 'noOpinion'],
      ["a mirror pod's secret", { resource: 'secrets', name: 'mirror-s' }, 'noOpinion'],
      ["an unscheduled pod's secret", { resource: 'secrets', name: 'pending-s' }, 'noOpinion'],
      ['an unscheduled pod', { resource: 'pods', name: 'pending' }, 'noOpinion'],
      ["another node's pod", { resource: 'pods', name: 'p2' }, 'noOpinion'],
      ["another node's attachment", { apiGroup: 'storage.k8s.io', resource: 'volumeattachments', namespace: '', name: 'va2' }, 'noOpinion'],
      ['a service account no pod here uses', { resource: 'serviceaccounts', subresource: 'token', verb: 'create', name: 'default' }, 'noOpinion'],
    ];
    for (const [what, r, expected] of table) {
      const result = ask('n1', r);
      assert.equal(result.decision, expected, `${what}: ${JSON.stringify(result)}`);
      if (expected === 'noOpinion') assert.deepEqual(result, noRelationship('n1'), what);
    }
    // The mirror pod itself is bound to n1.
    assert.equal(ask('n1', { resource: 'pods', name: 'static' }).decision, 'allow');
    assert.equal(ask('n2', { resource: 'secrets', name: 'shared' }).decision, 'allow');
    assert.equal(ask('n2', { resource: 'secrets', name: 's1' }).decision, 'noOpinion');
  });

  test('a node with nothing bound to it has no relationships, but its own Node, Lease and CSINode', () => {
    assert.deepEqual(ask('n9', { resource: 'secrets', name: 's1' }), noRelationship('n9'));
    assert.deepEqual(ask('n9', { resource: 'serviceaccounts', subresource: 'token', verb: 'create', name: 'sa1' }), noRelationship('n9'));
    assert.equal(ask('n9', { resource: 'nodes', namespace: '', name: 'n9' }).decision, 'allow');
    assert.equal(ask('n9', { apiGroup: 'coordination.k8s.io', resource: 'leases', namespace: 'kube-node-lease', name: 'n9' }).decision, 'allow');
    assert.equal(ask('n9', { apiGroup: 'storage.k8s.io', resource: 'csinodes', namespace: '', verb: 'create' }).decision, 'allow');
  });

  test('verbs and subresources each kind allows, with upstream reasons', () => {
    const reason = (r: Partial<RequestInfo> & { fieldSelector?: string }) => ask('n1', r).reason;
    assert.equal(reason({ resource: 'secrets', subresource: 'x', name: 's1' }), 'cannot read subresource');
    assert.equal(reason({ resource: 'secrets', namespace: '', verb: 'list', name: 's1' }), 'can only read namespaced object of this type');
    assert.equal(reason({ resource: 'persistentvolumes', namespace: '', verb: 'list' }), 'can only get individual resources of this type');
    assert.equal(reason({ resource: 'persistentvolumes', namespace: '', subresource: 'status', name: 'pv1' }), 'cannot get subresource');
    assert.equal(reason({ resource: 'persistentvolumeclaims', subresource: 'status', name: 'pvc1' }), 'can only get/update/patch this type');
    assert.equal(reason({ apiGroup: 'storage.k8s.io', resource: 'volumeattachments', namespace: '', verb: 'watch' }), 'can only get individual resources of this type');
    assert.equal(reason({ resource: 'serviceaccounts', verb: 'list' }), 'can only create tokens for individual service accounts');
    assert.equal(reason({ resource: 'serviceaccounts', verb: 'create', name: 'sa1' }), 'can only create token subresource of serviceaccount');
    assert.equal(reason({ resource: 'serviceaccounts', subresource: 'token', verb: 'get', name: 'sa1' }), 'can only create tokens for individual service accounts');
    assert.equal(reason({ apiGroup: 'coordination.k8s.io', resource: 'leases', namespace: 'kube-node-lease', verb: 'list' }), 'can only get, create, update, patch, or delete a node lease');
    assert.equal(reason({ apiGroup: 'coordination.k8s.io', resource: 'leases', namespace: 'default', name: 'n1' }), 'can only access leases in the "kube-node-lease" system namespace');
    assert.equal(reason({ apiGroup: 'coordination.k8s.io', resource: 'leases', namespace: 'kube-node-lease', name: 'n2' }), 'can only access node lease with the same name as the requesting node');
    assert.equal(reason({ apiGroup: 'storage.k8s.io', resource: 'csinodes', namespace: '', verb: 'list' }), 'can only get, create, update, patch, or delete a CSINode');
    assert.equal(reason({ apiGroup: 'storage.k8s.io', resource: 'csinodes', namespace: '', subresource: 'x', name: 'n1' }), 'cannot authorize CSINode subresources');
    assert.equal(reason({ apiGroup: 'storage.k8s.io', resource: 'csinodes', namespace: '', name: 'n2' }), 'can only access CSINode with the same name as the requesting node');
    assert.equal(reason({ resource: 'pods', verb: 'list' }), 'can only list/watch pods with spec.nodeName field selector');
    assert.equal(reason({ apiGroup: 'resource.k8s.io', resource: 'resourceslices', namespace: '', verb: 'list' }), 'can only list/watch/deletecollection resourceslices with nodeName field selector');
    assert.equal(reason({ apiGroup: 'resource.k8s.io', resource: 'resourceslices', namespace: '', verb: 'escalate' }), 'only the following verbs are allowed for a ResourceSlice: get, watch, list, create, update, patch, delete, deletecollection');
    // Writes the authorizer allows by kind (NodeRestriction admission narrows them upstream).
    for (const r of [
      { resource: 'pods', verb: 'create' },
      { resource: 'pods', verb: 'delete', name: 'p2' },
      { resource: 'pods', subresource: 'status', verb: 'update', name: 'p2' },
      { resource: 'pods', subresource: 'eviction', verb: 'create', name: 'p2' },
      { resource: 'nodes', namespace: '', verb: 'create' },
      { resource: 'nodes', namespace: '', verb: 'patch', name: 'n2' },
      { apiGroup: 'coordination.k8s.io', resource: 'leases', namespace: 'kube-node-lease', verb: 'create' },
      { apiGroup: 'resource.k8s.io', resource: 'resourceslices', namespace: '', verb: 'create' },
    ]) {
      assert.equal(ask('n1', r).decision, 'allow', JSON.stringify(r));
    }
    for (const r of [{ resource: 'pods', subresource: 'status', name: 'p1' }, { resource: 'pods', subresource: 'proxy', verb: 'create', name: 'p1' }, { resource: 'nodes', namespace: '', verb: 'delete', name: 'n1' }]) {
      assert.deepEqual(ask('n1', r), { decision: 'noOpinion' }, JSON.stringify(r));
    }
  });

  test("lists of the node's own pods and slices need the spec.nodeName field selector", () => {
    const list = (resource: string, fieldSelector: string, apiGroup = '') => ask('n1', { apiGroup, resource, namespace: '', verb: 'list', fieldSelector }).decision;
    assert.equal(list('pods', 'spec.nodeName=n1'), 'allow');
    assert.equal(list('pods', 'status.phase=Running,spec.nodeName==n1'), 'allow');
    assert.equal(list('pods', 'spec.nodeName=n2'), 'noOpinion');
    assert.equal(list('pods', 'spec.nodeName!=n1'), 'noOpinion');
    assert.equal(list('pods', 'spec.nodeName=n1,bad'), 'noOpinion');
    assert.equal(list('resourceslices', 'spec.nodeName=n1', 'resource.k8s.io'), 'allow');
    assert.equal(ask('n1', { resource: 'pods', verb: 'watch', name: 'p1' }).decision, 'allow');
  });

  test('deleting a pod, and binding one of that name elsewhere, moves what each node may read', async () => {
    const pods = registry.store('pods');
    await pods.create(ctx, 'default', podBody('mover', 'n1', { serviceAccountName: 'mover-sa', volumes: [{ name: 'v', secret: { secretName: 'mover-s' } }] }));
    await eventually(() => ask('n1', { resource: 'secrets', name: 'mover-s' }).decision, (d) => d === 'allow', 'n1 sees the new pod');
    await pods.delete(ctx, 'default', 'mover', parseDeleteOptions(new URLSearchParams(gone), undefined));
    await eventually(() => ask('n1', { resource: 'secrets', name: 'mover-s' }).decision, (d) => d === 'noOpinion', 'n1 loses the deleted pod');
    assert.equal(graph.hasVertex('secret', 'default', 'mover-s'), false, 'a secret no pod names leaves the graph');
    assert.equal(graph.hasVertex('serviceaccount', 'default', 'mover-sa'), false);
    await pods.create(ctx, 'default', podBody('mover', 'n2', { serviceAccountName: 'mover-sa', volumes: [{ name: 'v', secret: { secretName: 'mover-s' } }] }));
    await eventually(() => ask('n2', { resource: 'secrets', name: 'mover-s' }).decision, (d) => d === 'allow', 'n2 sees the pod');
    assert.deepEqual(ask('n1', { resource: 'secrets', name: 'mover-s' }), noRelationship('n1'));
    assert.equal(ask('n2', { resource: 'serviceaccounts', subresource: 'token', verb: 'create', name: 'mover-sa' }).decision, 'allow');
    assert.equal(ask('n1', { resource: 'pods', name: 'mover' }).decision, 'noOpinion');
  });

  test('a claim status written later, volumes and attachments follow their updates', async () => {
    const pods = registry.store('pods');
    await pods.create(ctx, 'default', podBody('dra', 'n1', { resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: 'gpu-template' }] }));
    await eventually(() => ask('n1', { resource: 'pods', name: 'dra' }).decision, (d) => d === 'allow', 'the claiming pod');
    const claim = { apiGroup: 'resource.k8s.io', resource: 'resourceclaims', name: 'dra-gpu-x1' };
    assert.equal(ask('n1', claim).decision, 'noOpinion');
    await pods.update({ ...ctx, subresource: 'status' }, 'default', 'dra', {
      build: (o) => ({ ...o!, status: { ...(o!.status as Obj), resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: 'dra-gpu-x1' }] } }),
    });
    await eventually(() => ask('n1', claim).decision, (d) => d === 'allow', 'the claim the status names');

    const pvs = registry.store('persistentvolumes');
    await pvs.update(ctx, '', 'pv2', { build: (o) => ({ ...o!, spec: { ...(o!.spec as Obj), claimRef: { namespace: 'default', name: 'pvc1' } } }) });
    await eventually(() => ask('n1', { resource: 'secrets', name: 'pv2-s' }).decision, (d) => d === 'allow', 'the rebound volume');
    assert.equal(ask('n1', { resource: 'persistentvolumes', namespace: '', name: 'pv2' }).decision, 'allow');
    await pvs.delete(ctx, '', 'pv2', parseDeleteOptions(new URLSearchParams(), undefined));
    await eventually(() => ask('n1', { resource: 'secrets', name: 'pv2-s' }).decision, (d) => d === 'noOpinion', 'the deleted volume');

    const vas = registry.store('volumeattachments', 'storage.k8s.io');
    await vas.delete(ctx, '', 'va1', parseDeleteOptions(new URLSearchParams(), undefined));
    const va = { apiGroup: 'storage.k8s.io', resource: 'volumeattachments', namespace: '', name: 'va1' };
    await eventually(() => ask('n1', va).decision, (d) => d === 'noOpinion', 'the deleted attachment');
  });
});

describe('the populator', () => {
  /** A source the test drives by hand. */
  const source = () => {
    const handlers: InformerHandlers[] = [];
    return { on: (h: InformerHandlers) => void handlers.push(h), emit: (f: (h: InformerHandlers) => void) => handlers.forEach(f) };
  };
  const stored = (obj: Obj, rv: number) => ({ ...obj, metadata: { uid: 'u1', ...obj.metadata, resourceVersion: String(rv) } }) as StoredKubeObject;
  const ask = (authz: NodeAuthorizer, r: Partial<RequestInfo>) => authz.authorize({ user: node('n1'), request: req(r) }).decision;

  test('rebuilds a pod on new ephemeral containers and claim statuses, and skips other updates as upstream', () => {
    const graph = new NodeGraph();
    const pods = source();
    populateNodeGraph(graph, { pods });
    const authz = new NodeAuthorizer(graph);
    const base = {
      metadata: { namespace: 'default', name: 'p' },
      spec: { nodeName: 'n1', containers: [{ name: 'c' }], resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: 'gpu-template' }, { name: 'fixed', resourceClaimName: 'shared-claim' }] },
    };
    const v1 = stored(base, 1);
    pods.emit((h) => h.added!(v1));
    assert.equal(ask(authz, { apiGroup: 'resource.k8s.io', resource: 'resourceclaims', name: 'shared-claim' }), 'allow');
    // A template's claim is known once the status names it.
    assert.equal(ask(authz, { apiGroup: 'resource.k8s.io', resource: 'resourceclaims', name: 'p-gpu-abc' }), 'noOpinion');
    const v2 = stored({ ...base, status: { resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: 'p-gpu-abc' }] } }, 2);
    pods.emit((h) => h.updated!(v2, v1));
    assert.equal(ask(authz, { apiGroup: 'resource.k8s.io', resource: 'resourceclaims', name: 'p-gpu-abc' }), 'allow');

    const debug = { name: 'debug', image: 'busybox', targetContainerName: 'c', envFrom: [{ secretRef: { name: 'debug-s' } }] };
    const v3 = stored({ ...base, spec: { ...base.spec, ephemeralContainers: [debug] }, status: v2.status as Obj }, 3);
    pods.emit((h) => h.updated!(v3, v2));
    assert.equal(ask(authz, { resource: 'secrets', name: 'debug-s' }), 'allow');

    // Other spec changes of a bound pod are not followed (upstream holds them immutable).
    const v4 = stored({ ...v3, spec: { ...(v3.spec as Obj), volumes: [{ name: 'v', secret: { secretName: 'late-s' } }] } }, 4);
    pods.emit((h) => h.updated!(v4, v3));
    assert.equal(ask(authz, { resource: 'secrets', name: 'late-s' }), 'noOpinion');
    // The extended resource claim in the status.
    const v5 = stored({ ...v4, status: { ...(v3.status as Obj), extendedResourceClaimStatus: { resourceClaimName: 'p-extended', requestMappings: [] } } }, 5);
    pods.emit((h) => h.updated!(v5, v4));
    assert.equal(ask(authz, { apiGroup: 'resource.k8s.io', resource: 'resourceclaims', name: 'p-extended' }), 'allow');
    assert.equal(ask(authz, { resource: 'secrets', name: 'late-s' }), 'allow', 'a rebuild reads the whole pod');
    pods.emit((h) => h.deleted!(v5));
    assert.equal(graph.size, 0, 'nothing is left once the only pod goes');
  });

  test('volume attachments move with spec.nodeName; slices are related by theirs', () => {
    const graph = new NodeGraph();
    const pods = source();
    const volumeAttachments = source();
    const resourceSlices = source();
    populateNodeGraph(graph, { pods, volumeAttachments, resourceSlices });
    const authz = new NodeAuthorizer(graph);
    const va = (nodeName: string, rv: number) => stored({ metadata: { name: 'va' }, spec: { nodeName } }, rv);
    const vaRequest = { apiGroup: 'storage.k8s.io', resource: 'volumeattachments', namespace: '', name: 'va' };
    volumeAttachments.emit((h) => h.added!(va('n1', 1)));
    assert.equal(ask(authz, vaRequest), 'allow');
    volumeAttachments.emit((h) => h.updated!(va('n2', 2), va('n1', 1)));
    assert.equal(ask(authz, vaRequest), 'noOpinion');
    const slice = stored({ metadata: { name: 'slice' }, spec: { nodeName: 'n1' } }, 3);
    resourceSlices.emit((h) => h.added!(slice));
    for (const verb of ['get', 'update', 'delete']) assert.equal(ask(authz, { apiGroup: 'resource.k8s.io', resource: 'resourceslices', namespace: '', verb, name: 'slice' }), 'allow');
    resourceSlices.emit((h) => h.deleted!(slice));
    assert.equal(ask(authz, { apiGroup: 'resource.k8s.io', resource: 'resourceslices', namespace: '', name: 'slice' }), 'noOpinion');
  });
});

describe('over HTTP, with a kubelet certificate for system:node:n1', () => {
  let srv: Awaited<ReturnType<typeof startTestServer>>;
  let work: string;
  let admin: ReturnType<typeof client>;
  let kubelet: ReturnType<typeof client>;
  let kubelet2: ReturnType<typeof client>;
  const secret = (name: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name }, stringData: { k: 'v' } });
  const pod = (name: string, nodeName: string, secretName: string) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { nodeName, containers: [{ name: 'c', image: 'busybox' }], volumes: [{ name: 'v', secret: { secretName } }] },
  });
  const forbidden = (verb: string, name: string, reason: string) =>
    `secrets${name ? ` "${name}"` : ''} is forbidden: User "system:node:n1" cannot ${verb} resource "secrets" in API group "" in the namespace "default": ${reason}`;
  const status = (r: Reply) => r.status;

  before(async () => {
    srv = await startTestServer(['--authorization-mode=Node']);
    work = await mkdtemp(path.join(tmpdir(), 'pgkube-node-authz-'));
    admin = client(srv.url, srv.adminAgent);
    kubelet = client(srv.url, await userAgent(srv, work, 'system:node:n1', ['system:nodes']));
    kubelet2 = client(srv.url, await userAgent(srv, work, 'system:node:n2', ['system:nodes']));
    for (const name of ['mine', 'theirs', 'later']) {
      const r = await admin.post('/api/v1/namespaces/default/secrets', secret(name));
      assert.equal(r.status, 201, r.text);
    }
    const p = await admin.post('/api/v1/namespaces/default/pods', pod('p', 'n1', 'mine'));
    assert.equal(p.status, 201, p.text);
  });
  after(async () => {
    await srv.stop();
    await rm(work, { recursive: true, force: true });
  });

  test('the kubelet reads the secret of its pod and is refused another, with upstream message', async () => {
    await eventually(() => kubelet.get('/api/v1/namespaces/default/secrets/mine'), (r) => r.status === 200, 'the informer sees the pod');
    const theirs = await kubelet.get('/api/v1/namespaces/default/secrets/theirs');
    assert.equal(theirs.status, 403, theirs.text);
    assert.equal(theirs.json.reason, 'Forbidden');
    assert.equal(theirs.json.message, forbidden('get', 'theirs', "no relationship found between node 'n1' and this object"));
    const all = await kubelet.get('/api/v1/namespaces/default/secrets');
    assert.equal(all.status, 403, all.text);
    assert.equal(all.json.message, forbidden('list', '', 'No Object name found'));
    const byName = await kubelet.get('/api/v1/namespaces/default/secrets?fieldSelector=metadata.name%3Dmine');
    assert.equal(byName.status, 200, byName.text);
    assert.deepEqual(byName.json.items.map((s: Obj) => s.metadata.name), ['mine']);
    const put = await kubelet.put('/api/v1/namespaces/default/secrets/mine', secret('mine'));
    assert.equal(put.status, 403, put.text);
    assert.equal(put.json.message, forbidden('update', 'mine', 'can only read resources of this type'));
  });

  test('its own Node only, and the node rules', async () => {
    const own = await kubelet.get('/api/v1/nodes/n1');
    assert.equal(own.status, 404, own.text);
    const other = await kubelet.get('/api/v1/nodes/n2');
    assert.equal(other.status, 403, other.text);
    assert.equal(other.json.message, `nodes "n2" is forbidden: User "system:node:n1" cannot get resource "nodes" in API group "" at the cluster scope: node 'n1' cannot read 'n2', only its own Node object`);
    const drivers = await kubelet.get('/apis/storage.k8s.io/v1/csidrivers');
    assert.equal(drivers.status, 200, drivers.text);
  });

  test('the kubelet lists and watches the pods bound to it through a spec.nodeName field selector only', async () => {
    const mine = await kubelet.get('/api/v1/pods?fieldSelector=spec.nodeName%3Dn1');
    assert.equal(mine.status, 200, mine.text);
    const watch = await kubelet.get('/api/v1/pods?watch=true&timeoutSeconds=1&fieldSelector=spec.nodeName%3Dn1');
    assert.equal(watch.status, 200, watch.text);
    const all = await kubelet.get('/api/v1/pods');
    assert.equal(all.status, 403, all.text);
    const theirs = await kubelet.get('/api/v1/pods?fieldSelector=spec.nodeName%3Dn2');
    assert.equal(theirs.status, 403, theirs.text);
  });

  test('a deleted pod, and a pod of that name bound elsewhere, change what each kubelet reads', async () => {
    await eventually(() => kubelet.get('/api/v1/namespaces/default/secrets/mine'), (r) => r.status === 200, 'the pod is seen');
    const del = await admin.delete('/api/v1/namespaces/default/pods/p?gracePeriodSeconds=0');
    assert.equal(del.status, 200, del.text);
    const refused = await eventually(() => kubelet.get('/api/v1/namespaces/default/secrets/mine'), (r) => r.status === 403, 'the deletion is seen');
    assert.equal(refused.json.message, forbidden('get', 'mine', "no relationship found between node 'n1' and this object"));

    const moved = await admin.post('/api/v1/namespaces/default/pods', pod('p', 'n2', 'mine'));
    assert.equal(moved.status, 201, moved.text);
    await eventually(() => kubelet2.get('/api/v1/namespaces/default/secrets/mine'), (r) => r.status === 200, 'n2 sees the new pod');
    assert.equal(status(await kubelet.get('/api/v1/namespaces/default/secrets/mine')), 403);

    const q = await admin.post('/api/v1/namespaces/default/pods', pod('q', 'n1', 'later'));
    assert.equal(q.status, 201, q.text);
    await eventually(() => kubelet.get('/api/v1/namespaces/default/secrets/later'), (r) => r.status === 200, 'n1 sees its new pod');
    assert.equal(status(await kubelet2.get('/api/v1/namespaces/default/secrets/later')), 403);
  });
});
