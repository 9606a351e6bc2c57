/**
 * The claim checks and mappings of one JWT issuer, without a server: groups, email_verified, not-ours,
 * not initialized. The keys are jose's own here (no discovery is involved); test/auth/oidc-*.test.ts
 * and authentication-config*.test.ts run the same code against a real provider.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLocalJWKSet, exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { JwtAuthenticatorSpec, PrefixedClaimOrExpression } from '../../src/auth/authn/jwt/authentication-config.ts';
import { jwtUserVerifier } from '../../src/auth/authn/jwt/jwt-authenticator.ts';
import type { IssuerKeys } from '../../src/auth/authn/jwt/issuer-keys.ts';

const ISS = 'https://issuer.test';

function spec(username: PrefixedClaimOrExpression = { claim: 'sub', prefix: 'p:' }): JwtAuthenticatorSpec {
  return {
    issuer: { url: ISS, audiences: ['c'] },
    claimValidationRules: [],
    claimMappings: { username, groups: { claim: 'groups', prefix: 'g:' }, uid: {}, extra: [] },
    userValidationRules: [],
  };
}

async function setup(s: JwtAuthenticatorSpec = spec(), initialized = true) {
  const pair = await generateKeyPair('RS256');
  const jwks = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k', alg: 'RS256' }] };
  const keys = { keys: initialized ? createLocalJWKSet(jwks) : undefined, refresh: async () => undefined } as unknown as IssuerKeys;
  const verifier = jwtUserVerifier({ spec: s, signingAlgs: ['RS256'], keys });
  const sign = (claims: Record<string, unknown>, iss = ISS) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k' }).setIssuer(iss).setAudience('c').setExpirationTime('5m').sign(pair.privateKey);
  return { verifier, sign };
}

describe('JWT claims', () => {
  it('maps groups from an array or a string, with the prefix; no uid', async () => {
    const { verifier, sign } = await setup();
    assert.deepEqual(await verifier.verifyUser(await sign({ sub: 'a', groups: ['x', 'y'] })), { name: 'p:a', groups: ['g:x', 'g:y'] });
    assert.deepEqual(await verifier.verifyUser(await sign({ sub: 'a', groups: 'x' })), { name: 'p:a', groups: ['g:x'] });
    await assert.rejects(verifier.verifyUser(await sign({ sub: 'a', groups: [1] })));
  });

  it('the email claim needs email_verified true when present', async () => {
    const { verifier, sign } = await setup(spec({ claim: 'email', prefix: '' }));
    assert.equal((await verifier.verifyUser(await sign({ email: 'a@x' })))?.name, 'a@x');
    assert.equal((await verifier.verifyUser(await sign({ email: 'a@x', email_verified: true })))?.name, 'a@x');
    await assert.rejects(verifier.verifyUser(await sign({ email: 'a@x', email_verified: false })), /not verified/);
  });

  it('another issuer or a non-JWT is not ours; ours before discovery is not initialized', async () => {
    const { verifier, sign } = await setup();
    assert.equal(await verifier.verifyUser(await sign({ sub: 'a' }, 'https://other')), null);
    assert.equal(await verifier.verifyUser('opaque-token'), null);
    const cold = await setup(spec(), false);
    await assert.rejects(cold.verifier.verifyUser(await cold.sign({ sub: 'a' })), /not initialized/);
  });

  it('a missing username claim is refused; an empty one is a name, as upstream', async () => {
    const { verifier, sign } = await setup();
    await assert.rejects(verifier.verifyUser(await sign({ groups: ['x'] })), /claim not present/);
    assert.equal((await verifier.verifyUser(await sign({ sub: '' })))?.name, 'p:');
  });
});
