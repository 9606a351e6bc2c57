import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  fieldProblemText,
  findDuplicateFields,
  findFieldProblems,
  findUnknownFields,
  parseFieldValidation,
  removeUnknownFields,
  strictDecodingError,
  strictDecodingMessage,
} from '../../src/registry/field-validation.ts';
import { messageSchema, type ObjectSchema } from '../../src/schema/type-schema.ts';

const CONFIG_MAP = messageSchema('k8s.io.api.core.v1.ConfigMap');
const SECRET = messageSchema('k8s.io.api.core.v1.Secret');
const NAMESPACE = messageSchema('k8s.io.api.core.v1.Namespace');
const LEASE = messageSchema('k8s.io.api.coordination.v1.Lease');
const EVENT = messageSchema('k8s.io.api.events.v1.Event');
const DEPLOYMENT = messageSchema('k8s.io.api.apps.v1.Deployment');

/** A ConfigMap body with the given extra top-level members. */
function configMap(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default', labels: { a: 'b' } },
    data: { key: 'value' }, ...extra };
}

/** The problems of a JSON text as warning texts. */
function problems(message: ObjectSchema, text: string): string[] {
  return findFieldProblems(message, text).map(fieldProblemText);
}

describe('findUnknownFields', () => {
  it('finds nothing in a valid ConfigMap, whatever its map keys', () => {
    const cm = configMap({ binaryData: { 'weird.key/with:chars': 'AAEC' }, immutable: true });
    assert.deepEqual(findUnknownFields(CONFIG_MAP, cm), []);
  });

  it('reports unknown top-level and nested fields with kube-apiserver paths', () => {
    const cm = configMap({ spec: { foo: 1 } });
    (cm.metadata as Record<string, unknown>).unknownMeta = 'x';
    assert.deepEqual(findUnknownFields(CONFIG_MAP, cm), ['metadata.unknownMeta', 'spec']);
  });

  it('accepts apiVersion and kind at the top level even where the message has no TypeMeta', () => {
    assert.deepEqual(findUnknownFields(messageSchema('k8s.io.api.core.v1.PodTemplateSpec'), { apiVersion: 'v1', kind: 'X' }), []);
    assert.deepEqual(findUnknownFields(DEPLOYMENT, { spec: { template: { apiVersion: 'v1' } } }), ['spec.template.apiVersion']);
  });

  it('treats inherited property names as ordinary unknown keys', () => {
    const text = '{"constructor":1,"__proto__":{"x":1},"toString":{},"data":{"constructor":"ok"}}';
    assert.deepEqual(findUnknownFields(CONFIG_MAP, JSON.parse(text)), ['constructor', '__proto__', 'toString']);
    assert.deepEqual(problems(CONFIG_MAP, text),
      ['unknown field "constructor"', 'unknown field "__proto__"', 'unknown field "toString"']);
  });

  it('walks lists of objects and reports the index', () => {
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', ownerReferences: [
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: '1' },
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'p', uid: '2', color: 'red' },
    ] }, stringData: { a: 'b' }, type: 'Opaque', extra: true };
    assert.deepEqual(findUnknownFields(SECRET, secret), ['metadata.ownerReferences[1].color', 'extra']);
  });

  it('checks Lease and Namespace specs', () => {
    const lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l' },
      spec: { holderIdentity: 'me', leaseDurationSeconds: 15, renewTime: '2024-01-01T00:00:00.000000Z', holder: 'x' } };
    assert.deepEqual(findUnknownFields(LEASE, lease), ['spec.holder']);
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' }, spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active', conditions: [{ type: 'X', status: 'True', reasonn: 'typo' }] } };
    assert.deepEqual(findUnknownFields(NAMESPACE, ns), ['status.conditions[0].reasonn']);
  });

  it('checks events.k8s.io Events, including nested references and series', () => {
    // events.k8s.io/v1 calls the text `note`; `message` is the core/v1 name and unknown here.
    const event = { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e', namespace: 'd' },
      eventTime: '2024-01-01T00:00:00.000000Z', reportingController: 'c', reportingInstance: 'i', action: 'A',
      reason: 'R', type: 'Normal', regarding: { kind: 'Pod', name: 'p', namespace: 'd', colour: 1 },
      series: { count: 2, lastObservedTime: '2024-01-01T00:00:00.000000Z', extra: {} }, message: 'm' };
    assert.deepEqual(findUnknownFields(EVENT, event), ['regarding.colour', 'series.extra', 'message']);
  });

  it('accepts anything inside RawExtension and FieldsV1', () => {
    const revision = { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'r', managedFields: [
      { manager: 'm', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:x': {} } } },
    ] }, revision: 1, data: { anything: { goes: [1, 2] } } };
    assert.deepEqual(findUnknownFields(messageSchema('k8s.io.api.apps.v1.ControllerRevision'), revision), []);
  });

  it('follows inline-embedded structs (volumes, probes) like the JSON does', () => {
    const deployment = { spec: { template: { spec: { containers: [{ name: 'c', image: 'i',
      livenessProbe: { httpGet: { path: '/', port: 80 }, periodSeconds: 3, bogus: 1 } }],
    volumes: [{ name: 'v', configMap: { name: 'cm', items: [{ key: 'k', path: 'p' }] }, emptyDirr: {} }] } } } };
    assert.deepEqual(findUnknownFields(DEPLOYMENT, deployment), [
      'spec.template.spec.containers[0].livenessProbe.bogus',
      'spec.template.spec.volumes[0].emptyDirr',
    ]);
  });
});

describe('removeUnknownFields', () => {
  it('drops unknown fields in place and keeps the rest', () => {
    const cm = configMap({ spec: { foo: 1 } });
    (cm.metadata as Record<string, unknown>).bogus = true;
    assert.deepEqual(removeUnknownFields(CONFIG_MAP, cm), ['metadata.bogus', 'spec']);
    assert.deepEqual(cm, configMap());
  });
});

describe('findDuplicateFields', () => {
  it('returns nothing for a body without duplicates', () => {
    assert.deepEqual(findDuplicateFields(JSON.stringify(configMap())), []);
    assert.deepEqual(findDuplicateFields('{"a":"\\"a\\":1,","b":{"a":1}}'), []);
  });

  it('reports repeated keys at any depth, in maps and inside list items', () => {
    const text = `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"a","labels":{"x":"1","x":"2"},"name":"b"},
      "data":{"k":"AA=="},"type":"Opaque","type":"Opaque",
      "metadata2":[{"n":1},{"n":1,"n":2}]}`;
    assert.deepEqual(findDuplicateFields(text), ['metadata.labels.x', 'metadata.name', 'type', 'metadata2[1].n']);
  });

  it('compares keys after unescaping', () => {
    assert.deepEqual(findDuplicateFields('{"ab":1,"a\\u0062":2}'), ['ab']);
  });

  it('survives deep nesting and malformed input without throwing', () => {
    assert.deepEqual(findDuplicateFields('['.repeat(50_000) + ']'.repeat(50_000)), []);
    for (const bad of ['{"a":1,"a"', '{"a" 1}', '{"a":1,}', '{"a":', '"unterminated', '{"a":[1,{"b":2']) {
      assert.ok(Array.isArray(findDuplicateFields(bad)));
    }
  });
});

describe('findFieldProblems', () => {
  it('matches the strict decoding error kube-apiserver gives for a Deployment', () => {
    const body = `{"apiVersion": "apps/v1", "kind": "Deployment",
      "metadata": {"name": "dupename", "name": "d", "labels": {"app": "nginx"}, "unknownMeta": "metaVal"},
      "spec": {"unknown1": "val1", "unknownDupe": "valDupe", "unknownDupe": "valDupe2", "paused": true, "paused": false,
        "selector": {"matchLabels": {"app": "nginx"}},
        "template": {"metadata": {"labels": {"app": "nginx"}}, "spec": {"containers": [{"name": "nginx",
          "image": "nginx:latest", "unknownNested": "val1", "imagePullPolicy": "Always", "imagePullPolicy": "Never"}]}}}}`;
    assert.equal(strictDecodingMessage(findFieldProblems(DEPLOYMENT, body)),
      'strict decoding error: duplicate field "metadata.name", unknown field "metadata.unknownMeta", ' +
      'unknown field "spec.unknown1", unknown field "spec.unknownDupe", duplicate field "spec.paused", ' +
      'unknown field "spec.template.spec.containers[0].unknownNested", ' +
      'duplicate field "spec.template.spec.containers[0].imagePullPolicy"');
  });

  it('reports duplicate map keys but looks inside neither unknown fields nor raw JSON', () => {
    const body = '{"metadata":{"annotations":{"a":"1","a":"2"}},"bogus":{"x":1,"x":2},"data":{"k":"v"}}';
    assert.deepEqual(problems(CONFIG_MAP, body), ['duplicate field "metadata.annotations.a"', 'unknown field "bogus"']);
    const revision = '{"data":{"x":1,"x":2},"revision":1}';
    assert.deepEqual(problems(messageSchema('k8s.io.api.apps.v1.ControllerRevision'), revision), []);
  });

  it('finds the same unknown fields as the object walk', () => {
    const lease = { metadata: { name: 'l' }, spec: { holderIdentity: 'h', extra: [1] }, status: {} };
    assert.deepEqual(problems(LEASE, JSON.stringify(lease)), ['unknown field "spec.extra"', 'unknown field "status"']);
    assert.deepEqual(findUnknownFields(LEASE, lease), ['spec.extra', 'status']);
  });
});

describe('strict errors and directives', () => {
  it('builds the 400 BadRequest of a Strict request', () => {
    const err = strictDecodingError('ConfigMap', 'v1', 'ConfigMap', [{ kind: 'unknown', path: 'spec' }]);
    assert.equal(err.code, 400);
    assert.equal(err.reason, 'BadRequest');
    assert.equal(err.message,
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "spec"');
  });

  it('defaults to Warn and rejects unknown directives', () => {
    assert.equal(parseFieldValidation(undefined), 'Warn');
    assert.equal(parseFieldValidation(''), 'Warn');
    assert.equal(parseFieldValidation('Strict'), 'Strict');
    assert.equal(parseFieldValidation('strict'), undefined);
  });
});
