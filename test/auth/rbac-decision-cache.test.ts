import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RequestInfo } from '../../src/api/request-info.ts';
import { DecisionCache } from '../../src/auth/rbac/decision-cache.ts';

const resource = (over: Partial<RequestInfo> = {}): RequestInfo => ({
  isResourceRequest: true,
  path: '/api/v1/namespaces/a/configmaps/x',
  verb: 'get',
  apiPrefix: 'api',
  apiGroup: '',
  apiVersion: 'v1',
  namespace: 'a',
  resource: 'configmaps',
  subresource: '',
  name: 'x',
  inNamespace: true,
  parts: [],
  ...over,
});
const alice = { name: 'alice', groups: ['dev', 'system:authenticated'] };

test('a decision is keyed by everything RBAC reads and nothing it does not', () => {
  const base = DecisionCache.key(alice, resource());
  for (const other of [
    DecisionCache.key({ ...alice, name: 'bob' }, resource()),
    DecisionCache.key({ ...alice, groups: ['system:authenticated'] }, resource()),
    DecisionCache.key({ ...alice, groups: ['dev\0system:authenticated'] }, resource()),
    DecisionCache.key(alice, resource({ verb: 'list' })),
    DecisionCache.key(alice, resource({ apiGroup: 'apps' })),
    DecisionCache.key(alice, resource({ resource: 'secrets' })),
    DecisionCache.key(alice, resource({ subresource: 'status' })),
    DecisionCache.key(alice, resource({ namespace: 'b' })),
    DecisionCache.key(alice, resource({ isResourceRequest: false, path: '/apis' })),
  ]) {
    assert.notEqual(other, base);
  }
  // The version and the user's uid and extra do not change what RBAC decides.
  assert.equal(DecisionCache.key({ ...alice, uid: 'u1' } as typeof alice, resource({ apiVersion: 'v2' })), base);
  assert.notEqual(
    DecisionCache.key(alice, resource({ isResourceRequest: false, path: '/healthz' })),
    DecisionCache.key(alice, resource({ isResourceRequest: false, path: '/livez' })),
  );
});

test('a decision for one name is not another name\'s; an any-name allow answers every name', () => {
  const cache = new DecisionCache();
  cache.set(alice, resource({ name: 'x' }), { decision: 'allow', reason: 'by name' }, false);
  assert.deepEqual(cache.get(alice, resource({ name: 'x' })), { decision: 'allow', reason: 'by name' });
  assert.equal(cache.get(alice, resource({ name: 'y' })), undefined);
  // The nameless request (a create) is an entry of its own, not an any-name answer.
  cache.set(alice, resource({ name: '' }), { decision: 'noOpinion' }, false);
  assert.equal(cache.get(alice, resource({ name: 'y' })), undefined);
  cache.set(alice, resource({ name: 'z' }), { decision: 'allow', reason: 'any' }, true);
  assert.deepEqual(cache.get(alice, resource({ name: 'y' })), { decision: 'allow', reason: 'any' });
  assert.equal(cache.get({ ...alice, name: 'bob' }, resource({ name: 'y' })), undefined);
});

test('clear forgets every decision; a full cache starts over instead of growing', () => {
  const cache = new DecisionCache();
  cache.set(alice, resource(), { decision: 'allow' }, false);
  assert.deepEqual(cache.get(alice, resource()), { decision: 'allow' });
  cache.clear();
  assert.equal(cache.get(alice, resource()), undefined);
  for (let i = 0; i < 10_001; i++) cache.set(alice, resource({ name: `k${i}` }), { decision: 'noOpinion' }, false);
  assert.equal(cache.get(alice, resource({ name: 'k0' })), undefined);
  assert.deepEqual(cache.get(alice, resource({ name: 'k10000' })), { decision: 'noOpinion' });
});
