import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { parseRequestInfo, type RequestInfo } from '../../src/api/request-info.ts';
import { loadPolicyFile, parsePolicy, PolicyChecker, type Policy, type PolicyRule } from '../../src/audit/policy.ts';
import { StartupError } from '../../src/startup-error.ts';
import type { UserInfo } from '../../src/auth/user.ts';

const alice: UserInfo = { name: 'alice', groups: ['dev', 'system:authenticated'] };
const bob: UserInfo = { name: 'bob', groups: ['ops', 'system:authenticated'] };

function req(method: string, url: string): RequestInfo {
  const u = new URL(url, 'https://x');
  return parseRequestInfo(method, u.pathname, u.searchParams);
}

/** The level one rule (then a catch-all None) gives the request. */
function levelOf(rule: Omit<PolicyRule, 'level'>, user: UserInfo | undefined, request: RequestInfo): string {
  const checker = new PolicyChecker({ rules: [{ level: 'Metadata', ...rule }] });
  return checker.evaluate({ user, request }).level;
}

const getPod = req('GET', '/api/v1/namespaces/default/pods/web');

test('no rule matching means None; the first matching rule wins', () => {
  const policy: Policy = {
    rules: [
      { level: 'RequestResponse', users: ['alice'] },
      { level: 'Request', userGroups: ['dev'] },
      { level: 'Metadata' },
    ],
  };
  const checker = new PolicyChecker(policy);
  assert.equal(checker.evaluate({ user: alice, request: getPod }).level, 'RequestResponse');
  assert.equal(checker.evaluate({ user: { name: 'carol', groups: ['dev'] }, request: getPod }).level, 'Request');
  assert.equal(checker.evaluate({ user: bob, request: getPod }).level, 'Metadata');
  assert.equal(new PolicyChecker({ rules: [{ level: 'Metadata', users: ['x'] }] }).evaluate({ user: bob, request: getPod }).level, 'None');
});

test('users and userGroups match the user; a request without a user matches neither', () => {
  assert.equal(levelOf({ users: ['alice'] }, alice, getPod), 'Metadata');
  assert.equal(levelOf({ users: ['alice'] }, bob, getPod), 'None');
  assert.equal(levelOf({ users: ['alice'] }, undefined, getPod), 'None');
  assert.equal(levelOf({ userGroups: ['ops', 'qa'] }, bob, getPod), 'Metadata');
  assert.equal(levelOf({ userGroups: ['ops'] }, alice, getPod), 'None');
  assert.equal(levelOf({ userGroups: ['ops'] }, undefined, getPod), 'None');
  // Without user fields a rule matches unauthenticated requests too.
  assert.equal(levelOf({}, undefined, getPod), 'Metadata');
});

test('verbs match the request verb (list, watch, create … for resources; the method for other paths)', () => {
  assert.equal(levelOf({ verbs: ['get'] }, alice, getPod), 'Metadata');
  assert.equal(levelOf({ verbs: ['list'] }, alice, getPod), 'None');
  assert.equal(levelOf({ verbs: ['list'] }, alice, req('GET', '/api/v1/pods')), 'Metadata');
  assert.equal(levelOf({ verbs: ['watch'] }, alice, req('GET', '/api/v1/pods?watch=true')), 'Metadata');
  assert.equal(levelOf({ verbs: ['create'] }, alice, req('POST', '/api/v1/namespaces/a/configmaps')), 'Metadata');
  assert.equal(levelOf({ verbs: ['post'] }, alice, req('POST', '/some/path')), 'Metadata');
});

test('namespaces match resource requests only; "" names cluster-scoped ones', () => {
  assert.equal(levelOf({ namespaces: ['default'] }, alice, getPod), 'Metadata');
  assert.equal(levelOf({ namespaces: ['kube-system'] }, alice, getPod), 'None');
  assert.equal(levelOf({ namespaces: [''] }, alice, req('GET', '/api/v1/nodes')), 'Metadata');
  assert.equal(levelOf({ namespaces: [''] }, alice, getPod), 'None');
  assert.equal(levelOf({ namespaces: ['default'] }, alice, req('GET', '/healthz')), 'None');
});

test('resources: group, resource, */subresource, resource/*, * and resourceNames', () => {
  const status = req('PUT', '/apis/apps/v1/namespaces/a/deployments/web/status');
  const deploy = req('GET', '/apis/apps/v1/namespaces/a/deployments/web');
  const secret = req('GET', '/api/v1/namespaces/a/secrets/token');
  // The group must be the request's ("" is the core group).
  assert.equal(levelOf({ resources: [{ group: '' }] }, alice, secret), 'Metadata');
  assert.equal(levelOf({ resources: [{ group: '' }] }, alice, deploy), 'None');
  assert.equal(levelOf({ resources: [{ group: 'apps' }] }, alice, deploy), 'Metadata');
  assert.equal(levelOf({ resources: [{ group: 'apps', resources: ['deployments'] }] }, alice, deploy), 'Metadata');
  // A subresource must be named with its resource…
  assert.equal(levelOf({ resources: [{ group: 'apps', resources: ['deployments'] }] }, alice, status), 'None');
  assert.equal(levelOf({ resources: [{ group: 'apps', resources: ['deployments/status'] }] }, alice, status), 'Metadata');
  // … or with a wildcard on either side.
  assert.equal(levelOf({ resources: [{ group: 'apps', resources: ['*/status'] }] }, alice, status), 'Metadata');
  assert.equal(levelOf({ resources: [{ group: 'apps', resources: ['*/scale'] }] }, alice, status), 'None');
  assert.equal(levelOf({ resources: [{ group: 'apps', resources: ['*/status'] }] }, alice, deploy), 'None');
  assert.equal(levelOf({ resources: [{ group: 'apps', resources: ['deployments/*'] }] }, alice, status), 'Metadata');
  assert.equal(levelOf({ resources: [{ group: 'apps', resources: ['deployments/*'] }] }, alice, deploy), 'Metadata');
  assert.equal(levelOf({ resources: [{ group: 'apps', resources: ['replicasets/*'] }] }, alice, status), 'None');
  assert.equal(levelOf({ resources: [{ group: 'apps', resources: ['*'] }] }, alice, status), 'Metadata');
  // resourceNames narrow the resources named.
  assert.equal(levelOf({ resources: [{ group: '', resources: ['secrets'], resourceNames: ['token'] }] }, alice, secret), 'Metadata');
  assert.equal(levelOf({ resources: [{ group: '', resources: ['secrets'], resourceNames: ['other'] }] }, alice, secret), 'None');
  assert.equal(levelOf({ resources: [{ group: '', resources: ['secrets'], resourceNames: ['token'] }] }, alice, req('GET', '/api/v1/namespaces/a/secrets')), 'None');
  // Resource rules never match other paths.
  assert.equal(levelOf({ resources: [{ group: '' }] }, alice, req('GET', '/version')), 'None');
});

test('nonResourceURLs match other paths exactly or by a trailing *', () => {
  assert.equal(levelOf({ nonResourceURLs: ['/healthz'] }, alice, req('GET', '/healthz')), 'Metadata');
  assert.equal(levelOf({ nonResourceURLs: ['/healthz'] }, alice, req('GET', '/healthz/ping')), 'None');
  assert.equal(levelOf({ nonResourceURLs: ['/healthz*'] }, alice, req('GET', '/healthz/ping')), 'Metadata');
  assert.equal(levelOf({ nonResourceURLs: ['/apis*'] }, alice, req('GET', '/apis')), 'Metadata');
  assert.equal(levelOf({ nonResourceURLs: ['*'] }, alice, req('GET', '/version')), 'Metadata');
  // A resource request is never matched by a non-resource rule.
  assert.equal(levelOf({ nonResourceURLs: ['*'] }, alice, getPod), 'None');
});

test('omitStages: the policy\'s join each rule\'s; the default (no match) keeps the policy\'s', () => {
  const checker = new PolicyChecker({
    omitStages: ['RequestReceived'],
    rules: [
      { level: 'Metadata', users: ['alice'], omitStages: ['ResponseStarted'] },
      { level: 'Request', users: ['bob'] },
    ],
  });
  assert.deepEqual([...checker.evaluate({ user: alice, request: getPod }).omitStages].sort(), ['RequestReceived', 'ResponseStarted']);
  assert.deepEqual([...checker.evaluate({ user: bob, request: getPod }).omitStages], ['RequestReceived']);
  const none = checker.evaluate({ user: { name: 'carol', groups: [] }, request: getPod });
  assert.equal(none.level, 'None');
  assert.deepEqual([...none.omitStages], ['RequestReceived']);
});

test('omitManagedFields: a rule\'s own setting wins over the policy\'s', () => {
  const checker = new PolicyChecker({
    omitManagedFields: true,
    rules: [
      { level: 'Request', users: ['alice'], omitManagedFields: false },
      { level: 'Request' },
    ],
  });
  assert.equal(checker.evaluate({ user: alice, request: getPod }).omitManagedFields, false);
  assert.equal(checker.evaluate({ user: bob, request: getPod }).omitManagedFields, true);
  assert.equal(new PolicyChecker({ rules: [{ level: 'Request', omitManagedFields: true }] }).evaluate({ user: bob, request: getPod }).omitManagedFields, true);
  assert.equal(new PolicyChecker({ rules: [{ level: 'Request' }] }).evaluate({ user: bob, request: getPod }).omitManagedFields, false);
});

const GOOD = `
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: None
    nonResourceURLs: ["/healthz*", "/version"]
  - level: RequestResponse
    users: ["tim"]
    userGroups: ["testers", "developers"]
    verbs: ["patch", "delete", "create"]
    resources:
      - group: ""
      - group: "rbac.authorization.k8s.io"
        resources: ["clusterroles", "clusterrolebindings"]
    namespaces: ["default", "kube-system"]
  - level: Metadata
    omitManagedFields: true
`;

test('a v1 policy file parses into its rules', () => {
  const { policy, warning } = parsePolicy(GOOD);
  assert.equal(warning, undefined);
  assert.deepEqual(policy, {
    omitStages: ['RequestReceived'],
    rules: [
      { level: 'None', nonResourceURLs: ['/healthz*', '/version'] },
      {
        level: 'RequestResponse',
        users: ['tim'],
        userGroups: ['testers', 'developers'],
        verbs: ['patch', 'delete', 'create'],
        resources: [{ group: '' }, { group: 'rbac.authorization.k8s.io', resources: ['clusterroles', 'clusterrolebindings'] }],
        namespaces: ['default', 'kube-system'],
      },
      { level: 'Metadata', omitManagedFields: true },
    ],
  });
});

test('unknown fields fall back to lenient decoding with a warning, as upstream', () => {
  const { policy, warning } = parsePolicy(`apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  resources:
  - group: coordination.k8s.io
    resources: ["leases"]
    verbs: ["watch"]
`);
  assert.equal(policy.rules.length, 1);
  assert.deepEqual(policy.rules[0]!.resources, [{ group: 'coordination.k8s.io', resources: ['leases'] }]);
  assert.equal(warning, 'strict decoding error: unknown field "rules[0].resources[0].verbs"');
});

test('bad policies are refused with upstream\'s messages', () => {
  const refused = (text: string, message: string | RegExp) => assert.throws(() => parsePolicy(text), (err: Error) => {
    if (typeof message === 'string') assert.equal(err.message, message);
    else assert.match(err.message, message);
    return true;
  });
  refused('apiVersion: audit.k8s.io/v1\nkind: Policy\n', 'loaded illegal policy with 0 rules');
  refused('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n', 'loaded illegal policy with 0 rules');
  refused('', 'unknown group version field audit.k8s.io/__internal, Kind=Policy in policy');
  refused('rules:\n- level: Metadata\n', 'unknown group version field audit.k8s.io/__internal, Kind=Policy in policy');
  // v1beta1 and v1alpha1 are gone since 1.24: only v1 is read.
  refused(
    'apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules:\n- level: Metadata\n',
    'failed decoding: no kind "Policy" is registered for version "audit.k8s.io/v1beta1" in scheme "k8s.io/apiserver/pkg/audit/scheme.go:30"',
  );
  refused('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- users: [a]\n', 'rules[0].level: Required value');
  refused(
    'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Everything\n',
    'rules[0].level: Unsupported value: "Everything": supported values: "None", "Metadata", "Request", "RequestResponse"',
  );
  refused(
    'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [Later]\nrules:\n- level: None\n  nonResourceURLs: [healthz, "/a*b"]\n',
    '[omitStages[0]: Invalid value: "Later": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic, ' +
      'rules[0].nonResourceURLs[0]: Invalid value: "healthz": non-resource URL rules must begin with a \'/\' character, ' +
      'rules[0].nonResourceURLs[1]: Invalid value: "/a*b": non-resource URL wildcards \'*\' must be the final character of the rule]',
  );
  refused(
    'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  namespaces: [a]\n  nonResourceURLs: ["/x"]\n',
    /^rules\[0\]\.nonResourceURLs: Invalid value: .*: rules cannot apply to both regular resources and non-resource URLs$/,
  );
  refused(
    'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  resources: [{group: "rbac.authorization.k8s.io/v1"}]\n',
    /^rules\[0\]\.resources\.group: Invalid value: "rbac.authorization.k8s.io\/v1": a lowercase RFC 1123 subdomain/,
  );
  refused(
    'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  resources: [{resourceNames: [x]}]\n',
    /^rules\[0\]\.resources\.resourceNames: Invalid value: .*: using resourceNames requires at least one resource$/,
  );
  refused('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: {}\n', /^failed decoding: json: cannot unmarshal object into Go struct field Policy\.rules/);
  refused('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n  - level: [\n', /^failed decoding: error converting YAML to JSON: yaml: /);
});

test('the policy file: start-up errors are StartupErrors in kube-apiserver\'s words', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'audit-policy-'));
  try {
    const file = path.join(dir, 'policy.yaml');
    await writeFile(file, 'apiVersion: audit.k8s.io/v1\nkind: Policy\n');
    await assert.rejects(loadPolicyFile(file), (err: Error) => {
      assert.ok(err instanceof StartupError);
      assert.equal(err.message, `loading audit policy file: loaded illegal policy with 0 rules: from file ${file}`);
      return true;
    });
    const missing = path.join(dir, 'missing.yaml');
    await assert.rejects(loadPolicyFile(missing), {
      message: `loading audit policy file: failed to read file path "${missing}": open ${missing}: no such file or directory`,
    });
    await writeFile(file, GOOD);
    assert.equal((await loadPolicyFile(file)).policy.rules.length, 3);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
