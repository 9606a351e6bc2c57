/**
 * --authentication-config end to end: a real server trusting two real OpenID providers through the
 * file, one mapped by claims (with prefixes, several audiences, the uid claim) and one by CEL
 * expressions (with extra, claim and user validation rules, found through its discoveryURL). Every
 * way a token is refused is a 401; a file that cannot be used is a start error.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { jwtFor, writeAuthenticationConfig } from '../helpers/authentication-config-file.ts';
import { OTHER_CLIENT_ID, startOidcProvider, withBrokenSignature, type OidcProvider } from '../helpers/oidc-provider.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { untilAuthenticated, whoami } from '../helpers/whoami.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'pgkube-authn-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('--authentication-config with two issuers', () => {
  let byClaim: OidcProvider;
  let byExpression: OidcProvider;
  let srv: TestServer;

  before(async () => {
    [byClaim, byExpression] = await Promise.all([startOidcProvider(), startOidcProvider()]);
    // The second issuer is found only through its discoveryURL.
    byExpression.hideStandardDiscovery(true);
    const file = path.join(dir, 'two-issuers.yaml');
    writeAuthenticationConfig(file, {
      jwt: [
        jwtFor(
          byClaim,
          {
            claimMappings: { username: { claim: 'sub', prefix: 'claim:' }, groups: { claim: 'groups', prefix: 'g:' }, uid: { claim: 'oid' } },
            claimValidationRules: [{ claim: 'hd', requiredValue: 'example.org' }],
          },
          { audiences: [byClaim.clientId, OTHER_CLIENT_ID], audienceMatchPolicy: 'MatchAny' },
        ),
        jwtFor(
          byExpression,
          {
            claimMappings: {
              username: { expression: "'expr:' + claims.sub" },
              groups: { expression: "claims.roles.map(r, 'role:' + r)" },
              uid: { expression: "claims.sub + '-uid'" },
              extra: [{ key: 'example.org/tier', valueExpression: 'claims.tier' }],
            },
            claimValidationRules: [{ expression: "claims.tier != 'banned'", message: 'banned tier' }],
            userValidationRules: [{ expression: "!user.username.startsWith('expr:system:')", message: 'no system names' }],
          },
          { discoveryURL: byExpression.altDiscoveryUrl },
        ),
      ],
    });
    srv = await startTestServer([`--authentication-config=${file}`]);
    await Promise.all([
      untilAuthenticated(srv, await byClaim.idToken({ sub: 'x', hd: 'example.org', oid: 'u' })),
      untilAuthenticated(srv, await byExpression.idToken({ sub: 'x', roles: [], tier: 'gold' })),
    ]);
  });
  after(async () => {
    await srv?.stop();
    await Promise.all([byClaim?.close(), byExpression?.close()]);
  });

  const expressionClaims = { sub: 'bob', roles: ['admin', 'dev'], tier: 'gold' };

  it('maps username, groups and uid by claim, with the prefixes', async () => {
    const res = await whoami(srv, await byClaim.idToken({ sub: 'alice', groups: ['dev'], hd: 'example.org', oid: 'alice-id' }));
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.user, { username: 'claim:alice', uid: 'alice-id', groups: ['g:dev', 'system:authenticated'] });
  });

  it('accepts any of several audiences (MatchAny)', async () => {
    const res = await whoami(srv, await byClaim.idToken({ sub: 'alice', hd: 'example.org', oid: 'a' }, { clientId: OTHER_CLIENT_ID }));
    assert.equal(res.status, 201, res.text);
  });

  it('maps username, groups, uid and extra by expression; jti becomes the credential id', async () => {
    const res = await whoami(srv, await byExpression.idToken({ ...expressionClaims, jti: 'token-1' }));
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.user, {
      username: 'expr:bob',
      uid: 'bob-uid',
      groups: ['role:admin', 'role:dev', 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/credential-id': ['JTI=token-1'], 'example.org/tier': ['gold'] },
    });
  });

  const refused: [string, () => Promise<string>][] = [
    ['a token for an audience the issuer is not configured with', () => byExpression.idToken(expressionClaims, { clientId: OTHER_CLIENT_ID })],
    ['an expired token', () => byExpression.idToken(expressionClaims, { expiresIn: -60 })],
    ['a token whose signature was altered', async () => withBrokenSignature(await byExpression.idToken(expressionClaims))],
    ['a token signed with a key the issuer does not publish', () => byExpression.unpublishedKeyToken(expressionClaims)],
    ['a failed claim validation expression', () => byExpression.idToken({ ...expressionClaims, tier: 'banned' })],
    ['a failed user validation expression', () => byExpression.idToken({ ...expressionClaims, sub: 'system:admin' })],
    ['a required claim with another value', () => byClaim.idToken({ sub: 'alice', hd: 'evil.org', oid: 'a' })],
    ['a missing uid claim', () => byClaim.idToken({ sub: 'alice', hd: 'example.org' })],
    ['a mapping expression that fails (no such claim)', () => byExpression.idToken({ sub: 'bob', tier: 'gold' })],
    ['an extra expression of the wrong type', () => byExpression.idToken({ ...expressionClaims, tier: 7 })],
  ];
  for (const [name, token] of refused) {
    it(`refuses ${name}: 401`, async () => {
      const res = await whoami(srv, await token());
      assert.equal(res.status, 401, res.text);
      assert.equal(res.text.includes('Unauthorized'), true);
    });
  }
});

describe('--authentication-config start errors', () => {
  const file = path.join(dir, 'start.yaml');

  it('a file that does not validate: every problem, upstream\'s words', async () => {
    writeAuthenticationConfig(file, {
      jwt: [{ issuer: { url: 'http://idp.example', audiences: ['k'] }, claimMappings: { username: { expression: 'claims.sub +' } } }],
    });
    await assert.rejects(startTestServer([`--authentication-config=${file}`]), (err: Error) => {
      assert.equal(
        err.message,
        'invalid authentication configuration: [jwt[0].issuer.url: Invalid value: "http://idp.example": URL scheme must be https, ' +
          `jwt[0].claimMappings.username.expression: Invalid value: "claims.sub +": compilation failed: ERROR: <input>:1:13: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | claims.sub +\n | ............^]`,
      );
      return true;
    });
  });

  it('a missing file', async () => {
    const missing = path.join(dir, 'missing.yaml');
    await assert.rejects(startTestServer([`--authentication-config=${missing}`]), {
      message: `failed to load authentication configuration from file "${missing}": open ${missing}: no such file or directory`,
    });
  });

  it('an unknown field', async () => {
    writeAuthenticationConfig(file, { jwt: [{ issuer: { url: 'https://idp.example', audience: ['k'] } }] });
    await assert.rejects(startTestServer([`--authentication-config=${file}`]), {
      message: `failed to load authentication configuration from file "${file}": strict decoding error: unknown field "jwt[0].issuer.audience"`,
    });
  });

  it('anonymous in the file and --anonymous-auth given', async () => {
    writeAuthenticationConfig(file, { anonymous: { enabled: true } });
    await assert.rejects(startTestServer([`--authentication-config=${file}`, '--anonymous-auth=true']), {
      message: 'anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file',
    });
  });

  it('the --oidc-* flags with the file', async () => {
    writeAuthenticationConfig(file, { jwt: [] });
    await assert.rejects(startTestServer([`--authentication-config=${file}`, '--oidc-issuer-url=https://idp.example', '--oidc-client-id=c']), {
      message: 'authentication-config file and oidc-* flags are mutually exclusive',
    });
  });
});
