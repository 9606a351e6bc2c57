import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { test } from 'node:test';
import { unauthorized } from '../../src/api/errors.ts';
import { authenticateUnion } from '../../src/auth/authn/authenticate.ts';
import type { Authenticator } from '../../src/auth/authn/authenticator.ts';

// Authentication methods have no real part to stand in for here: these fakes answer as each kind of method can.
const req = {} as IncomingMessage;
const refuses: Authenticator = { name: 'refuses', authenticate: () => Promise.reject(unauthorized()) };
const noOpinion: Authenticator = { name: 'none', authenticate: () => null };
const alice: Authenticator = { name: 'alice', authenticate: () => ({ name: 'alice', groups: [] }) };
const bob: Authenticator = { name: 'bob', authenticate: async () => ({ name: 'bob', groups: [] }) };

test('a failing method does not stop a later one from succeeding', async () => {
  const result = await authenticateUnion([refuses, alice], req);
  assert.equal(result.user?.name, 'alice');
});

test('the first method that succeeds wins', async () => {
  assert.equal((await authenticateUnion([noOpinion, bob, alice], req)).user?.name, 'bob');
});

test('no success: the failures are reported, and no failures means no credentials', async () => {
  const failed = await authenticateUnion([noOpinion, refuses], req);
  assert.equal(failed.user, null);
  assert.equal(failed.failures.length, 1);
  const none = await authenticateUnion([noOpinion], req);
  assert.equal(none.user, null);
  assert.deepEqual(none.failures, []);
});
