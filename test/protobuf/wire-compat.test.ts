import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeProtobufObject, encodeProtobufObject } from '../../src/codecs/protobuf/index.ts';
import { concat, configMap, envelope, goEncode, hex, MAGIC, pbType } from './helpers.ts';

/** ObjectMeta as a Go client writes it: every non-pointer field, zero values included. */
function goObjectMeta(name: string): Record<string, unknown> {
  return {
    name,
    generateName: '',
    namespace: '',
    selfLink: '',
    uid: '',
    resourceVersion: '',
    generation: 0,
    creationTimestamp: {}, // the zero metav1.Time marshals as an empty message
  };
}

describe('protobuf wire compatibility', () => {
  test('the envelope is the magic, then Unknown{typeMeta, raw, contentEncoding: "", contentType: ""}', () => {
    const bytes = encodeProtobufObject({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'x' }, data: { a: 'b' } });
    assert.equal(
      hex(bytes),
      [
        '6b387300', // magic
        '0a0f', '0a027631', '1209436f6e6669674d6170', // typeMeta {apiVersion: "v1", kind: "ConfigMap"}
        '120d', // raw, 13 bytes:
        '0a03', '0a0178', //   metadata {name: "x"}
        '1206', '0a0161', '120162', //   data {a: "b"}
        '1a00', // contentEncoding ""
        '2200', // contentType ""
      ].join(''),
    );
  });

  test('protobufjs reads our envelope and object with the upstream descriptors', () => {
    const bytes = encodeProtobufObject(
      configMap('settings', { metadata: { name: 'settings', namespace: 'default', labels: { app: 'web' }, creationTimestamp: '2024-01-02T03:04:05Z' }, data: { a: 'b' }, binaryData: { bin: 'AAEC' } }),
    );
    assert.deepEqual(Uint8Array.from(bytes.subarray(0, 4)), MAGIC);
    const Unknown = pbType('k8s.io.apimachinery.pkg.runtime.Unknown');
    const unknown = Unknown.toObject(Unknown.decode(bytes.subarray(4)), { defaults: false, bytes: Array }) as Record<string, unknown>;
    assert.deepEqual(unknown.typeMeta, { apiVersion: 'v1', kind: 'ConfigMap' });
    assert.equal(unknown.contentEncoding, '');
    assert.equal(unknown.contentType, '');
    const ConfigMap = pbType('k8s.io.api.core.v1.ConfigMap');
    const cm = ConfigMap.toObject(ConfigMap.decode(Uint8Array.from(unknown.raw as number[])), { longs: Number, bytes: Array });
    assert.deepEqual(cm.metadata.labels, { app: 'web' });
    assert.deepEqual(cm.metadata.creationTimestamp, { seconds: Date.UTC(2024, 0, 2, 3, 4, 5) / 1000, nanos: 0 });
    assert.deepEqual(cm.data, { a: 'b' });
    assert.deepEqual(cm.binaryData, { bin: [0, 1, 2] });
  });

  test('a ConfigMap as kubectl create configmap sends it decodes to the JSON the real server sees', () => {
    const raw = goEncode('k8s.io.api.core.v1.ConfigMap', { metadata: goObjectMeta('x'), data: { a: 'b' } });
    const decoded = decodeProtobufObject(envelope('v1', 'ConfigMap', raw));
    assert.equal(decoded.apiVersion, 'v1');
    assert.equal(decoded.kind, 'ConfigMap');
    assert.deepEqual(decoded.object, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'x' }, data: { a: 'b' } });
  });

  test('Go zero values: empty strings and value-typed zeros drop, pointer zeros stay', () => {
    const container = {
      name: 'web',
      image: 'nginx',
      workingDir: '',
      resources: {},
      terminationMessagePath: '',
      terminationMessagePolicy: '',
      imagePullPolicy: '',
      stdin: false,
      stdinOnce: false,
      tty: false,
    };
    const deployment = goEncode('k8s.io.api.apps.v1.Deployment', {
      metadata: goObjectMeta('web'),
      spec: {
        replicas: 0, // *int32 set to 0 by --replicas=0
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { ...goObjectMeta(''), labels: { app: 'web' } },
          spec: {
            containers: [container],
            restartPolicy: '',
            dnsPolicy: '',
            serviceAccountName: '',
            nodeName: '',
            hostNetwork: false,
            hostPID: false,
            hostIPC: false,
            hostname: '',
            subdomain: '',
            schedulerName: '',
            priorityClassName: '',
          },
        },
        strategy: { type: '' },
        minReadySeconds: 0,
        paused: false,
      },
      status: { observedGeneration: 0, replicas: 0, updatedReplicas: 0, readyReplicas: 0, availableReplicas: 0, unavailableReplicas: 0 },
    });
    const { object } = decodeProtobufObject(envelope('apps/v1', 'Deployment', deployment));
    assert.deepEqual(object, {
      kind: 'Deployment',
      apiVersion: 'apps/v1',
      metadata: { name: 'web' },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx', resources: {} }] } },
        strategy: {},
      },
      status: {},
    });
  });

  test('DeleteOptions from a Go client keeps gracePeriodSeconds: 0 and orphanDependents: false', () => {
    const raw = goEncode('k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions', { gracePeriodSeconds: 0, orphanDependents: false, propagationPolicy: 'Background' });
    const { object } = decodeProtobufObject(envelope('apps/v1', 'DeleteOptions', raw));
    assert.deepEqual(object, { kind: 'DeleteOptions', apiVersion: 'apps/v1', gracePeriodSeconds: 0, orphanDependents: false, propagationPolicy: 'Background' });
  });

  test('IntOrString written by Go (all three fields) decodes to a number or a string', () => {
    const raw = goEncode('k8s.io.api.core.v1.Service', {
      metadata: goObjectMeta('svc'),
      spec: {
        ports: [
          { name: 'http', protocol: 'TCP', port: 80, targetPort: { type: 1, intVal: 0, strVal: 'web' }, nodePort: 0 },
          { name: 'metrics', protocol: 'TCP', port: 9090, targetPort: { type: 0, intVal: 9091, strVal: '' }, nodePort: 0 },
          { name: 'plain', protocol: 'TCP', port: 81, targetPort: { type: 0, intVal: 0, strVal: '' }, nodePort: 0 },
        ],
      },
    });
    const { object } = decodeProtobufObject(envelope('v1', 'Service', raw));
    assert.deepEqual((object.spec as Record<string, unknown>).ports, [
      { name: 'http', protocol: 'TCP', port: 80, targetPort: 'web' },
      { name: 'metrics', protocol: 'TCP', port: 9090, targetPort: 9091 },
      { name: 'plain', protocol: 'TCP', port: 81 },
    ]);
  });

  test('time nanos written by Go are truncated to seconds (Time) and microseconds (MicroTime)', () => {
    const raw = goEncode('k8s.io.api.coordination.v1.Lease', {
      metadata: { name: 'l', creationTimestamp: { seconds: 1704164645, nanos: 999_999_999 } },
      spec: { renewTime: { seconds: 1704164645, nanos: 123_456_789 } },
    });
    const { object } = decodeProtobufObject(envelope('coordination.k8s.io/v1', 'Lease', raw));
    assert.deepEqual(object.metadata, { name: 'l', creationTimestamp: '2024-01-02T03:04:05Z' });
    assert.deepEqual(object.spec, { renewTime: '2024-01-02T03:04:05.123456Z' });
  });

  test('int64 from protobufjs (Long on the wire) comes out as a JSON number', () => {
    const raw = goEncode('k8s.io.api.core.v1.ConfigMapList', { metadata: { remainingItemCount: 123456789012, resourceVersion: '5' }, items: [] });
    const { object } = decodeProtobufObject(envelope('v1', 'ConfigMapList', raw));
    assert.deepEqual(object, { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { remainingItemCount: 123456789012, resourceVersion: '5' }, items: [] });
  });

  test('packed repeated scalars are accepted', () => {
    // PodSecurityContext.supplementalGroups (field 4, int64), written packed.
    const psc = concat(Uint8Array.from([0x22, 0x03, 0x01, 0x02, 0x03]));
    const podSpec = concat(Uint8Array.from([0x72, psc.length]), psc); // PodSpec.securityContext = 14
    const pod = concat(Uint8Array.from([0x12, podSpec.length]), podSpec); // Pod.spec = 2
    const { object } = decodeProtobufObject(envelope('v1', 'Pod', pod));
    assert.deepEqual(object.spec, { securityContext: { supplementalGroups: [1, 2, 3] } });
  });

  test('unknown fields are skipped', () => {
    const raw = concat(goEncode('k8s.io.api.core.v1.ConfigMap', { data: { a: 'b' } }), Uint8Array.from([0xf8, 0x07, 0x01, 0xfa, 0x07, 0x01, 0x00]));
    assert.deepEqual(decodeProtobufObject(envelope('v1', 'ConfigMap', raw)).object, { kind: 'ConfigMap', apiVersion: 'v1', metadata: {}, data: { a: 'b' } });
  });

  test('an empty envelope kind is filled from the expected type, as upstream does', () => {
    const raw = goEncode('k8s.io.api.core.v1.ConfigMap', { metadata: { name: 'x' } });
    const { kind, apiVersion } = decodeProtobufObject(envelope('', '', raw), { expect: { apiVersion: 'v1', kind: 'ConfigMap' } });
    assert.deepEqual([apiVersion, kind], ['v1', 'ConfigMap']);
  });
});

describe('user extras (ExtraValue) are lists of strings in JSON', () => {
  const extra = { 'scopes.example.com/a': ['read', 'write'], 'authentication.kubernetes.io/credential-id': ['JTI=1'] };

  test('a SubjectAccessReview as a Go client writes it decodes with its extras as lists', () => {
    const raw = goEncode('k8s.io.api.authorization.v1.SubjectAccessReview', {
      metadata: goObjectMeta(''),
      spec: { user: 'u', groups: ['g'], extra: { 'scopes.example.com/a': { items: ['read', 'write'] } }, uid: '' },
    });
    const decoded = decodeProtobufObject(envelope('authorization.k8s.io/v1', 'SubjectAccessReview', raw));
    const spec = (decoded.object as { spec: { extra: unknown } }).spec;
    assert.deepEqual(spec.extra, { 'scopes.example.com/a': ['read', 'write'] });
  });

  for (const [apiVersion, kind, at] of [
    ['authentication.k8s.io/v1', 'SelfSubjectReview', 'status.userInfo'],
    ['authentication.k8s.io/v1', 'TokenReview', 'status.user'],
    ['authorization.k8s.io/v1', 'SubjectAccessReview', 'spec'],
    ['certificates.k8s.io/v1', 'CertificateSigningRequest', 'spec'],
  ] as const) {
    test(`${kind} ${apiVersion}: extras survive JSON → protobuf → JSON and read as ExtraValue{items}`, () => {
      const [outer, inner] = at.split('.');
      const holder = { username: 'u', extra };
      const object: Record<string, unknown> = {
        kind,
        apiVersion,
        metadata: { name: 'x' },
        [outer]: inner ? { [inner]: holder } : { ...holder, request: 'AAEC', signerName: 's' },
      };
      if (kind === 'CertificateSigningRequest') (object.spec as Record<string, unknown>).username = 'u';
      const bytes = encodeProtobufObject(object);
      const back = decodeProtobufObject(bytes).object as Record<string, Record<string, Record<string, unknown>>>;
      const got = inner ? back[outer][inner] : back[outer];
      assert.deepEqual(got.extra, extra);
      // An independent reading of the wire sees ExtraValue messages.
      const Unknown = pbType('k8s.io.apimachinery.pkg.runtime.Unknown');
      const unknown = Unknown.toObject(Unknown.decode(bytes.subarray(4)), { bytes: Array }) as { raw: number[] };
      const [group, version] = apiVersion.split('/');
      const T = pbType(`k8s.io.api.${group.split('.')[0]}.${version}.${kind}`);
      const msg = T.toObject(T.decode(Uint8Array.from(unknown.raw))) as Record<string, Record<string, Record<string, unknown>>>;
      const wire = inner ? msg[outer][inner] : msg[outer];
      assert.deepEqual(wire.extra, { 'scopes.example.com/a': { items: ['read', 'write'] }, 'authentication.kubernetes.io/credential-id': { items: ['JTI=1'] } });
    });
  }
});
