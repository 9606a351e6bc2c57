/**
 * An authorization webhook's matchConditions in Kubernetes' CEL environment (src/cel): `request` is
 * a typed kubernetes.SubjectAccessReviewSpec with every field present as upstream hands it over,
 * the Kubernetes libraries work, regular expressions are RE2, an evaluation is bounded by the
 * per-call cost limit, and errors are upstream's (compile: the config's field errors; runtime: the
 * matcher's aggregate, a false condition skipping the webhook whatever else failed).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { parseRequestInfo } from '../../src/api/request-info.ts';
import type { Attributes } from '../../src/auth/authz/authorizer.ts';
import { parseAuthorizationConfig } from '../../src/auth/authz/config/authorization-config.ts';
import { compileMatcher } from '../../src/auth/authz/webhook/match-conditions.ts';
import { reviewSpec } from '../../src/auth/authz/webhook/subject-access-review.ts';
import { WebhookAuthorizer } from '../../src/auth/authz/webhook/webhook-authorizer.ts';
import type { WebhookClient } from '../../src/auth/authz/webhook/webhook-client.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'pgkube-webhook-cel-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const kubeconfig = path.join(dir, 'webhook.kubeconfig');
writeFileSync(kubeconfig, '{}');

/** The field errors of a webhook with these matchConditions ([] when the file is valid). */
function problems(...expressions: string[]): string[] {
  const webhook = {
    timeout: '3s',
    subjectAccessReviewVersion: 'v1',
    matchConditionSubjectAccessReviewVersion: 'v1',
    failurePolicy: 'Deny',
    connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: kubeconfig },
    matchConditions: expressions.map((expression) => ({ expression })),
  };
  try {
    parseAuthorizationConfig(JSON.stringify({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AuthorizationConfiguration', authorizers: [{ type: 'Webhook', name: 'w', webhook }] }));
    return [];
  } catch (err) {
    const text = (err as Error).message;
    return text.startsWith('[') ? text.slice(1, -1).split(/, (?=authorizers\[)/) : [text];
  }
}

const resource = (user: string, groups: string[] = [], extra?: Record<string, string[]>): Attributes => ({
  user: { name: user, groups, ...(extra ? { extra } : {}) },
  request: parseRequestInfo('GET', '/api/v1/namespaces/ns/pods', new URLSearchParams()),
});
const nonResource = (user: string): Attributes => ({ user: { name: user, groups: [] }, request: parseRequestInfo('GET', '/healthz/etcd', new URLSearchParams()) });
const match = (expressions: string[], attrs: Attributes) => compileMatcher(expressions.map((expression) => ({ expression })))(reviewSpec(attrs));

const ANTLR_EOF = "Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";

describe('matchConditions: compiling', () => {
  it('the Kubernetes libraries and every declared field compile', () => {
    assert.deepEqual(
      problems(
        "request.user.matches('^system:serviceaccount:')",
        'request.groups.isSorted()',
        "sets.contains(request.groups, ['dev'])",
        "request.resourceAttributes.?fieldSelector.rawSelector.orValue('') == ''",
        "request.resourceAttributes.labelSelector.requirements.exists(r, r.key == 'app' && 'web' in r.values)",
        "request.nonResourceAttributes.path.startsWith('/healthz') && request.nonResourceAttributes.verb == 'get'",
        "request.extra['scopes'].size() > 0 && request.uid != ''",
        "url('https://' + request.user).getHost() == 'x'",
      ),
      [],
    );
  });

  it("errors are upstream's: cel-go's compile errors, and the result type with the type found (no prefix)", () => {
    assert.deepEqual(problems('request.nope', "request.resourceAttributes.nope == 'x'", 'request.user', 'request.user ==', "request.user.matches('[')", 'request.groups.frobnicate()'), [
      "authorizers[0].matchConditions[0].expression: Invalid value: \"request.nope\": compilation failed: ERROR: <input>:1:8: undefined field 'nope'\n | request.nope\n | .......^",
      "authorizers[0].matchConditions[1].expression: Invalid value: \"request.resourceAttributes.nope == 'x'\": compilation failed: ERROR: <input>:1:27: undefined field 'nope'\n | request.resourceAttributes.nope == 'x'\n | ..........................^",
      'authorizers[0].matchConditions[2].expression: Invalid value: "request.user": must evaluate to bool but got string',
      `authorizers[0].matchConditions[3].expression: Invalid value: "request.user ==": compilation failed: ERROR: <input>:1:16: ${ANTLR_EOF}\n | request.user ==\n | ...............^`,
      "authorizers[0].matchConditions[4].expression: Invalid value: \"request.user.matches('[')\": compilation failed: ERROR: <input>:1:22: invalid matches argument\n | request.user.matches('[')\n | .....................^",
      "authorizers[0].matchConditions[5].expression: Invalid value: \"request.groups.frobnicate()\": compilation failed: ERROR: <input>:1:26: undeclared reference to 'frobnicate' (in container '')\n | request.groups.frobnicate()\n | .........................^",
    ]);
  });
});

describe('matchConditions: evaluating', () => {
  it('request carries every field, empty ones included, as upstream converts the spec', () => {
    assert.deepEqual(
      match(["request.uid == '' && request.groups == [] && request.extra == {}", "request.resourceAttributes.name == '' && request.resourceAttributes.group == ''", "request.resourceAttributes.resource == 'pods'", '!has(request.nonResourceAttributes)'], resource('u')),
      { match: true },
    );
    assert.deepEqual(match(["request.nonResourceAttributes.path == '/healthz/etcd'", '!has(request.resourceAttributes)'], nonResource('u')), { match: true });
  });

  it('regular expressions are RE2: Go syntax such as (?i) works, and a catastrophic pattern finishes at once', () => {
    assert.deepEqual(match(["request.user.matches('(?i)^ADMIN-[0-9]+$')"], resource('admin-42')), { match: true });
    assert.deepEqual(match(["request.user.matches('(?i)^ADMIN-[0-9]+$')"], resource('bob')), { match: false });
    const started = Date.now();
    assert.deepEqual(match(["!request.user.matches('^(a+)+$')"], resource(`${'a'.repeat(5000)}!`)), { match: true });
    assert.ok(Date.now() - started < 5000, 'the catastrophic pattern took too long');
  });

  it('list and set functions work on the typed fields', () => {
    const conditions = ['request.groups.isSorted()', "sets.intersects(request.groups, ['dev', 'ops'])"];
    assert.deepEqual(match(conditions, resource('u', ['a', 'dev'])), { match: true });
    assert.deepEqual(match(conditions, resource('u', ['dev', 'a'])), { match: false });
  });

  it('errors are gathered in the aggregate text; a false condition skips the webhook even after errors', () => {
    const failing = ["request.extra['k'][0] == 'v'", "request.extra['j'][0] == 'v'"];
    assert.deepEqual(match(failing, resource('u')), {
      error:
        "[cel evaluation error: expression 'request.extra['k'][0] == 'v'' resulted in error: no such key: k, " +
        "cel evaluation error: expression 'request.extra['j'][0] == 'v'' resulted in error: no such key: j]",
    });
    assert.deepEqual(match([failing[0]!], resource('u')), { error: "cel evaluation error: expression 'request.extra['k'][0] == 'v'' resulted in error: no such key: k" });
    assert.deepEqual(match([...failing, "request.user != 'skip'"], resource('skip')), { match: false });
  });

  it("an evaluation beyond the per-call cost limit is an error with cel-go's text", () => {
    const groups = Array.from({ length: 1000 }, (_, i) => `g${i}`);
    const costly = 'request.groups.all(a, request.groups.all(b, a.size() + b.size() > 0))';
    assert.deepEqual(match([costly], resource('u', ['a'])), { match: true });
    assert.deepEqual(match([costly], resource('u', groups)), { error: `cel evaluation error: expression '${costly}' resulted in error: operation cancelled: actual cost limit exceeded` });
  });

  it('the webhook authorizer skips, calls, or follows its failure policy on these outcomes', async () => {
    let calls = 0;
    const client: WebhookClient = {
      post: async () => {
        calls++;
        return { status: 200, text: JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', status: { allowed: true } }) };
      },
      close: () => undefined,
    };
    const matcher = compileMatcher([{ expression: "request.user.matches('^team-')" }, { expression: "request.extra['tier'][0] == 'gold'" }]);
    const authorizer = (failurePolicy: 'Deny' | 'NoOpinion') =>
      new WebhookAuthorizer({ name: 'w', client, version: 'v1', authorizedTtlMs: 0, unauthorizedTtlMs: 0, timeoutMs: 1000, failurePolicy, matcher, retryDelaysMs: [] });
    assert.deepEqual(await authorizer('Deny').authorize(resource('other')), { decision: 'noOpinion' });
    assert.equal(calls, 0);
    assert.equal((await authorizer('Deny').authorize(resource('team-a', [], { tier: ['gold'] }))).decision, 'allow');
    assert.equal(calls, 1);
    const denied = await authorizer('Deny').authorize(resource('team-a'));
    assert.equal(denied.decision, 'deny');
    assert.match(denied.evaluationError!, /cel evaluation error: expression 'request\.extra\['tier'\]\[0\] == 'gold'' resulted in error: no such key: tier/);
    assert.equal((await authorizer('NoOpinion').authorize(resource('team-a'))).decision, 'noOpinion');
    assert.equal(calls, 1);
  });
});
