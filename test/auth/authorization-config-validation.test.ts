import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { parseAuthorizationConfig } from '../../src/auth/authz/config/authorization-config.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'pgkube-authz-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const kubeconfig = path.join(dir, 'webhook.kubeconfig');
writeFileSync(kubeconfig, '{}');

const doc = (authorizers: unknown[], apiVersion = 'apiserver.config.k8s.io/v1') =>
  JSON.stringify({ apiVersion, kind: 'AuthorizationConfiguration', authorizers });
const webhook = (fields: Record<string, unknown> = {}) => ({
  timeout: '3s',
  subjectAccessReviewVersion: 'v1',
  matchConditionSubjectAccessReviewVersion: 'v1',
  failurePolicy: 'Deny',
  connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: kubeconfig },
  ...fields,
});

test('a valid file: defaults of the TTLs, every apiVersion, RBAC and Node once each, webhooks repeat', () => {
  for (const v of ['v1', 'v1beta1', 'v1alpha1']) {
    const specs = parseAuthorizationConfig(
      doc([{ type: 'Webhook', name: 'one', webhook: webhook() }, { type: 'Node', name: 'node' }, { type: 'RBAC', name: 'rbac' }, { type: 'Webhook', name: 'two.example', webhook: webhook({ authorizedTTL: '1m', unauthorizedTTL: '2s' }) }], `apiserver.config.k8s.io/${v}`),
    );
    assert.deepEqual(specs.map((s) => [s.type, s.name]), [['Webhook', 'one'], ['Node', 'node'], ['RBAC', 'rbac'], ['Webhook', 'two.example']]);
    assert.equal(specs[0]!.webhook!.authorizedTtlMs, 300_000);
    assert.equal(specs[0]!.webhook!.unauthorizedTtlMs, 30_000);
    assert.equal(specs[0]!.webhook!.timeoutMs, 3_000);
    assert.equal(specs[3]!.webhook!.authorizedTtlMs, 60_000);
    assert.equal(specs[3]!.webhook!.unauthorizedTtlMs, 2_000);
  }
});

test('the kind and apiVersion must be an AuthorizationConfiguration of apiserver.config.k8s.io', () => {
  assert.throws(() => parseAuthorizationConfig(doc([], 'apiserver.config.k8s.io/v2')), /no kind "AuthorizationConfiguration" is registered for version "apiserver.config.k8s.io\/v2"/);
  assert.throws(() => parseAuthorizationConfig('authorizers: []'), /Object 'Kind' is missing/);
});

const cases: [string, unknown[], string][] = [
  ['no authorizers', [], 'authorizers: Required value: at least one authorization mode must be defined'],
  ['no type', [{ name: 'x' }], 'authorizers[0].type: Required value'],
  ['unknown type', [{ type: 'ABAC', name: 'x' }], 'authorizers[0].type: Unsupported value: "ABAC": supported values: "Node", "RBAC", "Webhook"'],
  ['RBAC twice', [{ type: 'RBAC', name: 'a' }, { type: 'RBAC', name: 'b' }], 'authorizers[1].type: Duplicate value: "RBAC"'],
  ['no name', [{ type: 'RBAC' }], 'authorizers[0].name: Required value'],
  ['same name', [{ type: 'RBAC', name: 'a' }, { type: 'Node', name: 'a' }], 'authorizers[1].name: Duplicate value: "a"'],
  ['bad name', [{ type: 'RBAC', name: 'Bad_Name' }], 'authorizers[0].name: Invalid value: "Bad_Name": authorizer name is invalid: a lowercase RFC 1123 subdomain must consist of'],
  ['webhook missing', [{ type: 'Webhook', name: 'w' }], 'authorizers[0].webhook: Required value: required when type=Webhook'],
  ['webhook on RBAC', [{ type: 'RBAC', name: 'r', webhook: webhook() }], 'authorizers[0].webhook: Invalid value: "non-null": may only be specified when type=Webhook'],
  ['no timeout', [{ type: 'Webhook', name: 'w', webhook: webhook({ timeout: undefined }) }], 'authorizers[0].timeout: Required value'],
  ['timeout over 30s', [{ type: 'Webhook', name: 'w', webhook: webhook({ timeout: '45s' }) }], 'authorizers[0].timeout: Invalid value: "45s": must be > 0s and <= 30s'],
  ['negative TTL', [{ type: 'Webhook', name: 'w', webhook: webhook({ authorizedTTL: '-1s' }) }], 'authorizers[0].authorizedTTL: Invalid value: "-1s": must be > 0s'],
  ['no SAR version', [{ type: 'Webhook', name: 'w', webhook: webhook({ subjectAccessReviewVersion: undefined }) }], 'authorizers[0].subjectAccessReviewVersion: Required value'],
  ['bad SAR version', [{ type: 'Webhook', name: 'w', webhook: webhook({ subjectAccessReviewVersion: 'v2' }) }], 'authorizers[0].subjectAccessReviewVersion: Unsupported value: "v2": supported values: "v1", "v1beta1"'],
  [
    'matchConditions without their version',
    [{ type: 'Webhook', name: 'w', webhook: webhook({ matchConditionSubjectAccessReviewVersion: undefined, matchConditions: [{ expression: 'true' }] }) }],
    'authorizers[0].matchConditionSubjectAccessReviewVersion: Required value: required if match conditions are specified',
  ],
  ['bad match version', [{ type: 'Webhook', name: 'w', webhook: webhook({ matchConditionSubjectAccessReviewVersion: 'v1beta1' }) }], 'authorizers[0].matchConditionSubjectAccessReviewVersion: Unsupported value: "v1beta1": supported values: "v1"'],
  ['no failurePolicy', [{ type: 'Webhook', name: 'w', webhook: webhook({ failurePolicy: undefined }) }], 'authorizers[0].failurePolicy: Required value'],
  ['bad failurePolicy', [{ type: 'Webhook', name: 'w', webhook: webhook({ failurePolicy: 'Allow' }) }], 'authorizers[0].failurePolicy: Unsupported value: "Allow": supported values: "NoOpinion", "Deny"'],
  ['no connection type', [{ type: 'Webhook', name: 'w', webhook: webhook({ connectionInfo: {} }) }], 'authorizers[0].connectionInfo.type: Required value'],
  ['relative kubeconfig', [{ type: 'Webhook', name: 'w', webhook: webhook({ connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: 'x.yaml' } }) }], 'authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "x.yaml": must be an absolute path'],
  ['missing kubeconfig', [{ type: 'Webhook', name: 'w', webhook: webhook({ connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: '/nonexistent/k' } }) }], 'authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "/nonexistent/k": error loading file: stat /nonexistent/k: no such file or directory'],
  ['kubeconfig is a directory', [{ type: 'Webhook', name: 'w', webhook: webhook({ connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: dir } }) }], `authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "${dir}": must be a regular file`],
  ['in-cluster with a file', [{ type: 'Webhook', name: 'w', webhook: webhook({ connectionInfo: { type: 'InClusterConfig', kubeConfigFile: '/x' } }) }], 'authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "/x": can only be set when type=KubeConfigFile'],
  ['too many matchConditions', [{ type: 'Webhook', name: 'w', webhook: webhook({ matchConditions: Array.from({ length: 65 }, (_, i) => ({ expression: `${i} == ${i}` })) }) }], 'authorizers[0].matchConditions: Too many: 65: must have at most 64 items'],
  ['empty expression', [{ type: 'Webhook', name: 'w', webhook: webhook({ matchConditions: [{ expression: ' ' }] }) }], 'authorizers[0].matchConditions[0].expression: Required value'],
  ['duplicate expression', [{ type: 'Webhook', name: 'w', webhook: webhook({ matchConditions: [{ expression: 'true' }, { expression: 'true' }] }) }], 'authorizers[0].matchConditions[1].expression: Duplicate value: "true"'],
  ['not a bool', [{ type: 'Webhook', name: 'w', webhook: webhook({ matchConditions: [{ expression: '"a"' }] }) }], 'authorizers[0].matchConditions[0].expression: Invalid value: "\\"a\\"": must evaluate to bool but got string'],
  ['syntax error', [{ type: 'Webhook', name: 'w', webhook: webhook({ matchConditions: [{ expression: 'request.user ==' }] }) }], 'authorizers[0].matchConditions[0].expression: Invalid value: "request.user ==": compilation failed'],
];

for (const [what, authorizers, message] of cases) {
  test(`invalid: ${what}`, () => {
    assert.throws(() => parseAuthorizationConfig(doc(authorizers)), (err: Error) => {
      assert.ok(err.message.startsWith(message), `${err.message}\n  should start with\n${message}`);
      return true;
    });
  });
}

test('several problems are joined as an aggregate prints them', () => {
  assert.throws(
    () => parseAuthorizationConfig(doc([{ type: 'Webhook', name: 'w', webhook: webhook({ timeout: undefined, failurePolicy: undefined }) }])),
    { message: '[authorizers[0].timeout: Required value, authorizers[0].failurePolicy: Required value]' },
  );
});
