import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertRoundTrip, configMap, meta, roundTrip } from './helpers.ts';

describe('protobuf round trip (JSON → protobuf → JSON)', () => {
  test('ConfigMap keeps data, binaryData and immutable', () => {
    assertRoundTrip(
      configMap('settings', {
        data: { 'app.properties': 'a=b\nc=d', empty: '', 'ünïcødé': '✓ 🚀' },
        binaryData: { blob: Buffer.from([0, 1, 2, 253, 254, 255]).toString('base64'), none: '' },
        immutable: false,
      }),
    );
  });

  test('a map key named __proto__ stays an ordinary key', () => {
    const out = roundTrip(configMap('proto', { data: JSON.parse('{"__proto__":"x","a":"b"}') }));
    const data = out.data as Record<string, unknown>;
    assert.deepEqual(Object.keys(data).sort(), ['__proto__', 'a']);
    assert.equal(Object.getPrototypeOf(data), Object.prototype);
  });

  test('Secret keeps base64 data, stringData and type', () => {
    assertRoundTrip({
      kind: 'Secret',
      apiVersion: 'v1',
      metadata: meta('creds'),
      type: 'kubernetes.io/basic-auth',
      data: { username: Buffer.from('admin').toString('base64'), password: Buffer.from('s3cr3t!').toString('base64') },
      stringData: { extra: 'plain' },
      immutable: true,
    });
  });

  test('Namespace keeps spec.finalizers and status', () => {
    assertRoundTrip({
      kind: 'Namespace',
      apiVersion: 'v1',
      metadata: { name: 'team-a', labels: { 'kubernetes.io/metadata.name': 'team-a' } },
      spec: { finalizers: ['kubernetes'] },
      status: {
        phase: 'Terminating',
        conditions: [{ type: 'NamespaceDeletionContentFailure', status: 'False', lastTransitionTime: '2024-01-02T03:04:05Z', reason: 'ContentDeleted', message: 'All content successfully deleted' }],
      },
    });
  });

  test('ObjectMeta keeps labels, annotations, finalizers, ownerReferences and managedFields', () => {
    assertRoundTrip(
      configMap('owned', {
        metadata: {
          name: 'owned',
          generateName: 'owned-',
          namespace: 'default',
          uid: '2b8e4c1d-0000-4000-8000-000000000001',
          resourceVersion: '12345',
          generation: 3,
          creationTimestamp: '2024-01-02T03:04:05Z',
          deletionTimestamp: '2024-01-03T00:00:00Z',
          deletionGracePeriodSeconds: 0,
          labels: { app: 'web', tier: 'frontend' },
          annotations: { 'example.com/note': 'multi\nline', 'example.com/json': '{"a":[1,2]}' },
          finalizers: ['example.com/cleanup', 'kubernetes.io/pv-protection'],
          ownerReferences: [
            { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-abc', uid: 'u-1', controller: true, blockOwnerDeletion: false },
            { apiVersion: 'v1', kind: 'Pod', name: 'other', uid: 'u-2' },
          ],
          managedFields: [
            {
              manager: 'kubectl-client-side-apply',
              operation: 'Update',
              apiVersion: 'v1',
              time: '2024-01-02T03:04:05Z',
              fieldsType: 'FieldsV1',
              fieldsV1: { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } },
            },
            { manager: 'controller', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: {}, subresource: 'status' },
          ],
        },
        data: { a: 'b' },
      }),
    );
  });

  test('Lease keeps MicroTime with six fraction digits and zero counters', () => {
    assertRoundTrip({
      kind: 'Lease',
      apiVersion: 'coordination.k8s.io/v1',
      metadata: meta('kube-scheduler', { namespace: 'kube-system' }),
      spec: {
        holderIdentity: 'node-1_2f1c',
        leaseDurationSeconds: 15,
        acquireTime: '2024-01-02T03:04:05.123456Z',
        renewTime: '2024-01-02T03:04:20.000001Z',
        leaseTransitions: 0,
      },
    });
  });

  test('MicroTime is truncated to microseconds and written in UTC; Time to seconds', () => {
    const out = roundTrip({
      kind: 'Lease',
      apiVersion: 'coordination.k8s.io/v1',
      metadata: meta('l', { creationTimestamp: '2024-01-02T05:04:05.999+02:00' }),
      spec: { renewTime: '2024-01-02T03:04:05.1234567Z', acquireTime: '2024-01-02T03:04:05Z' },
    });
    assert.deepEqual(out.spec, { renewTime: '2024-01-02T03:04:05.123456Z', acquireTime: '2024-01-02T03:04:05.000000Z' });
    assert.equal((out.metadata as Record<string, unknown>).creationTimestamp, '2024-01-02T03:04:05Z');
  });

  test('events.k8s.io/v1 Event keeps eventTime, series and regarding', () => {
    assertRoundTrip({
      kind: 'Event',
      apiVersion: 'events.k8s.io/v1',
      metadata: meta('web.17a2b'),
      eventTime: '2024-01-02T03:04:05.654321Z',
      series: { count: 4, lastObservedTime: '2024-01-02T03:05:00.000000Z' },
      reportingController: 'kubelet',
      reportingInstance: 'node-1',
      action: 'Pulling',
      reason: 'Pulling',
      regarding: { kind: 'Pod', namespace: 'default', name: 'web', uid: 'u-3', apiVersion: 'v1', resourceVersion: '7', fieldPath: 'spec.containers{web}' },
      note: 'Pulling image "nginx"',
      type: 'Normal',
      deprecatedSource: { component: 'kubelet', host: 'node-1' },
      deprecatedFirstTimestamp: '2024-01-02T03:04:05Z',
      deprecatedLastTimestamp: '2024-01-02T03:05:00Z',
      deprecatedCount: 4,
    });
  });

  test('ConfigMapList keeps items and ListMeta (continue, remainingItemCount)', () => {
    assertRoundTrip({
      kind: 'ConfigMapList',
      apiVersion: 'v1',
      metadata: { resourceVersion: '999', continue: 'eyJydiI6OTk5fQ', remainingItemCount: 2 ** 40 },
      items: [
        { metadata: meta('a', { resourceVersion: '10' }), data: { k: 'v' } },
        { metadata: meta('b', { resourceVersion: '11' }) },
      ],
    });
  });

  test('an empty list keeps items: [] and metadata: {}', () => {
    assert.deepEqual(roundTrip({ kind: 'SecretList', apiVersion: 'v1', metadata: {}, items: [] }), {
      kind: 'SecretList',
      apiVersion: 'v1',
      metadata: {},
      items: [],
    });
  });

  test('Status keeps details.causes and code', () => {
    assertRoundTrip({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'ConfigMap "x" is invalid: data[bad key]: Invalid value',
      reason: 'Invalid',
      details: {
        name: 'x',
        kind: 'ConfigMap',
        causes: [
          { reason: 'FieldValueInvalid', message: 'Invalid value: "bad key"', field: 'data[bad key]' },
          { reason: 'FieldValueRequired', message: 'Required value', field: 'metadata.name' },
        ],
        retryAfterSeconds: 3,
      },
      code: 422,
    });
  });

  test('DeleteOptions keeps preconditions, propagationPolicy, dryRun and gracePeriodSeconds: 0', () => {
    assertRoundTrip({
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      gracePeriodSeconds: 0,
      preconditions: { uid: 'u-1', resourceVersion: '42' },
      propagationPolicy: 'Foreground',
      orphanDependents: false,
      dryRun: ['All'],
    });
  });

  test('DeleteOptions under a group apiVersion (as client-go sends it) decodes too', () => {
    assertRoundTrip({ kind: 'DeleteOptions', apiVersion: 'batch/v1', propagationPolicy: 'Background' });
  });

  test('Pod keeps IntOrString ports, inline probe handlers, Quantity resources and pointer zeros', () => {
    assertRoundTrip({
      kind: 'Pod',
      apiVersion: 'v1',
      metadata: meta('web', { labels: { app: 'web' } }),
      spec: {
        terminationGracePeriodSeconds: 0,
        automountServiceAccountToken: false,
        securityContext: { runAsUser: 0, runAsGroup: -5, fsGroup: 2000, runAsNonRoot: false },
        volumes: [
          { name: 'cfg', configMap: { name: 'settings', defaultMode: 420, items: [{ key: 'a', path: 'a.txt' }] } },
          { name: 'scratch', emptyDir: { sizeLimit: '1Gi' } },
        ],
        containers: [
          {
            name: 'web',
            image: 'nginx:1.27',
            command: ['nginx', '-g', 'daemon off;'],
            ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
            env: [
              { name: 'MODE', value: 'prod' },
              { name: 'POD_IP', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'status.podIP' } } },
              { name: 'LIMIT', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } } },
            ],
            resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '250m', memory: '64Mi', 'nvidia.com/gpu': '1' } },
            livenessProbe: { httpGet: { path: '/healthz', port: 8080, scheme: 'HTTP', httpHeaders: [{ name: 'X-Probe', value: '1' }] }, initialDelaySeconds: 5, periodSeconds: 10 },
            readinessProbe: { tcpSocket: { port: 'http' }, failureThreshold: 3 },
            startupProbe: { exec: { command: ['cat', '/tmp/ready'] }, timeoutSeconds: 2 },
            lifecycle: { preStop: { sleep: { seconds: 5 } } },
            securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
            volumeMounts: [{ name: 'cfg', mountPath: '/etc/cfg', readOnly: true }],
          },
        ],
        tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
      },
      status: {
        phase: 'Running',
        podIP: '10.0.0.5',
        startTime: '2024-01-02T03:04:05Z',
        containerStatuses: [{ name: 'web', ready: true, restartCount: 0, image: 'nginx:1.27', imageID: 'sha', started: true, state: { running: { startedAt: '2024-01-02T03:04:06Z' } } }],
      },
    });
  });

  test('Deployment keeps replicas: 0 and IntOrString maxUnavailable: 0 / maxSurge: "25%"', () => {
    assertRoundTrip({
      kind: 'Deployment',
      apiVersion: 'apps/v1',
      metadata: meta('web'),
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: '25%' } },
        revisionHistoryLimit: 0,
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
      },
    });
  });

  test('RawExtension fields carry embedded JSON (ControllerRevision.data)', () => {
    assertRoundTrip({
      kind: 'ControllerRevision',
      apiVersion: 'apps/v1',
      metadata: meta('web-1'),
      data: { spec: { template: { metadata: { labels: { a: 'b' } } } }, list: [1, 'two', null, true] },
      revision: 1,
    });
  });

  test('virtual kinds outside kinds.json resolve by package (Scale, Eviction)', () => {
    assertRoundTrip({ kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: meta('web'), spec: { replicas: 0 }, status: { replicas: 3, selector: 'app=web' } });
    assertRoundTrip({ kind: 'Eviction', apiVersion: 'policy/v1', metadata: meta('web'), deleteOptions: { gracePeriodSeconds: 0 } });
  });

  test('absent and null JSON fields stay unset', () => {
    assert.deepEqual(roundTrip(configMap('x', { data: null, binaryData: undefined })), configMap('x'));
  });

  test('int64 values keep full precision up to 2^53 and negatives', () => {
    const out = roundTrip({
      kind: 'Pod',
      apiVersion: 'v1',
      metadata: meta('big', { generation: Number.MAX_SAFE_INTEGER }),
      spec: { activeDeadlineSeconds: -1, containers: [] },
    });
    assert.equal((out.metadata as Record<string, unknown>).generation, Number.MAX_SAFE_INTEGER);
    assert.equal((out.spec as Record<string, unknown>).activeDeadlineSeconds, -1);
  });
});
