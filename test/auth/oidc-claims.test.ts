/** The claim checks and mappings of one JWT issuer, without a server: groups, email_verified, not-ours, not initialized. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLocalJWKSet, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { jwtUserVerifier, type JwtAuthenticatorOptions } from '../../src/auth/authn/jwt/jwt-authenticator.ts';
import type { IssuerKeys } from '../../src/auth/authn/jwt/issuer-keys.ts';

const ISS = 'https://issuer.test';

async function setup(overrides: Partial<JwtAuthenticatorOptions> = {}, initialized = true) {
  const pair = await generateKeyPair('RS256');
  const jwks = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k', alg: 'RS256' }] };
  const keys = { keys: initialized ? createLocalJWKSet(jwks) : undefined, refresh: async () => undefined } as unknown as IssuerKeys;
  const verifier = jwtUserVerifier({
    issuer: ISS,
    audiences: ['c'],
    signingAlgs: ['RS256'],
    requiredClaims: new Map(),
    username: { claim: 'sub', prefix: 'p:' },
    groups: { claim: 'groups', prefix: 'g:' },
    keys,
    ...overrides,
  });
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
    const { verifier, sign } = await setup({ username: { claim: 'email', prefix: '' } });
    assert.equal((await verifier.verifyUser(await sign({ email: 'a@x' })))?.name, 'a@x');
    assert.equal((await verifier.verifyUser(await sign({ email: 'a@x', email_verified: true })))?.name, 'a@x');
    await assert.rejects(verifier.verifyUser(await sign({ email: 'a@x', email_verified: false })), /not verified/);
  });

  it('another issuer or a non-JWT is not ours; ours before discovery is not initialized', async () => {
    const { verifier, sign } = await setup();
    assert.equal(await verifier.verifyUser(await sign({ sub: 'a' }, 'https://other')), null);
    assert.equal(await verifier.verifyUser('opaque-token'), null);
    const cold = await setup({}, false);
    await assert.rejects(cold.verifier.verifyUser(await cold.sign({ sub: 'a' })), /not initialized/);
  });

  it('a missing username claim is refused', async () => {
    const { verifier, sign } = await setup();
    await assert.rejects(verifier.verifyUser(await sign({ groups: ['x'] })), /claim not present/);
  });
});
