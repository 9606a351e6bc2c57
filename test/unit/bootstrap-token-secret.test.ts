import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseBootstrapToken, readBootstrapTokenSecret } from '../../src/auth/authn/bootstrap-token-secret.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const tokenSecret = (name: string, data: Record<string, string>, namespace = 'kube-system') => ({
  apiVersion: 'v1',
  kind: 'Secret',
  type: 'bootstrap.kubernetes.io/token',
  metadata: { name, namespace },
  data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
});
const NOW = new Date('2026-01-01T00:00:00Z');

test('a well-formed bootstrap token Secret reads as its token', () => {
  const read = readBootstrapTokenSecret(
    tokenSecret('bootstrap-token-abcdef', {
      'token-id': 'abcdef',
      'token-secret': '0123456789abcdef',
      description: 'join',
      expiration: '2026-06-01T00:00:00Z',
      'usage-bootstrap-authentication': 'true',
      'usage-bootstrap-signing': 'true',
      'auth-extra-groups': 'system:bootstrappers:kubeadm:default-node-token',
    }),
    NOW,
  );
  assert.deepEqual(read.problems, []);
  assert.equal(read.token?.id, 'abcdef');
  assert.equal(read.token?.authentication, true);
  assert.deepEqual(read.token?.extraGroups, ['system:bootstrappers:kubeadm:default-node-token']);
  assert.equal(read.token?.expiration?.toISOString(), '2026-06-01T00:00:00.000Z');
});

test('every broken rule is named: id, name, secret, expiry, groups, namespace', () => {
  const read = readBootstrapTokenSecret(
    tokenSecret('bootstrap-token-zzzzzz', { 'token-id': 'abcdef', 'token-secret': 'short', expiration: '2025-01-01T00:00:00Z', 'auth-extra-groups': 'system:nodes' }, 'default'),
    NOW,
  );
  assert.deepEqual(read.problems, [
    'bootstrap token Secrets are read only in the kube-system namespace',
    'the name must be bootstrap-token-abcdef',
    'data[token-secret] must be 16 characters of [a-z0-9]',
    'the token expired at 2025-01-01T00:00:00Z',
    'data[auth-extra-groups]: "system:nodes" must start with system:bootstrappers: and match ^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$',
  ]);
  assert.equal(read.token, undefined);
  assert.deepEqual(readBootstrapTokenSecret(tokenSecret('bootstrap-token-x', {}), NOW).problems, ['data[token-id] is required', 'data[token-secret] is required']);
});

test('bearer tokens of bootstrap form', () => {
  assert.deepEqual(parseBootstrapToken('abcdef.0123456789abcdef'), { id: 'abcdef', secret: '0123456789abcdef' });
  assert.equal(parseBootstrapToken('ABCDEF.0123456789abcdef'), undefined);
  assert.equal(parseBootstrapToken('abcdef0123456789abcdef'), undefined);
});
