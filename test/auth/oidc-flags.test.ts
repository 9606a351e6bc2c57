/**
 * --oidc-* flags end to end against a real OpenID provider on loopback https (its own CA via
 * --oidc-ca-file): the server discovers it, fetches its key set, and authenticates the ID tokens it
 * signs. The user is read back with a SelfSubjectReview.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { usernamePrefix } from '../../src/auth/authn/jwt/oidc-flags.ts';
import { OTHER_CLIENT_ID, startOidcProvider, withBrokenSignature, type OidcProvider } from '../helpers/oidc-provider.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { untilAuthenticated, whoami } from '../helpers/whoami.ts';

let idp: OidcProvider;
let elsewhere: OidcProvider;
let srv: TestServer;

describe('OIDC flags', () => {
  before(async () => {
    [idp, elsewhere] = await Promise.all([startOidcProvider(), startOidcProvider()]);
    srv = await startTestServer([
      `--oidc-issuer-url=${idp.issuer}`,
      `--oidc-client-id=${idp.clientId}`,
      `--oidc-ca-file=${idp.caFile}`,
      '--oidc-groups-claim=groups',
      '--oidc-groups-prefix=oidc:',
      '--oidc-required-claim=tier=gold',
    ]);
    assert.equal((await untilAuthenticated(srv, await idp.idToken({ sub: 'alice', tier: 'gold' }))).status, 201);
  });
  after(async () => {
    await srv?.stop();
    await Promise.all([idp?.close(), elsewhere?.close()]);
  });

  it('a valid token names the user with the issuer prefix and the prefixed groups', async () => {
    const res = await whoami(srv, await idp.idToken({ sub: 'alice', tier: 'gold', groups: ['dev', 'ops'] }));
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.user, { username: `${idp.issuer}#alice`, groups: ['oidc:dev', 'oidc:ops', 'system:authenticated'] });
  });

  it('an expired token is 401', async () => {
    assert.equal((await whoami(srv, await idp.idToken({ sub: 'alice', tier: 'gold' }, { expiresIn: -60 }))).status, 401);
  });

  it('a token of another issuer is not this authenticator\'s: 401 overall', async () => {
    assert.equal((await whoami(srv, await elsewhere.idToken({ sub: 'alice', tier: 'gold' }))).status, 401);
  });

  it('a token for another client is 401', async () => {
    assert.equal((await whoami(srv, await idp.idToken({ sub: 'alice', tier: 'gold' }, { clientId: OTHER_CLIENT_ID }))).status, 401);
  });

  it('a missing or different required claim is 401', async () => {
    assert.equal((await whoami(srv, await idp.idToken({ sub: 'alice', tier: 'silver' }))).status, 401);
    assert.equal((await whoami(srv, await idp.idToken({ sub: 'alice' }))).status, 401);
  });

  it('a token whose signature was altered is 401', async () => {
    // A real provider never signs wrongly: the token is one of its own with the signature bytes changed.
    assert.equal((await whoami(srv, withBrokenSignature(await idp.idToken({ sub: 'alice', tier: 'gold' })))).status, 401);
  });

  it('a token signed with a key the issuer does not publish is 401', async () => {
    assert.equal((await whoami(srv, await idp.unpublishedKeyToken({ sub: 'alice', tier: 'gold' }))).status, 401);
  });

  it('after the issuer rotates its key, tokens of the new key authenticate (the key set is fetched again)', async () => {
    const before = await idp.idToken({ sub: 'alice', tier: 'gold' });
    idp.rotateKeys({ keepOld: true });
    const res = await whoami(srv, await idp.idToken({ sub: 'bob', tier: 'gold' }));
    assert.equal(res.status, 201, res.text);
    assert.equal(res.user?.username, `${idp.issuer}#bob`);
    assert.equal((await whoami(srv, before)).status, 201, 'the old key is still published');
  });
});

describe('username prefix defaulting', () => {
  it('follows upstream', () => {
    assert.equal(usernamePrefix('https://i', 'sub', ''), 'https://i#');
    assert.equal(usernamePrefix('https://i', 'email', ''), '');
    assert.equal(usernamePrefix('https://i', 'sub', '-'), '');
    assert.equal(usernamePrefix('https://i', 'sub', 'p:'), 'p:');
  });
});
