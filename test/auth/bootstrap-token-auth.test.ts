import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pino from 'pino';
import type { StoredKubeObject } from '../../src/api/types.ts';
import { BootstrapTokenAuthenticator } from '../../src/auth/authn/bootstrap-token-authenticator.ts';
import { assertStatus, eventually } from '../helpers/fixtures.ts';
import { client } from '../helpers/http.ts';
import { serveFile } from '../helpers/server.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');

function tokenSecret(id: string, secret: string, extra: Record<string, string> = {}, meta: Record<string, unknown> = {}): StoredKubeObject {
  const data: Record<string, string> = { 'token-id': id, 'token-secret': secret, 'usage-bootstrap-authentication': 'true', ...extra };
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system', uid: 'u', resourceVersion: '1', ...meta },
    type: 'bootstrap.kubernetes.io/token',
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
  } as StoredKubeObject;
}

function authenticatorOver(secrets: StoredKubeObject[], now = new Date('2030-01-01T00:00:00Z')) {
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (l: string) => lines.push(l) });
  const lookup = { get: (ns: string, name: string) => secrets.find((s) => s.metadata.namespace === ns && s.metadata.name === name) };
  return { auth: new BootstrapTokenAuthenticator(lookup, { logger, now: () => now }), lines };
}

describe('bootstrap token checks (unit)', () => {
  test('a good token names system:bootstrap:<id> in system:bootstrappers plus its extra groups, sorted and deduplicated', () => {
    const { auth } = authenticatorOver([
      tokenSecret('abcdef', '0123456789abcdef', { 'auth-extra-groups': 'system:bootstrappers:worker,system:bootstrappers:a,system:bootstrappers:worker', expiration: '2031-01-01T00:00:00Z' }),
    ]);
    assert.deepEqual(auth.verifyUser('abcdef.0123456789abcdef'), {
      name: 'system:bootstrap:abcdef',
      groups: ['system:bootstrappers', 'system:bootstrappers:a', 'system:bootstrappers:worker'],
    });
  });

  test('tokens not of bootstrap form are not this source\'s (null, nothing logged)', () => {
    const { auth, lines } = authenticatorOver([]);
    for (const t of ['abcdef', 'ABCDEF.0123456789abcdef', 'abcdef.0123456789abcde', 'abcdef:0123456789abcdef']) assert.equal(auth.verifyUser(t), null);
    assert.equal(lines.length, 0);
  });

  const refusals: [string, StoredKubeObject, RegExp][] = [
    ['no Secret', tokenSecret('zzzzzz', '0123456789abcdef'), /no Secret/],
    ['a wrong secret', tokenSecret('abcdef', 'ffffffffffffffff'), /invalid value for key token-secret/],
    ['a deleted Secret', tokenSecret('abcdef', '0123456789abcdef', {}, { deletionTimestamp: '2029-01-01T00:00:00Z' }), /deleted/],
    ['a Secret of another type', { ...tokenSecret('abcdef', '0123456789abcdef'), type: 'Opaque' } as StoredKubeObject, /invalid type/],
    ['a token-id that differs', tokenSecret('abcdef', '0123456789abcdef', { 'token-id': 'abcdeg' }), /invalid value for key token-id/],
    ['an expired token', tokenSecret('abcdef', '0123456789abcdef', { expiration: '2029-12-31T23:59:59Z' }), /expired/],
    ['an expiration that cannot be read', tokenSecret('abcdef', '0123456789abcdef', { expiration: 'tomorrow' }), /expired/],
    ['no usage-bootstrap-authentication=true', tokenSecret('abcdef', '0123456789abcdef', { 'usage-bootstrap-authentication': 'yes' }), /usage-bootstrap-authentication=true/],
    ['a bad extra group', tokenSecret('abcdef', '0123456789abcdef', { 'auth-extra-groups': 'system:masters' }), /auth-extra-groups/],
  ];
  for (const [what, secret, reason] of refusals) {
    test(`${what}: no user, a debug line with the reason and never the secret`, () => {
      const { auth, lines } = authenticatorOver([secret]);
      assert.equal(auth.verifyUser('abcdef.0123456789abcdef'), null);
      assert.equal(lines.length, 1);
      assert.match(lines[0]!, reason);
      assert.doesNotMatch(lines[0]!, /0123456789abcdef/);
    });
  }
});

describe('--enable-bootstrap-token-auth (server)', () => {
  const t = serveFile(['--enable-bootstrap-token-auth', '--authorization-mode=AlwaysDeny']);

  test('a token authenticates once its Secret exists, and stops when it is deleted; other tokens are 401', async () => {
    const bearer = (token: string) => client(t.srv.url, t.srv.anonymousAgent).get('/api/v1/namespaces', { Authorization: `Bearer ${token}` });
    assertStatus(await bearer('qwerty.0123456789abcdef'), 401, 'Unauthorized', 'Unauthorized');
    const secret = tokenSecret('qwerty', '0123456789abcdef', { 'auth-extra-groups': 'system:bootstrappers:nodes' });
    const created = await t.api.post('/api/v1/namespaces/kube-system/secrets', { ...secret, metadata: { name: secret.metadata.name } });
    assert.equal(created.status, 201, created.text);
    // The informer sees it shortly; the 403 names the bootstrap user.
    await eventually(async () => (await bearer('qwerty.0123456789abcdef')).status === 403, 'the bootstrap token is accepted');
    assertStatus(
      await bearer('qwerty.0123456789abcdef'),
      403,
      'Forbidden',
      'namespaces is forbidden: User "system:bootstrap:qwerty" cannot list resource "namespaces" in API group "" at the cluster scope: Everything is forbidden.',
    );
    assertStatus(await bearer('qwerty.ffffffffffffffff'), 401, 'Unauthorized');

    const expired = tokenSecret('expird', '0123456789abcdef', { expiration: '2020-01-01T00:00:00Z' });
    assert.equal((await t.api.post('/api/v1/namespaces/kube-system/secrets', { ...expired, metadata: { name: expired.metadata.name } })).status, 201);
    const unusable = tokenSecret('nouse0', '0123456789abcdef', { 'usage-bootstrap-authentication': 'false' });
    assert.equal((await t.api.post('/api/v1/namespaces/kube-system/secrets', { ...unusable, metadata: { name: unusable.metadata.name } })).status, 201);
    // The same Secret in another namespace does not count.
    const elsewhere = tokenSecret('other0', '0123456789abcdef');
    assert.equal((await t.api.post(`/api/v1/namespaces/${t.ns}/secrets`, { ...elsewhere, metadata: { name: elsewhere.metadata.name } })).status, 201);
    // Wait until the informer has seen the last write (a later token that works), then check the rest.
    const probe = tokenSecret('probe0', '0123456789abcdef');
    assert.equal((await t.api.post('/api/v1/namespaces/kube-system/secrets', { ...probe, metadata: { name: probe.metadata.name } })).status, 201);
    await eventually(async () => (await bearer('probe0.0123456789abcdef')).status === 403, 'the probe token is accepted');
    assertStatus(await bearer('expird.0123456789abcdef'), 401, 'Unauthorized');
    assertStatus(await bearer('nouse0.0123456789abcdef'), 401, 'Unauthorized');
    assertStatus(await bearer('other0.0123456789abcdef'), 401, 'Unauthorized');

    assert.equal((await t.api.delete('/api/v1/namespaces/kube-system/secrets/bootstrap-token-qwerty')).status, 200);
    await eventually(async () => (await bearer('qwerty.0123456789abcdef')).status === 401, 'the deleted token is refused');
  });
});
