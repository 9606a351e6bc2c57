/**
 * Requests to a deprecated API version, end to end with a real audit log: v1 ComponentStatus (upstream
 * deprecates it in 1.19 with no removal and no replacement) answers get and list with upstream's
 * `Warning` and records `k8s.io/deprecated: "true"` in the audit event, without `k8s.io/removed-release`;
 * requests to other kinds carry neither. The wording, the removal and replacement parts and the
 * request's `deprecatedApi` state (read by the metrics) are checked on kinds of each shape.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Context } from 'koa';
import { systemContext } from '../../src/api/request-context.ts';
import { deprecationWarning, isDeprecated, noteDeprecatedRequest, removedRelease, type DeprecationState } from '../../src/http/deprecation.ts';
import { componentStatuses } from '../../src/kinds/component-status.ts';
import { defineKind } from '../../src/registry/kind.ts';
import { auditAnnotationsOf, metadataAuditLog } from '../helpers/audit-log.ts';
import type { Reply } from '../helpers/http.ts';
import { serveFile } from '../helpers/server.ts';

const { auditLog, flags: auditFlags } = metadataAuditLog('pgkube-deprecated-api-');
const t = serveFile(auditFlags);

const COMPONENT_STATUS_WARNING = '299 - "v1 ComponentStatus is deprecated in v1.19+"';
const warningsOf = (res: Reply) => [res.headers.warning ?? []].flat();

describe('v1 ComponentStatus', () => {
  test('a list answers with the deprecation warning and is audited as deprecated', async () => {
    const res = await t.api.get('/api/v1/componentstatuses');
    assert.equal(res.status, 200);
    assert.deepEqual(warningsOf(res), [COMPONENT_STATUS_WARNING]);
    const annotations = await auditAnnotationsOf(auditLog, res);
    assert.equal(annotations['k8s.io/deprecated'], 'true');
    assert.equal('k8s.io/removed-release' in annotations, false);
  });

  test('a get does too, and so does a get of a name that does not exist (404)', async () => {
    const found = await t.api.get('/api/v1/componentstatuses/database');
    assert.equal(found.status, 200);
    assert.deepEqual(warningsOf(found), [COMPONENT_STATUS_WARNING]);
    assert.equal((await auditAnnotationsOf(auditLog, found))['k8s.io/deprecated'], 'true');
    const missing = await t.api.get('/api/v1/componentstatuses/nothing-here');
    assert.equal(missing.status, 404);
    assert.deepEqual(warningsOf(missing), [COMPONENT_STATUS_WARNING]);
  });

  test('a verb the kind does not serve is not routed, so it is not marked', async () => {
    const res = await t.api.post('/api/v1/componentstatuses', { apiVersion: 'v1', kind: 'ComponentStatus', metadata: { name: 'x' } });
    assert.equal(res.status, 405);
    assert.deepEqual(warningsOf(res), []);
  });
});

describe('a kind that is not deprecated', () => {
  test('answers with no warning and is not audited as deprecated', async () => {
    const res = await t.api.get(`/api/v1/namespaces/${t.ns}/configmaps`);
    assert.equal(res.status, 200);
    assert.deepEqual(warningsOf(res), []);
    const annotations = await auditAnnotationsOf(auditLog, res);
    assert.equal('k8s.io/deprecated' in annotations, false);
  });
});

describe('the lifecycle rules', () => {
  const pdbBeta = defineKind({
    group: 'policy',
    version: 'v1beta1',
    kind: 'PodDisruptionBudget',
    plural: 'poddisruptionbudgets',
    namespaced: true,
    schemaMessage: 'k8s.io.api.policy.v1.PodDisruptionBudget',
    deprecation: { deprecated: { major: 1, minor: 21 }, removed: { major: 1, minor: 25 }, replacement: { group: 'policy', version: 'v1', kind: 'PodDisruptionBudget' } },
  });
  const future = defineKind({
    group: 'coordination.k8s.io',
    version: 'v1beta1',
    kind: 'LeaseCandidate',
    plural: 'leasecandidates',
    namespaced: true,
    schemaMessage: 'k8s.io.api.coordination.v1beta1.LeaseCandidate',
    deprecation: { deprecated: { major: 1, minor: 36 }, removed: { major: 1, minor: 39 } },
  });

  test('upstream\'s wording, with the removal and the replacement when there are', () => {
    assert.equal(deprecationWarning(componentStatuses), 'v1 ComponentStatus is deprecated in v1.19+');
    assert.equal(deprecationWarning(pdbBeta), 'policy/v1beta1 PodDisruptionBudget is deprecated in v1.21+, unavailable in v1.25+; use policy/v1 PodDisruptionBudget');
    assert.equal(removedRelease(pdbBeta), '1.25');
    assert.equal(removedRelease(componentStatuses), '');
  });

  test('a version is deprecated once the server\'s release (1.34) reaches its deprecation release', () => {
    assert.equal(isDeprecated(componentStatuses), true);
    assert.equal(isDeprecated(future), false);
    assert.equal(isDeprecated(future, { major: 1, minor: 36 }), true);
    assert.equal(isDeprecated({ deprecation: { deprecated: { major: 0, minor: 0 } } }), false);
  });

  test('a marked request carries the removal release in its audit annotations and its deprecatedApi state', () => {
    const state: DeprecationState & Record<string, unknown> = {};
    const context = { ...systemContext(), auditAnnotations: {} as Record<string, string> };
    context.warnings.push('an earlier warning');
    noteDeprecatedRequest({ state } as unknown as Context, pdbBeta, { apiGroup: 'policy', apiVersion: 'v1beta1', resource: 'poddisruptionbudgets', subresource: 'status' }, context);
    assert.deepEqual(context.warnings, [deprecationWarning(pdbBeta), 'an earlier warning']);
    assert.deepEqual(context.auditAnnotations, { 'k8s.io/deprecated': 'true', 'k8s.io/removed-release': '1.25' });
    assert.deepEqual(state.deprecatedApi, { group: 'policy', version: 'v1beta1', resource: 'poddisruptionbudgets', subresource: 'status', removedRelease: '1.25' });

    const untouched: DeprecationState = {};
    noteDeprecatedRequest({ state: untouched } as unknown as Context, future, { apiGroup: 'coordination.k8s.io', apiVersion: 'v1beta1', resource: 'leasecandidates', subresource: '' }, systemContext());
    assert.equal(untouched.deprecatedApi, undefined);
  });
});
