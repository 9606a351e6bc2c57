/**
 * SelfSubjectRulesReview's answer comes from every authorizer of the chain that can list rules, as
 * upstream's union rule resolver: AlwaysAllow lists everything, AlwaysDeny nothing, a webhook and the
 * Node authorizer (for nodes) mark the list incomplete with their error, errors joined in order.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { alwaysAllowAuthorizer, alwaysDenyAuthorizer, privilegedGroupAuthorizer } from '../../src/auth/authz/builtin-authorizers.ts';
import { unionRulesFor } from '../../src/auth/authz/chain.ts';
import { NodeAuthorizer } from '../../src/auth/node/node-authorizer.ts';
import { WebhookAuthorizer } from '../../src/auth/authz/webhook/webhook-authorizer.ts';
import { startTestServer } from '../helpers/server.ts';
import { client } from '../helpers/http.ts';

const alice = { name: 'alice', uid: '', groups: ['system:authenticated'], extra: {} };
const kubelet = { name: 'system:node:n1', uid: '', groups: ['system:nodes', 'system:authenticated'], extra: {} };
// The real webhook authorizer: its rules answer needs none of its connection settings.
const webhook = new WebhookAuthorizer({ name: 'webhook' } as ConstructorParameters<typeof WebhookAuthorizer>[0]);
const node = new NodeAuthorizer({} as ConstructorParameters<typeof NodeAuthorizer>[0]);

test('AlwaysAllow lists every verb on everything; the privileged group is no resolver', async () => {
  const rules = await unionRulesFor([privilegedGroupAuthorizer, alwaysAllowAuthorizer], alice, 'default');
  assert.deepEqual(rules, {
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: [] }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
    incomplete: false,
  });
  assert.deepEqual(await unionRulesFor([alwaysDenyAuthorizer], alice, 'default'), { resourceRules: [], nonResourceRules: [], incomplete: false });
});

test('a webhook and the Node authorizer for a node make the list incomplete, errors joined as an aggregate', async () => {
  assert.deepEqual(await unionRulesFor([node, alwaysDenyAuthorizer], alice, 'default'), { resourceRules: [], nonResourceRules: [], incomplete: false });
  const one = await unionRulesFor([node, webhook], alice, 'default');
  assert.equal(one.incomplete, true);
  assert.equal(one.evaluationError, 'webhook authorizer does not support user rule resolution');
  const two = await unionRulesFor([node, webhook], kubelet, 'default');
  assert.equal(two.evaluationError, '[node authorizer does not support user rule resolution, webhook authorizer does not support user rule resolution]');
});

test('over HTTP, a server run with AlwaysAllow answers a complete wildcard rules review', async () => {
  const srv = await startTestServer(['--authorization-mode=AlwaysAllow']);
  try {
    const c = client(srv.url, srv.adminAgent);
    const r = await c.post('/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'default' } });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.status.incomplete, false);
    assert.ok(r.json.status.resourceRules.some((rule: { verbs: string[]; resources: string[] }) => rule.verbs[0] === '*' && rule.resources[0] === '*'), r.text);
  } finally {
    await srv.stop();
  }
});
