import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RequestContext } from '../../src/api/request-context.ts';
import type { KubeObject } from '../../src/api/types.ts';
import { namespaces } from '../../src/kinds/namespace.ts';
import { pods } from '../../src/kinds/pod.ts';
import { POD_FIELD_GATES } from '../../src/kinds/pod-gated-fields.ts';
import { openTestRegistry, type TestRegistry } from '../helpers/registry.ts';
import { gatedContext } from './gated-context.ts';

// Expectations from upstream's DropDisabledPodFields and its *InUse helpers (pkg/api/pod/util.go),
// with the gates of Kubernetes 1.34: each rule's gate off drops on create, keeps on update what the
// stored pod used, drops on update what it did not; the gate on keeps.

type Obj = Record<string, any>;

/** Every pod gate on, but the ones named off. */
const gates = (off: readonly string[] = []): RequestContext => gatedContext(Object.fromEntries(POD_FIELD_GATES.map((g) => [g, !off.includes(g)])));

const app = { name: 'app', image: 'nginx:1.27' };
const base: Obj = { containers: [app] };
let counter = 0;
const podOf = (spec: Obj): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `gated-${++counter}` }, spec: structuredClone(spec) });
const specOf = (o: KubeObject) => o.spec as Obj;
const statusOf = (o: KubeObject) => (o.status ?? {}) as Obj;
/** An update that changes what a pod update may change (the image), leaving the rest as given. */
const withNewImage = (spec: Obj): Obj => ({ ...structuredClone(spec), containers: (spec.containers as Obj[]).map((c) => ({ ...structuredClone(c), image: 'nginx:1.28' })) });

interface SpecRule {
  readonly gate: string;
  /** A spec that uses the gated field. */
  readonly uses: Obj;
  /** The same spec with the gate's field gone (what a drop leaves); the base spec unless named. */
  readonly plain?: Obj;
  /** The gated field as stored. */
  readonly read: (spec: Obj) => unknown;
  /** What `read` gives once the field was dropped (nothing, unless named). */
  readonly dropped?: unknown;
}

const SPEC_RULES: readonly SpecRule[] = [
  { gate: 'UserNamespacesSupport', uses: { ...base, securityContext: { hostUsers: false } }, read: (s) => s.securityContext?.hostUsers },
  { gate: 'SupplementalGroupsPolicy', uses: { ...base, securityContext: { supplementalGroupsPolicy: 'Strict' } }, read: (s) => s.securityContext?.supplementalGroupsPolicy },
  { gate: 'PodLevelResources', uses: { ...base, resources: { requests: { cpu: '1' }, limits: { cpu: '1' } } }, read: (s) => s.resources?.requests?.cpu },
  {
    gate: 'ProcMountType',
    uses: { containers: [{ ...app, securityContext: { procMount: 'Unmasked' } }] },
    plain: { containers: [{ ...app, securityContext: { procMount: 'Default' } }] },
    read: (s) => s.containers[0].securityContext?.procMount,
    // Forced back to the default, not removed.
    dropped: 'Default',
  },
  {
    gate: 'MatchLabelKeysInPodTopologySpread',
    uses: { ...base, topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'a' } }, matchLabelKeys: ['pod-template-hash'] }] },
    plain: { ...base, topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'a' } } }] },
    read: (s) => s.topologySpreadConstraints?.[0]?.matchLabelKeys,
  },
  {
    gate: 'DynamicResourceAllocation',
    uses: { containers: [{ ...app, resources: { claims: [{ name: 'gpu' }] } }], resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: 'gpu-template' }] },
    plain: { containers: [{ ...app, resources: {} }] },
    read: (s) => s.resourceClaims ?? s.containers[0].resources?.claims,
  },
  {
    gate: 'ClusterTrustBundleProjection',
    uses: { ...base, volumes: [{ name: 'trust', projected: { sources: [{ configMap: { name: 'c' } }, { clusterTrustBundle: { name: 'bundle', path: 'ca.pem' } }] } }] },
    plain: { ...base, volumes: [{ name: 'trust', projected: { sources: [{ configMap: { name: 'c' } }, {}] } }] },
    read: (s) => s.volumes?.[0]?.projected?.sources?.[1]?.clusterTrustBundle,
  },
  {
    gate: 'PodCertificateRequest',
    uses: { ...base, volumes: [{ name: 'creds', projected: { sources: [{ configMap: { name: 'c' } }, { podCertificate: { signerName: 'example.com/signer', keyType: 'ED25519', credentialBundlePath: 'creds.pem' } }] } }] },
    plain: { ...base, volumes: [{ name: 'creds', projected: { sources: [{ configMap: { name: 'c' } }, {}] } }] },
    read: (s) => s.volumes?.[0]?.projected?.sources?.[1]?.podCertificate,
  },
  { gate: 'InPlacePodVerticalScaling', uses: { containers: [{ ...app, resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }] }] }, read: (s) => s.containers[0].resizePolicy },
  {
    gate: 'ContainerRestartRules',
    uses: { ...base, initContainers: [{ name: 'proxy', image: 'envoy', restartPolicy: 'Always', restartPolicyRules: [{ action: 'Restart', exitCodes: { operator: 'In', values: [42] } }] }] },
    // A sidecar's restart policy (SidecarContainers, locked on) stays.
    plain: { ...base, initContainers: [{ name: 'proxy', image: 'envoy', restartPolicy: 'Always' }] },
    read: (s) => s.initContainers[0].restartPolicyRules,
  },
  { gate: 'HostnameOverride', uses: { ...base, hostnameOverride: 'db-0.example.com' }, read: (s) => s.hostnameOverride },
  {
    gate: 'ImageVolume',
    uses: { containers: [{ ...app, volumeMounts: [{ name: 'data', mountPath: '/data' }, { name: 'models', mountPath: '/models' }] }], volumes: [{ name: 'data', emptyDir: {} }, { name: 'models', image: { reference: 'quay.io/models:v1' } }] },
    plain: { containers: [{ ...app, volumeMounts: [{ name: 'data', mountPath: '/data' }] }], volumes: [{ name: 'data', emptyDir: {} }] },
    // The volume and the mounts naming it go together.
    read: (s) => [s.volumes.find((v: Obj) => v.image), s.containers[0].volumeMounts.find((m: Obj) => m.name === 'models')].filter(Boolean).length || undefined,
  },
  { gate: 'SELinuxChangePolicy', uses: { ...base, securityContext: { seLinuxChangePolicy: 'MountOption' } }, read: (s) => s.securityContext?.seLinuxChangePolicy },
  {
    gate: 'ContainerStopSignals',
    uses: { containers: [{ ...app, lifecycle: { stopSignal: 'SIGUSR1' } }] },
    // A lifecycle left empty goes too.
    read: (s) => s.containers[0].lifecycle,
  },
];

/** What the rule's field reads in the spec it is given to use. */
const usedValue = (rule: SpecRule) => rule.read(structuredClone(rule.uses));

describe('Pod: gated spec fields (DropDisabledPodFields)', () => {
  let registry: TestRegistry;
  const store = () => registry.store('pods');
  const create = async (ctx: RequestContext, spec: Obj) => (await store().create(ctx, 'default', podOf(spec))).object;
  const update = async (ctx: RequestContext, name: string, spec: Obj) => (await store().update(ctx, 'default', name, { build: (o) => ({ ...o!, spec: structuredClone(spec) }) })).stored.object;
  before(async () => {
    registry = await openTestRegistry({ kinds: [namespaces, pods] });
  });
  after(async () => {
    await registry.close();
  });

  for (const rule of SPEC_RULES) {
    describe(rule.gate, () => {
      test('with the gate on, a create keeps the field', async () => {
        assert.deepEqual(rule.read(specOf(await create(gates(), rule.uses))), usedValue(rule));
      });
      test('with the gate off, a create drops it', async () => {
        assert.deepEqual(rule.read(specOf(await create(gates([rule.gate]), rule.uses))), rule.dropped);
      });
      test('with the gate off, an update keeps it when the stored pod used it', async () => {
        const stored = await create(gates(), rule.uses);
        const updated = await update(gates([rule.gate]), stored.metadata!.name as string, withNewImage(specOf(stored)));
        assert.equal(specOf(updated).containers[0].image, 'nginx:1.28');
        assert.deepEqual(rule.read(specOf(updated)), usedValue(rule));
      });
      test('with the gate off, an update drops it when the stored pod did not use it', async () => {
        const stored = await create(gates([rule.gate]), rule.plain ?? base);
        const updated = await update(gates([rule.gate]), stored.metadata!.name as string, rule.uses);
        assert.deepEqual(rule.read(specOf(updated)), rule.dropped);
      });
    });
  }

  test('ContainerStopSignals: a lifecycle with a hook keeps the hook', async () => {
    const spec = { containers: [{ ...app, lifecycle: { stopSignal: 'SIGUSR1', preStop: { exec: { command: ['drain'] } } } }] };
    assert.deepEqual(specOf(await create(gates(['ContainerStopSignals']), spec)).containers[0].lifecycle, { preStop: { exec: { command: ['drain'] } } });
  });

  test('ContainerRestartRules: a regular container restart policy is dropped, not refused, while the gate is off', async () => {
    const spec = { containers: [{ ...app, restartPolicy: 'Never' }] };
    assert.equal(specOf(await create(gates(['ContainerRestartRules']), spec)).containers[0].restartPolicy, undefined);
    // An init container keeps only the sidecar policy.
    const init = { ...base, initContainers: [{ name: 'setup', image: 'busybox', restartPolicy: 'Never' }] };
    await assert.rejects(create(gates(), init), /spec\.initContainers\[0\]\.restartPolicy: Unsupported value: "Never"/);
    assert.equal(specOf(await create(gates(['ContainerRestartRules']), init)).initContainers[0].restartPolicy, undefined);
  });

  test('DynamicResourceAllocation: claims are dropped from init containers as well', async () => {
    const spec = { ...base, initContainers: [{ name: 'setup', image: 'busybox', resources: { claims: [{ name: 'gpu' }] } }], resourceClaims: [{ name: 'gpu', resourceClaimName: 'shared' }] };
    const stored = specOf(await create(gates(['DynamicResourceAllocation']), spec));
    assert.equal(stored.initContainers[0].resources.claims, undefined);
    assert.equal(stored.resourceClaims, undefined);
  });

  describe('EnvFiles', () => {
    const fromFile = { containers: [{ ...app, env: [{ name: 'TOKEN', valueFrom: { fileKeyRef: { volumeName: 'config', path: 'vars.env', key: 'TOKEN' } } }] }] };
    const plain = { containers: [{ ...app, env: [{ name: 'TOKEN', value: 'x' }] }] };
    const noSource = /spec\.containers\[0\]\.env\[0\]\.valueFrom: Invalid value: "": must specify one of/;
    const readRef = (o: KubeObject) => specOf(o).containers[0].env[0].valueFrom?.fileKeyRef;

    test('with the gate on, a file reference is a source and is kept', async () => {
      assert.deepEqual(readRef(await create(gates(), fromFile)), fromFile.containers[0]!.env[0]!.valueFrom.fileKeyRef);
    });
    test('with the gate off, a create drops it, and the variable then names no source', async () => {
      await assert.rejects(create(gates(['EnvFiles']), fromFile), noSource);
    });
    test('with the gate off, an update keeps it (and still accepts it) when the stored pod used it', async () => {
      const stored = await create(gates(), fromFile);
      const updated = await update(gates(['EnvFiles']), stored.metadata!.name as string, withNewImage(specOf(stored)));
      assert.deepEqual(readRef(updated), fromFile.containers[0]!.env[0]!.valueFrom.fileKeyRef);
    });
    test('with the gate off, an update drops it when the stored pod did not use it', async () => {
      const stored = await create(gates(['EnvFiles']), plain);
      await assert.rejects(update(gates(['EnvFiles']), stored.metadata!.name as string, fromFile), noSource);
    });
  });
});

interface StatusRule {
  readonly gate: string;
  /** A status that uses the gated field. */
  readonly status: Obj;
  readonly read: (status: Obj) => unknown;
  /** For rules whose use is judged on the spec: a spec that uses the gate. */
  readonly usingSpec?: Obj;
}

const statusEntry = (fields: Obj): Obj => ({ containerStatuses: [{ name: 'app', image: 'nginx:1.27', imageID: '', ready: false, restartCount: 0, ...fields }] });

const STATUS_RULES: readonly StatusRule[] = [
  {
    gate: 'SupplementalGroupsPolicy',
    status: statusEntry({ user: { linux: { uid: 1000, gid: 3000, supplementalGroups: [3000] } } }),
    read: (s) => s.containerStatuses?.[0]?.user,
    usingSpec: { ...base, securityContext: { supplementalGroupsPolicy: 'Merge' } },
  },
  {
    gate: 'InPlacePodVerticalScaling',
    status: statusEntry({ resources: { requests: { cpu: '1' } }, allocatedResources: { cpu: '1' } }),
    read: (s) => [s.containerStatuses?.[0]?.resources, s.containerStatuses?.[0]?.allocatedResources].filter(Boolean).length || undefined,
    usingSpec: { containers: [{ ...app, resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }] }] },
  },
  {
    gate: 'DynamicResourceAllocation',
    status: { resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: 'gated-gpu-1' }] },
    read: (s) => s.resourceClaimStatuses,
    usingSpec: { ...base, resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: 'gpu-template' }] },
  },
  { gate: 'DRAExtendedResource', status: { extendedResourceClaimStatus: { resourceClaimName: 'x', requestMappings: [{ containerName: 'app', resourceName: 'example.com/gpu', requestName: 'r' }] } }, read: (s) => s.extendedResourceClaimStatus },
  {
    gate: 'PodObservedGenerationTracking',
    status: { observedGeneration: 1, conditions: [{ type: 'Ready', status: 'True', observedGeneration: 1 }] },
    read: (s) => [s.observedGeneration, s.conditions?.[0]?.observedGeneration].filter((v) => v !== undefined).length || undefined,
  },
];

describe('Pod: gated status fields (dropDisabledPodStatusFields, through pods/status)', () => {
  let registry: TestRegistry;
  const store = () => registry.store('pods');
  const create = async (ctx: RequestContext, spec: Obj) => (await store().create(ctx, 'default', podOf(spec))).object;
  const writeStatus = async (ctx: RequestContext, name: string, status: Obj) =>
    (await store().update({ ...ctx, subresource: 'status' }, 'default', name, { build: (o) => ({ ...o!, status: { ...statusOf(o!), ...structuredClone(status) } }) })).stored.object;
  before(async () => {
    registry = await openTestRegistry({ kinds: [namespaces, pods] });
  });
  after(async () => {
    await registry.close();
  });

  for (const rule of STATUS_RULES) {
    describe(rule.gate, () => {
      const used = () => rule.read(structuredClone(rule.status));
      test('with the gate on, a status write keeps the field', async () => {
        const pod = await create(gates(), base);
        assert.deepEqual(rule.read(statusOf(await writeStatus(gates(), pod.metadata!.name as string, rule.status))), used());
      });
      test('with the gate off, a status write drops it when the stored pod does not use it', async () => {
        const pod = await create(gates([rule.gate]), base);
        assert.equal(rule.read(statusOf(await writeStatus(gates([rule.gate]), pod.metadata!.name as string, rule.status))), undefined);
      });
      test('with the gate off, a status write keeps it when the stored pod uses it', async () => {
        let pod: KubeObject;
        if (rule.usingSpec) pod = await create(gates(), rule.usingSpec);
        else {
          pod = await create(gates(), base);
          await writeStatus(gates(), pod.metadata!.name as string, rule.status);
        }
        assert.deepEqual(rule.read(statusOf(await writeStatus(gates([rule.gate]), pod.metadata!.name as string, rule.status))), used());
      });
    });
  }

  test('ResourceHealthStatus: with the gate off, device health is dropped even when already stored', async () => {
    const health = statusEntry({ allocatedResourcesStatus: [{ name: 'claim:gpu', resources: [{ resourceID: 'dev-1', health: 'Healthy' }] }] });
    const read = (o: KubeObject) => statusOf(o).containerStatuses?.[0]?.allocatedResourcesStatus;
    const pod = await create(gates(), base);
    const name = pod.metadata!.name as string;
    assert.deepEqual(read(await writeStatus(gates(), name, health)), health.containerStatuses[0]!.allocatedResourcesStatus);
    assert.equal(read(await writeStatus(gates(['ResourceHealthStatus']), name, health)), undefined);
    // A main-resource update drops it from the status it carries over, as upstream's does.
    await writeStatus(gates(), name, health);
    const updated = (await store().update(gates(['ResourceHealthStatus']), 'default', name, { build: (o) => ({ ...o!, metadata: { ...o!.metadata, labels: { touched: 'yes' } } }) })).stored.object;
    assert.equal(read(updated), undefined);
  });

  test('a create starts the status over, whatever the gates', async () => {
    const pod = await store().create(gates(), 'default', { ...podOf(base), status: { observedGeneration: 3, phase: 'Running' } });
    assert.deepEqual(pod.object.status, { phase: 'Pending', qosClass: 'BestEffort' });
  });
});
