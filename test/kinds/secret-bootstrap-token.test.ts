import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openTestRegistry, testContext, type TestRegistry } from '../helpers/registry.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');
let registry: TestRegistry;
before(async () => {
  registry = await openTestRegistry();
});
after(async () => {
  await registry.close();
});

// Kubernetes stores malformed bootstrap token Secrets; this server stores them too and says why they will not authenticate.
test('a malformed bootstrap token Secret is stored with a warning per broken rule', async () => {
  const ctx = testContext();
  const secret = { apiVersion: 'v1', kind: 'Secret', type: 'bootstrap.kubernetes.io/token', metadata: { name: 'bootstrap-token-abcdef' }, data: { 'token-id': b64('abcdef'), 'token-secret': b64('nope') } };
  const stored = await registry.store('secrets').create(ctx, 'kube-system', secret);
  assert.equal(stored.object.type, 'bootstrap.kubernetes.io/token');
  assert.deepEqual(ctx.warnings, ['bootstrap token Secret bootstrap-token-abcdef: data[token-secret] must be 16 characters of [a-z0-9]; it will not authenticate']);
});

test('a well-formed one gets no warning', async () => {
  const ctx = testContext();
  const secret = { apiVersion: 'v1', kind: 'Secret', type: 'bootstrap.kubernetes.io/token', metadata: { name: 'bootstrap-token-ghijkl' }, data: { 'token-id': b64('ghijkl'), 'token-secret': b64('0123456789abcdef'), 'usage-bootstrap-authentication': b64('true') } };
  await registry.store('secrets').create(ctx, 'kube-system', secret);
  assert.deepEqual(ctx.warnings, []);
});
