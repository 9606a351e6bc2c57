import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { pods } from '../../src/kinds/pod.ts';
import { parseDeleteOptions } from '../../src/registry/delete-options.ts';
import { parseListQuery } from '../../src/registry/list-options.ts';
import { openTestRegistry, testContext, type TestRegistry } from '../helpers/registry.ts';
import { runKindSuite } from './kind-suite.ts';

const pod = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Pod', spec: { containers: [{ name: 'app', image: 'nginx:1.27' }], ...spec }, ...extra });
const ctr = (fields: Record<string, unknown>) => ({ containers: [{ name: 'app', image: 'nginx:1.27', ...fields }] });

// Expectations from upstream's ValidatePodCreate/ValidatePodSpec/ValidatePodUpdate, the v1 defaults and printPod (1.34).
runKindSuite({
  kind: pods,
  valid: [
    { name: 'one container', object: pod({}) },
    {
      name: 'ports, env, mounts, resources, init and sidecar containers',
      object: pod({
        initContainers: [{ name: 'setup', image: 'busybox' }, { name: 'proxy', image: 'envoy', restartPolicy: 'Always' }],
        containers: [
          {
            name: 'app',
            image: 'registry.example.com/app@sha256:0123',
            ports: [{ name: 'http', containerPort: 8080 }, { containerPort: 9090, protocol: 'UDP' }],
            env: [{ name: 'MODE', value: 'prod' }, { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }, { name: 'KEY', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }],
            envFrom: [{ configMapRef: { name: 'settings' } }],
            volumeMounts: [{ name: 'data', mountPath: '/data' }, { name: 'config', mountPath: '/etc/config', readOnly: true }],
            resources: { requests: { cpu: '100m' }, limits: { cpu: '1', memory: '256Mi' } },
          },
        ],
        volumes: [{ name: 'data', emptyDir: {} }, { name: 'config', configMap: { name: 'settings', items: [{ key: 'a', path: 'a.conf' }] } }],
        tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }],
        nodeSelector: { disk: 'ssd' },
        serviceAccountName: 'robot',
      }),
    },
    {
      name: 'every volume source of the reference table',
      object: pod({
        volumes: [
          { name: 'a', configMap: { name: 'c' } },
          { name: 'b', secret: { secretName: 's', defaultMode: 0o400 } },
          { name: 'c', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
          { name: 'd', projected: { sources: [{ serviceAccountToken: { path: 'token', audience: 'vault', expirationSeconds: 600 } }, { configMap: { name: 'c', items: [{ key: 'k', path: 'k' }] } }] } },
          { name: 'e', hostPath: { path: '/var/log', type: 'Directory' } },
          { name: 'f', image: { reference: 'quay.io/data:v1' } },
          { name: 'g', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } } },
          { name: 'h', csi: { driver: 'inline.csi.example.com' } },
          { name: 'i', iscsi: { targetPortal: '10.0.0.1:3260', iqn: 'iqn.2001-04.com.example:storage', lun: 0 } },
          { name: 'j', fc: { targetWWNs: ['500a0982991b8dc5'], lun: 2 } },
          { name: 'k', persistentVolumeClaim: { claimName: 'claim' } },
          { name: 'l', nfs: { server: 'nfs', path: '/exports' } },
        ],
      }),
    },
  ],
  invalid: [
    {
      name: 'no containers; bad policies',
      object: { apiVersion: 'v1', kind: 'Pod', spec: { containers: [], restartPolicy: 'Sometimes', dnsPolicy: 'Magic' } },
      errors: [
        { field: 'spec.containers', message: 'Required value' },
        { field: 'spec.restartPolicy', message: 'Unsupported value: "Sometimes": supported values: "Always", "Never", "OnFailure"' },
        { field: 'spec.dnsPolicy', message: 'Unsupported value: "Magic": supported values: "ClusterFirst", "ClusterFirstWithHostNet", "Default", "None"' },
      ],
    },
    {
      name: 'containers: names, images, duplicates',
      object: pod({ containers: [{ name: 'App_1', image: 'x' }, { name: 'web' }, { name: 'web', image: 'y' }] }),
      errors: [
        { field: 'spec.containers[0].name', message: `Invalid value: "App_1": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')` },
        { field: 'spec.containers[1].image', message: 'Required value' },
        { field: 'spec.containers[2].name', message: 'Duplicate value: "web"' },
      ],
    },
    {
      name: 'ports: numbers, names, protocols',
      object: pod(ctr({ ports: [{ containerPort: 70000, protocol: 'ICMP' }, { name: 'http', containerPort: 80 }, { name: 'http', containerPort: 81 }, { containerPort: 0 }] })),
      errors: [
        { field: 'spec.containers[0].ports[0].containerPort', message: 'Invalid value: 70000: must be between 1 and 65535, inclusive' },
        { field: 'spec.containers[0].ports[0].protocol', message: 'Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"' },
        { field: 'spec.containers[0].ports[2].name', message: 'Duplicate value: "http"' },
        { field: 'spec.containers[0].ports[3].containerPort', message: 'Required value' },
      ],
    },
    {
      name: 'env: names and value sources',
      object: pod(ctr({ env: [{ name: 'A=B' }, { name: 'X', value: 'v', valueFrom: { configMapKeyRef: { name: 'c', key: 'k' } } }, { name: 'Y', valueFrom: {} }, { name: 'Z', valueFrom: { fieldRef: { fieldPath: 'spec.secret' } } }] })),
      errors: [
        { field: 'spec.containers[0].env[0].name', message: `Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters other than '='` },
        { field: 'spec.containers[0].env[1].valueFrom', message: 'Invalid value: "": may not be specified when `value` is not empty' },
        { field: 'spec.containers[0].env[2].valueFrom', message: 'Invalid value: "": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`' },
        { field: 'spec.containers[0].env[3].valueFrom.fieldRef.fieldPath', message: 'Unsupported value: "spec.secret": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"' },
      ],
    },
    {
      name: 'volumes: two sources, no name, unknown mount, requests above limits',
      object: pod({ containers: [{ name: 'app', image: 'x', volumeMounts: [{ name: 'missing', mountPath: '/m' }], resources: { requests: { cpu: '2' }, limits: { cpu: '1' } } }], volumes: [{ name: 'v', emptyDir: {}, hostPath: { path: '/x' } }, { configMap: { name: 'c' } }] }),
      errors: [
        { field: 'spec.volumes[0].hostPath', message: 'Forbidden: may not specify more than 1 volume type' },
        { field: 'spec.volumes[1].name', message: 'Required value' },
        { field: 'spec.containers[0].volumeMounts[0].name', message: 'Not found: "missing"' },
        { field: 'spec.containers[0].resources.requests', message: 'Invalid value: "2": must be less than or equal to cpu limit of 1' },
      ],
    },
    {
      name: 'volume source rules: modes, item paths, token lifetimes',
      object: pod({ volumes: [{ name: 'a', secret: { secretName: 's', defaultMode: 0o1000, items: [{ key: 'k', path: '../escape' }] } }, { name: 'b', projected: { sources: [{ serviceAccountToken: { path: 't', expirationSeconds: 60 } }] } }] }),
      errors: [
        { field: 'spec.volumes[0].secret.defaultMode', message: 'Invalid value: 512: must be a number between 0 and 0777 (octal), both inclusive' },
        { field: 'spec.volumes[0].secret.items[0].path', message: `Invalid value: "../escape": must not contain '..'` },
        { field: 'spec.volumes[1].projected.sources[0].serviceAccountToken.expirationSeconds', message: 'Invalid value: 60: may not specify a duration less than 10 minutes' },
      ],
    },
  ],
  updates: [
    { name: 'the image may change', object: pod({}), change: (o) => ({ ...o, spec: { ...(o.spec as object), containers: [{ ...(o.spec as { containers: object[] }).containers[0], image: 'nginx:1.28' }] } }), expect: (o) => assert.equal((o.spec as { containers: { image: string }[] }).containers[0]!.image, 'nginx:1.28') },
    {
      name: 'other spec fields may not',
      object: pod({}),
      change: (o) => ({ ...o, spec: { ...(o.spec as object), restartPolicy: 'Never' } }),
      errors: [{ field: 'spec', message: 'Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n-\trestartPolicy: "Always"\n+\trestartPolicy: "Never"' }],
    },
    { name: 'containers may not be added', object: pod({}), change: (o) => ({ ...o, spec: { ...(o.spec as object), containers: [...(o.spec as { containers: object[] }).containers, { name: 'b', image: 'x' }] } }), errors: [{ field: 'spec.containers', message: 'Forbidden: pod updates may not add or remove containers' }] },
    { name: 'the deadline may only shrink', object: pod({ activeDeadlineSeconds: 100 }), change: (o) => ({ ...o, spec: { ...(o.spec as object), activeDeadlineSeconds: 200 } }), errors: [{ field: 'spec.activeDeadlineSeconds', message: 'Invalid value: 200: must be less than or equal to previous value' }] },
  ],
  defaults: [
    {
      name: 'spec, container and volume defaults; Pending with a QoS class',
      object: pod({ containers: [{ name: 'app', image: 'nginx', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1', memory: '1Gi' } } }], volumes: [{ name: 's', secret: { secretName: 's' } }, { name: 'e' }] }),
      expect: (o) => {
        const spec = o.spec as Record<string, any>;
        assert.equal(spec.restartPolicy, 'Always');
        assert.equal(spec.dnsPolicy, 'ClusterFirst');
        assert.equal(spec.schedulerName, 'default-scheduler');
        assert.equal(spec.terminationGracePeriodSeconds, 30);
        assert.equal(spec.enableServiceLinks, true);
        assert.deepEqual(spec.securityContext, {});
        const c = spec.containers[0];
        assert.equal(c.imagePullPolicy, 'Always');
        assert.equal(c.terminationMessagePath, '/dev/termination-log');
        assert.equal(c.terminationMessagePolicy, 'File');
        assert.equal(c.ports[0].protocol, 'TCP');
        assert.deepEqual(c.resources.requests, { cpu: '1', memory: '1Gi' });
        assert.equal(spec.volumes[0].secret.defaultMode, 420);
        assert.deepEqual(spec.volumes[1].emptyDir, {});
        assert.deepEqual(o.status, { phase: 'Pending', qosClass: 'Guaranteed' });
      },
    },
    { name: 'a tagged image pulls IfNotPresent; no resources is BestEffort', object: pod({}), expect: (o) => { assert.equal((o.spec as any).containers[0].imagePullPolicy, 'IfNotPresent'); assert.equal((o.status as any).qosClass, 'BestEffort'); } },
  ],
  columns: [{ name: 'a new pod', object: pod({}), cells: ['0/1', 'Pending', '0', '<none>', '<none>', '<none>', '<none>'] }],
});

describe('pod deletion and field selectors', () => {
  let registry: TestRegistry;
  before(async () => {
    registry = await openTestRegistry();
  });
  after(async () => {
    await registry.close();
  });
  const body = (name: string, spec: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'app', image: 'nginx:1.27' }], ...spec } });

  test('an unscheduled pod goes at once; a scheduled one waits out its grace period', async () => {
    const store = registry.store('pods');
    await store.create(testContext(), 'default', body('unscheduled'));
    await store.create(testContext(), 'default', body('scheduled', { nodeName: 'node-1' }));
    assert.equal((await store.delete(testContext(), 'default', 'unscheduled', parseDeleteOptions(new URLSearchParams(), undefined))).gone, true);
    const outcome = await store.delete(testContext(), 'default', 'scheduled', parseDeleteOptions(new URLSearchParams(), undefined));
    assert.equal(outcome.gone, false);
    assert.equal(outcome.object.object.metadata.deletionGracePeriodSeconds, 30);
    assert.ok(outcome.object.object.metadata.deletionTimestamp);
  });

  test('spec.nodeName, status.phase and spec.hostNetwork select pods', async () => {
    const store = registry.store('pods');
    await store.create(testContext(), 'default', body('on-a', { nodeName: 'a' }));
    await store.create(testContext(), 'default', body('host', { nodeName: 'b', hostNetwork: true }));
    const names = async (selector: string) => (await store.list(testContext(), 'default', parseListQuery(new URLSearchParams({ fieldSelector: selector })))).items.map((t) => JSON.parse(t).metadata.name).sort();
    assert.deepEqual(await names('spec.nodeName=a'), ['on-a']);
    // The terminating pod of the test before is still there, unscheduled by no kubelet.
    assert.deepEqual(await names('spec.hostNetwork=false,status.phase=Pending'), ['on-a', 'scheduled']);
    assert.deepEqual(await names('spec.hostNetwork=true'), ['host']);
  });
});
