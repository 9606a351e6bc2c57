/**
 * What the write path around the field manager needs: the manager name taken from the User-Agent,
 * validation of metadata.managedFields, each endpoint's reset fields, and the check after mutating
 * admission (upstream's create.go prefixFromUserAgent, ValidateManagedFields, the strategies'
 * GetResetFields and managedFieldsValidatingAdmissionController).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fieldErrorText } from '../../src/api/errors.ts';
import { pods } from '../../src/kinds/pod.ts';
import { namespaces } from '../../src/kinds/namespace.ts';
import { configMaps } from '../../src/kinds/config-map.ts';
import { apiServices } from '../../src/kinds/api-service.ts';
import { serviceCIDRs } from '../../src/kinds/service-cidr.ts';
import { volumeAttachments } from '../../src/kinds/volume-attachment.ts';
import { nodes } from '../../src/kinds/node.ts';
import { validatingAdmissionPolicies } from '../../src/kinds/validating-admission-policy.ts';
import { flowSchemas } from '../../src/kinds/flow-schema.ts';
import { pathString } from '../../src/ssa/fieldpath/index.ts';
import {
  FieldManager,
  managerFromUserAgent,
  managerOrUserAgent,
  resetFieldsFor,
  restoreManagedFieldsAfterAdmission,
  validateManagedFields,
} from '../../src/registry/managed-fields/index.ts';
import type { KindDefinition } from '../../src/registry/kind.ts';
import type { Obj } from './managed-fields-fixtures.ts';

describe('the manager named by the User-Agent (prefixFromUserAgent)', () => {
  test('the part before the first slash', () => {
    assert.equal(managerFromUserAgent('kubectl/v1.34.1 (linux/amd64) kubernetes/abcdef'), 'kubectl');
    assert.equal(managerFromUserAgent('kube-controller-manager/v1.34.1 (linux/amd64) kubernetes/abcdef/system:serviceaccount:kube-system:deployment-controller'), 'kube-controller-manager');
    assert.equal(managerFromUserAgent('curl'), 'curl');
    assert.equal(managerFromUserAgent(undefined), '');
    assert.equal(managerFromUserAgent(''), '');
  });

  test('unprintable characters are dropped, and the name is cut to 128 bytes', () => {
    assert.equal(managerFromUserAgent('a\tb\u0000c/1'), 'abc');
    assert.equal(managerFromUserAgent('x'.repeat(200)), 'x'.repeat(128));
    // A character that would straddle the limit is left out whole.
    assert.equal(managerFromUserAgent(`${'x'.repeat(127)}é`), 'x'.repeat(127));
  });

  test("header bytes are read as UTF-8, the way Go ranges over them", () => {
    // Node hands headers over as latin1: "é" arrives as its two UTF-8 bytes.
    assert.equal(managerFromUserAgent(Buffer.from('café/1', 'utf8').toString('latin1')), 'café');
    // A byte that is not UTF-8 becomes U+FFFD, which is printable.
    assert.equal(managerFromUserAgent('a\xffb'), 'a\uFFFDb');
  });

  test('the fieldManager parameter wins when given', () => {
    assert.equal(managerOrUserAgent('mine', 'kubectl/v1'), 'mine');
    assert.equal(managerOrUserAgent('', 'kubectl/v1'), 'kubectl');
    assert.equal(managerOrUserAgent(undefined, 'kubectl/v1'), 'kubectl');
  });
});

describe('validateManagedFields', () => {
  const texts = (entries: unknown) => validateManagedFields(entries, 'metadata.managedFields').map((e) => `${e.field}: ${fieldErrorText(e)}`);

  test('good entries pass', () => {
    assert.deepEqual(texts([{ manager: 'kubectl', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: {} }, { operation: 'Update' }]), []);
    assert.deepEqual(texts(undefined), []);
  });

  test('operation, fieldsType, manager and subresource are checked as upstream words it', () => {
    assert.deepEqual(
      texts([
        { manager: 'a', operation: 'Patch', fieldsType: 'FieldsV2' },
        { manager: 'b\tc', operation: '' },
        { manager: 'm'.repeat(129), operation: 'Update', subresource: 's'.repeat(257) },
      ]),
      [
        'metadata.managedFields[0].operation: Invalid value: "Patch": must be `Apply` or `Update`',
        'metadata.managedFields[0].fieldsType: Invalid value: "FieldsV2": must be `FieldsV1`',
        'metadata.managedFields[1].operation: Invalid value: "": must be `Apply` or `Update`',
        'metadata.managedFields[1].manager: Invalid value: "b\\tc": invalid character U+0009 (at position 1)',
        'metadata.managedFields[2].manager: Too long: may not be more than 128 bytes',
        'metadata.managedFields[2].subresource: Too long: may not be more than 256 bytes',
      ],
    );
  });

  test('an unprintable manager is quoted as Go quotes it, escapes beyond ASCII included', () => {
    assert.deepEqual(texts([{ manager: 'a\u00a0b\u200b', operation: 'Update' }]), [
      'metadata.managedFields[0].manager: Invalid value: "a\\u00a0b\\u200b": invalid character U+00A0 (at position 1)',
      'metadata.managedFields[0].manager: Invalid value: "a\\u00a0b\\u200b": invalid character U+200B (at position 4)',
    ]);
  });
});

describe('reset fields (GetResetFields)', () => {
  const paths = (kind: KindDefinition, subresource: string): Record<string, string[]> | undefined => {
    const sets = resetFieldsFor(kind, subresource);
    if (!sets) return undefined;
    return Object.fromEntries([...sets].map(([v, set]) => [v, set.paths().map(pathString).sort()]));
  };

  test('the common rule: the main resource resets status, the status subresource spec', () => {
    assert.deepEqual(paths(nodes, ''), { v1: ['.status'] });
    assert.deepEqual(paths(nodes, 'status'), { v1: ['.spec'] });
    assert.deepEqual(paths(namespaces, ''), { v1: ['.status'] });
  });

  test('kinds without a status subresource reset nothing', () => {
    assert.equal(resetFieldsFor(configMaps, ''), undefined);
    assert.equal(resetFieldsFor(configMaps, 'status'), undefined);
  });

  test('strategies that reset more', () => {
    assert.deepEqual(paths(pods, 'status'), { v1: ['.spec', '.metadata.deletionTimestamp', '.metadata.ownerReferences'].sort() });
    assert.deepEqual(paths(namespaces, 'finalize'), { v1: ['.status'] });
    for (const kind of [apiServices, volumeAttachments, validatingAdmissionPolicies, flowSchemas]) {
      const version = kind.group ? `${kind.group}/${kind.version}` : kind.version;
      assert.deepEqual(paths(kind, 'status'), { [version]: ['.metadata', '.spec'] }, kind.kind);
    }
  });

  test("ServiceCIDR's are keyed by versions no request has, as upstream keys them", () => {
    assert.deepEqual(paths(serviceCIDRs, ''), { 'networking/v1': ['.status'], 'networking/v1beta1': ['.status'] });
    assert.deepEqual(paths(serviceCIDRs, 'status'), { 'networking/v1': ['.spec'], 'networking/v1beta1': ['.spec'] });
  });

  test('a pods/status write cannot own spec, deletionTimestamp or ownerReferences', () => {
    const main = new FieldManager({ schema: pods.schema, apiVersion: 'v1', kind: 'Pod', subresource: '', resetFields: resetFieldsFor(pods, '')! });
    const status = new FieldManager({ schema: pods.schema, apiVersion: 'v1', kind: 'Pod', subresource: 'status', resetFields: resetFieldsFor(pods, 'status')! });
    const live = main.update(null, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] } }, 'creator', new Date(0)) as Obj;
    // As stored: the strategy gave it a status at create.
    live.metadata.uid = 'u';
    live.status = { phase: 'Pending' };
    const body = structuredClone(live);
    body.metadata.deletionTimestamp = '2024-01-01T00:00:00Z';
    body.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'Node', name: 'n', uid: 'x' }];
    body.metadata.labels = { a: 'b' };
    body.spec.nodeName = 'n';
    body.status = { phase: 'Running' };
    const out = status.update(live, body, 'kubelet', new Date(1000)) as Obj;
    const kubelet = out.metadata.managedFields.find((e: Obj) => e.manager === 'kubelet');
    assert.deepEqual(kubelet.fieldsV1, { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } }, 'f:status': { 'f:phase': {} } });
    assert.equal(kubelet.subresource, 'status');
  });
});

describe('managedFields after mutating admission', () => {
  const good = [{ manager: 'a', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': {} } }];

  test('valid fields are left alone', () => {
    const obj: Obj = { metadata: { managedFields: structuredClone(good) } };
    assert.equal(restoreManagedFieldsAfterAdmission(obj, []), undefined);
    assert.deepEqual(obj.metadata.managedFields, good);
  });

  test('broken fields are put back as they were, with a warning', () => {
    const obj: Obj = { metadata: { managedFields: [{ manager: 'a', operation: 'Update', apiVersion: 'v1' }] } };
    const warning = restoreManagedFieldsAfterAdmission(obj, good);
    assert.equal(
      warning,
      '.metadata.managedFields was in an invalid state after admission; this could be caused by an outdated mutating admission controller; please fix your requests: missing fieldsType in managed fields entry 0',
    );
    assert.deepEqual(obj.metadata.managedFields, good);
    const none: Obj = { metadata: { managedFields: [{ operation: 'Bad' }] } };
    restoreManagedFieldsAfterAdmission(none, undefined);
    assert.equal('managedFields' in none.metadata, false);
  });
});
