/**
 * validationActions and audit annotations, end to end with a real audit log: Warn sends upstream's
 * warning and admits, Audit records `validation.policy.admission.k8s.io/validation_failure` as
 * upstream's JSON, Deny+Audit does both, and a policy's auditAnnotations become `<policy>/<key>`
 * annotations (null and blank values left out, values cut at 10 KiB, bindings' distinct values
 * joined, valueExpression errors following the failure policy).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertStatus, configMap, eventually } from '../helpers/fixtures.ts';
import type { Reply } from '../helpers/http.ts';
import { auditAnnotationsOf, metadataAuditLog } from '../helpers/audit-log.ts';
import { serveFile } from '../helpers/server.ts';
import { binding, coreRule, createAll, install, policy, POLICIES, BINDINGS, until } from './policy-fixtures.ts';

const { auditLog, flags: auditFlags } = metadataAuditLog('pgkube-policy-audit-');
const t = serveFile(auditFlags);

const annotationsOf = (res: Reply) => auditAnnotationsOf(auditLog, res);

/** A policy of this file's namespace only. */
function nsPolicy(name: string, spec: Record<string, unknown>) {
  return policy(name, { matchConstraints: { resourceRules: [coreRule(['configmaps'], ['CREATE'])], namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': t.ns } } }, ...spec });
}

const cms = () => `/api/v1/namespaces/${t.ns}/configmaps`;

/** Creates ConfigMaps named `<prefix>-<n>` until `done` holds for the reply (the policy is in force). */
function createUntil(prefix: string, data: Record<string, string>, done: (r: Reply) => boolean): Promise<Reply> {
  let n = 0;
  return until(() => t.api.post(cms(), configMap(`${prefix}-${n++}`, data)), done, `${prefix} to be judged`);
}

test('Warn admits the request with upstream warning text', async () => {
  await install(t.api, nsPolicy('warn-policy', { validations: [{ expression: "!has(object.data) || !('warn' in object.data)" }] }), binding('warn-binding', 'warn-policy', { validationActions: ['Warn'] }));
  const res = await createUntil('warned', { warn: 'x' }, (r) => r.headers.warning !== undefined);
  assert.equal(res.status, 201, res.text);
  assert.equal(res.headers.warning, `299 - "Validation failed for ValidatingAdmissionPolicy 'warn-policy' with binding 'warn-binding': failed expression: !has(object.data) || !('warn' in object.data)"`);
  const fine = await t.api.post(cms(), configMap('unwarned', { other: 'x' }));
  assert.equal(fine.status, 201);
  assert.equal(fine.headers.warning, undefined);
});

test('Audit records the failure as upstream JSON; with Deny the request is refused too', async () => {
  await install(
    t.api,
    nsPolicy('audit-policy', { validations: [{ expression: 'true' }, { expression: "!has(object.data) || !('audit' in object.data)", message: 'no <audit> & key' }] }),
    binding('audit-binding', 'audit-policy', { validationActions: ['Audit'] }),
  );
  // Audit never refuses: a create before the policy is in force is admitted without the annotation,
  // so creates go on until one is judged.
  let n = 0;
  const annotations = await eventually(async () => {
    const res = await t.api.post(cms(), configMap(`audited-${n++}`, { audit: 'x' }));
    assert.equal(res.status, 201, res.text);
    const a = await annotationsOf(res);
    return a['validation.policy.admission.k8s.io/validation_failure'] ? a : undefined;
  }, 'the validation failure annotation');
  assert.equal(
    annotations['validation.policy.admission.k8s.io/validation_failure'],
    '[{"message":"no \\u003caudit\\u003e \\u0026 key","policy":"audit-policy","binding":"audit-binding","expressionIndex":1,"validationActions":["Audit"]}]',
  );

  await install(t.api, nsPolicy('deny-audit-policy', { validations: [{ expression: "!has(object.data) || !('both' in object.data)" }] }), binding('deny-audit-binding', 'deny-audit-policy', { validationActions: ['Deny', 'Audit'] }));
  const refused = await createUntil('both', { both: 'x' }, (r) => r.status === 422);
  assertStatus(refused, 422, 'Invalid', `configmaps "${JSON.parse(refused.text).details.name}" is forbidden: ValidatingAdmissionPolicy 'deny-audit-policy' with binding 'deny-audit-binding' denied request: failed expression: !has(object.data) || !('both' in object.data)`);
  const refusedAnnotations = await annotationsOf(refused);
  assert.equal(
    refusedAnnotations['validation.policy.admission.k8s.io/validation_failure'],
    `[{"message":"failed expression: !has(object.data) || !('both' in object.data)","policy":"deny-audit-policy","binding":"deny-audit-binding","expressionIndex":0,"validationActions":["Deny","Audit"]}]`,
  );
});

test('auditAnnotations: <policy>/<key>, null and blank left out, long values cut, bindings joined', async () => {
  await createAll(
    t.api,
    [`/api/v1/namespaces/${t.ns}/configmaps`, configMap('param-a', { tag: 'alpha' })],
    [`/api/v1/namespaces/${t.ns}/configmaps`, configMap('param-b', { tag: 'beta' })],
  );
  await createAll(
    t.api,
    [
      POLICIES,
      nsPolicy('annotating', {
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        matchConditions: [{ name: 'only-annotated', expression: "has(object.data) && 'annotate' in object.data" }],
        auditAnnotations: [
          { key: 'name', valueExpression: "'object name: ' + object.metadata.name" },
          { key: 'nothing', valueExpression: 'null' },
          { key: 'blank', valueExpression: "'   '" },
          { key: 'long', valueExpression: 'string(object.data.long)' },
          { key: 'tag', valueExpression: 'string(params.data.tag)' },
        ],
      }),
    ],
    [BINDINGS, binding('annotating-a', 'annotating', { validationActions: ['Audit'], paramRef: { name: 'param-a', parameterNotFoundAction: 'Deny' } })],
    [BINDINGS, binding('annotating-b', 'annotating', { validationActions: ['Audit'], paramRef: { name: 'param-b', parameterNotFoundAction: 'Deny' } })],
  );
  let annotations: Record<string, string> = {};
  let n = 0;
  await eventually(async () => {
    const res = await t.api.post(cms(), configMap(`annotated-${n++}`, { annotate: 'yes', long: 'x'.repeat(4000) + 'é'.repeat(4000) }));
    assert.equal(res.status, 201, res.text);
    annotations = await annotationsOf(res);
    return annotations['annotating/tag']?.includes(', ');
  }, 'both bindings to annotate');
  assert.equal(annotations['annotating/name'], `object name: annotated-${n - 1}`);
  assert.equal(annotations['annotating/tag'], 'alpha, beta');
  assert.ok(!('annotating/nothing' in annotations));
  assert.ok(!('annotating/blank' in annotations));
  // Cut at 10 KiB of UTF-8: 4000 one-byte and 3120 two-byte characters.
  assert.equal(annotations['annotating/long'], 'x'.repeat(4000) + 'é'.repeat(3120));
  // The name annotation had one value from both bindings: the same value is kept once.
  assert.ok(!annotations['annotating/name']!.includes(','));
});

test('a valueExpression error denies under Fail and is left out under Ignore', async () => {
  for (const failurePolicy of ['Fail', 'Ignore']) {
    const name = `annotation-error-${failurePolicy.toLowerCase()}`;
    await install(
      t.api,
      nsPolicy(name, {
        failurePolicy,
        matchConditions: [{ name: 'marked', expression: `has(object.data) && '${name}' in object.data` }],
        auditAnnotations: [{ key: 'broken', valueExpression: 'string(object.nope)' }],
      }),
      binding(`${name}-binding`, name, { validationActions: ['Audit'] }),
    );
  }
  const refused = await createUntil('ae-fail', { 'annotation-error-fail': 'x' }, (r) => r.status === 422);
  assert.match(refused.json.message, /ValidatingAdmissionPolicy 'annotation-error-fail' with binding 'annotation-error-fail-binding' denied request: expression 'string\(object.nope\)' resulted in error: no such key: nope$/);
  const admitted = await t.api.post(cms(), configMap('ae-ignore', { 'annotation-error-ignore': 'x' }));
  assert.equal(admitted.status, 201, admitted.text);
  assert.ok(!('annotation-error-ignore/broken' in (await annotationsOf(admitted))));
});
