/**
 * The CEL of JWT authenticators in Kubernetes' environment (src/cel): the Kubernetes libraries
 * compile and run in claim mappings and rules, regular expressions are RE2 (linear time, Go's
 * syntax), an evaluation is bounded by the per-call cost limit, compile errors are cel-go's, and a
 * runtime error fails the token as upstream's authenticator words and orders it. Tokens are real
 * (jose-signed) and go through the real verifier; only the key fetch is left out.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLocalJWKSet, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { fieldErrorText } from '../../src/api/errors.ts';
import { decodeAuthenticationConfig, type JwtAuthenticatorSpec } from '../../src/auth/authn/jwt/authentication-config.ts';
import { validateAuthenticationConfig } from '../../src/auth/authn/jwt/authentication-config-validation.ts';
import type { IssuerKeys } from '../../src/auth/authn/jwt/issuer-keys.ts';
import { jwtUserVerifier } from '../../src/auth/authn/jwt/jwt-authenticator.ts';

const ISS = 'https://issuer.test';
const HEAD = 'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\n';

/** Decodes and validates one authenticator (YAML under the list item); returns its spec and problems. */
function authenticator(rest: string): { spec: JwtAuthenticatorSpec; problems: string[] } {
  const config = decodeAuthenticationConfig(`${HEAD}jwt:\n- issuer: {url: "${ISS}", audiences: [c]}\n${rest}`);
  const problems = validateAuthenticationConfig(config, []).map((e) => `${e.field}: ${fieldErrorText(e)}`);
  return { spec: config.jwt[0]!, problems };
}

/** A verifier for a valid authenticator, and a signer of its tokens. */
async function issuer(rest: string) {
  const { spec, problems } = authenticator(rest);
  assert.deepEqual(problems, []);
  const pair = await generateKeyPair('RS256');
  const jwks = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k', alg: 'RS256' }] };
  const keys = { keys: createLocalJWKSet(jwks), refresh: async () => undefined } as unknown as IssuerKeys;
  const verifier = jwtUserVerifier({ spec, signingAlgs: ['RS256'], keys });
  const sign = (claims: Record<string, unknown>) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k' }).setIssuer(ISS).setAudience('c').setExpirationTime('5m').sign(pair.privateKey);
  return { user: async (claims: Record<string, unknown>) => verifier.verifyUser(await sign(claims)) };
}

const ANTLR_EOF = "Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";

describe('AuthenticationConfiguration CEL: compiling', () => {
  it('the Kubernetes libraries compile in mappings and rules (regex, lists, url, ip, quantity, sets, optionals)', () => {
    const { problems } = authenticator(
      '  claimMappings:\n' +
        '    username: {expression: "claims.?preferred_username.orValue(claims.sub)"}\n' +
        '    groups: {expression: "claims.groups.sortBy(g, g)"}\n' +
        '    extra: [{key: example.org/host, valueExpression: "url(claims.iss).getHost()"}]\n' +
        '  claimValidationRules:\n' +
        "  - expression: \"claims.email.matches('^[a-z]+@example\\\\\\\\.com$') && claims.email_verified == true\"\n" +
        '  - expression: "claims.groups.isSorted()"\n' +
        "  - expression: \"ip(claims.ip).family() == 4 && quantity(claims.quota).isLessThan(quantity('1Gi'))\"\n" +
        "  - expression: \"sets.contains(claims.groups, ['dev'])\"\n" +
        '  userValidationRules:\n' +
        "  - expression: \"user.groups.isSorted() && !user.username.startsWith('system:')\"\n",
    );
    assert.deepEqual(problems, []);
  });

  it("compile errors are cel-go's: unknown functions, wrong overloads, bad regex literals, unknown user fields", () => {
    const { problems } = authenticator(
      '  claimMappings:\n' +
        '    username: {expression: "claims.sub.frobnicate()"}\n' +
        '    uid: {expression: "url(1)"}\n' +
        '    groups: {expression: "claims.groups +"}\n' +
        "  claimValidationRules: [{expression: \"claims.email.matches('[')\"}]\n" +
        '  userValidationRules: [{expression: "user.username.startsWith(1)"}, {expression: "user.nickname == \'\'"}]\n',
    );
    assert.deepEqual(problems, [
      "jwt[0].claimValidationRules[0].expression: Invalid value: \"claims.email.matches('[')\": compilation failed: ERROR: <input>:1:22: invalid matches argument\n | claims.email.matches('[')\n | .....................^",
      "jwt[0].claimMappings.username.expression: Invalid value: \"claims.sub.frobnicate()\": compilation failed: ERROR: <input>:1:22: undeclared reference to 'frobnicate' (in container '')\n | claims.sub.frobnicate()\n | .....................^",
      `jwt[0].claimMappings.groups.expression: Invalid value: "claims.groups +": compilation failed: ERROR: <input>:1:16: ${ANTLR_EOF}\n | claims.groups +\n | ...............^`,
      "jwt[0].claimMappings.uid.expression: Invalid value: \"url(1)\": compilation failed: ERROR: <input>:1:4: found no matching overload for 'url' applied to '(int)'\n | url(1)\n | ...^",
      "jwt[0].userValidationRules[0].expression: Invalid value: \"user.username.startsWith(1)\": compilation failed: ERROR: <input>:1:25: found no matching overload for 'startsWith' applied to 'string.(int)'\n | user.username.startsWith(1)\n | ........................^",
      "jwt[0].userValidationRules[1].expression: Invalid value: \"user.nickname == ''\": compilation failed: ERROR: <input>:1:5: undefined field 'nickname'\n | user.nickname == ''\n | ....^",
    ]);
  });

  it('a rule must be typed bool: a claim is dyn, a string is a string (upstream names only the type wanted)', () => {
    const { problems } = authenticator(
      '  claimMappings: {username: {claim: sub, prefix: ""}}\n' +
        '  claimValidationRules: [{expression: claims.admin}, {expression: "claims[\'admin\']"}, {expression: "claims.sub.lowerAscii()"}]\n' +
        '  userValidationRules: [{expression: user.username}]\n',
    );
    assert.deepEqual(problems, [
      'jwt[0].claimValidationRules[0].expression: Invalid value: "claims.admin": must evaluate to bool',
      'jwt[0].claimValidationRules[1].expression: Invalid value: "claims[\'admin\']": must evaluate to bool',
      'jwt[0].claimValidationRules[2].expression: Invalid value: "claims.sub.lowerAscii()": must evaluate to bool',
      'jwt[0].userValidationRules[0].expression: Invalid value: "user.username": must evaluate to bool',
    ]);
  });
});

describe('AuthenticationConfiguration CEL: evaluating per token', () => {
  it('regular expressions are RE2: Go syntax such as (?i) works, and a catastrophic pattern finishes at once', async () => {
    const idp = await issuer(
      '  claimMappings: {username: {expression: "claims.email"}}\n' +
        '  claimValidationRules:\n' +
        "  - {expression: \"claims.email.matches('(?i)^[a-z]+@example\\\\\\\\.com$') && claims.email_verified\", message: not ours}\n" +
        "  - {expression: \"!claims.?nick.orValue('').matches('^(a+)+$')\", message: nick}\n",
    );
    assert.equal((await idp.user({ email: 'Alice@Example.COM', email_verified: true }))?.name, 'Alice@Example.COM');
    await assert.rejects(idp.user({ email: 'alice@example.org', email_verified: true }), {
      message: "oidc: error evaluating claim validation expression: validation expression 'claims.email.matches('(?i)^[a-z]+@example\\\\.com$') && claims.email_verified' failed: not ours",
    });
    // Exponential for a backtracking engine; linear for RE2.
    const started = Date.now();
    assert.equal((await idp.user({ email: 'bob@example.com', email_verified: true, nick: `${'a'.repeat(5000)}!` }))?.name, 'bob@example.com');
    assert.ok(Date.now() - started < 5000, 'the catastrophic pattern took too long');
  });

  it('list and URL functions map groups and extra; user rules see the mapped user', async () => {
    const idp = await issuer(
      '  claimMappings:\n' +
        '    username: {expression: "\'oidc:\' + claims.sub"}\n' +
        "    groups: {expression: \"claims.roles.sortBy(r, r).map(r, 'role:' + r)\"}\n" +
        '    extra: [{key: example.org/host, valueExpression: "url(claims.iss).getHost()"}]\n' +
        '  claimValidationRules: [{expression: "claims.roles.isSorted()", message: unsorted roles}]\n' +
        "  userValidationRules: [{expression: \"user.groups.all(g, g.startsWith('role:')) && user.extra['example.org/host'] == ['issuer.test']\", message: odd user}]\n",
    );
    assert.deepEqual(await idp.user({ sub: 'u1', roles: ['admin', 'dev'] }), {
      name: 'oidc:u1',
      groups: ['role:admin', 'role:dev'],
      extra: { 'example.org/host': ['issuer.test'] },
    });
    await assert.rejects(idp.user({ sub: 'u1', roles: ['dev', 'admin'] }), {
      message: "oidc: error evaluating claim validation expression: validation expression 'claims.roles.isSorted()' failed: unsorted roles",
    });
  });

  it('an evaluation error fails the token in the words of its mapping; extra errors come unprefixed, as upstream', async () => {
    const idp = await issuer(
      '  claimMappings:\n' +
        '    username: {expression: claims.sub}\n' +
        '    uid: {expression: "string(claims.n / claims.d)"}\n' +
        '    extra: [{key: example.org/a, valueExpression: claims.a}, {key: example.org/b, valueExpression: claims.b}]\n',
    );
    assert.deepEqual(await idp.user({ sub: 'u', n: 6, d: 3, a: 'x', b: ['y', ''] }), { name: 'u', groups: [], uid: '2', extra: { 'example.org/a': ['x'], 'example.org/b': ['y'] } });
    await assert.rejects(idp.user({ n: 1, d: 1, a: 'x', b: 'y' }), {
      message: "oidc: error evaluating username claim expression: expression 'claims.sub' resulted in error: no such key: sub",
    });
    await assert.rejects(idp.user({ sub: 'u', n: 1, d: 0, a: 'x', b: 'y' }), {
      message: "oidc: error evaluating uid claim expression: expression 'string(claims.n / claims.d)' resulted in error: division by zero",
    });
    // Every extra expression is evaluated before any value is judged: b's error wins over a's type.
    await assert.rejects(idp.user({ sub: 'u', n: 1, d: 1, a: 7 }), { message: "expression 'claims.b' resulted in error: no such key: b" });
    await assert.rejects(idp.user({ sub: 'u', n: 1, d: 1, a: 7, b: 'y' }), {
      message: 'oidc: error evaluating extra claim expression: claims.a: expression must return a string or a list of strings',
    });
  });

  it('claim validation rules: all are evaluated before any is judged, so an error beats an earlier false rule', async () => {
    const idp = await issuer(
      '  claimMappings: {username: {claim: sub, prefix: ""}}\n' +
        "  claimValidationRules: [{expression: \"claims.tier != 'banned'\", message: banned}, {expression: \"claims.level > 2\", message: too low}]\n",
    );
    assert.equal((await idp.user({ sub: 'u', tier: 'gold', level: 3 }))?.name, 'u');
    await assert.rejects(idp.user({ sub: 'u', tier: 'gold', level: 1 }), {
      message: "oidc: error evaluating claim validation expression: validation expression 'claims.level > 2' failed: too low",
    });
    await assert.rejects(idp.user({ sub: 'u', tier: 'banned' }), {
      message: "oidc: error evaluating claim validation expression: expression 'claims.level > 2' resulted in error: no such key: level",
    });
    await assert.rejects(idp.user({ sub: 'u', tier: 'banned', level: 3 }), {
      message: "oidc: error evaluating claim validation expression: validation expression 'claims.tier != 'banned'' failed: banned",
    });
  });

  it('an evaluation beyond the per-call cost limit fails the token with cel-go\'s text', async () => {
    const idp = await issuer(
      '  claimMappings: {username: {claim: sub, prefix: ""}}\n' +
        '  claimValidationRules: [{expression: "claims.xs.all(x, claims.xs.all(y, x + y >= 0))"}]\n',
    );
    assert.equal((await idp.user({ sub: 'u', xs: [1, 2, 3] }))?.name, 'u');
    const xs = Array.from({ length: 1000 }, (_, i) => i);
    await assert.rejects(idp.user({ sub: 'u', xs }), {
      message: "oidc: error evaluating claim validation expression: expression 'claims.xs.all(x, claims.xs.all(y, x + y >= 0))' resulted in error: operation cancelled: actual cost limit exceeded",
    });
  });

  it('JSON numbers are ints when integral, doubles otherwise, as kube-apiserver decodes claims', async () => {
    const idp = await issuer(
      '  claimMappings: {username: {claim: sub, prefix: ""}}\n' +
        "  claimValidationRules: [{expression: \"type(claims.i) == int && type(claims.f) == double && claims.i + 1 == 8\", message: types}]\n",
    );
    assert.equal((await idp.user({ sub: 'u', i: 7, f: 1.5 }))?.name, 'u');
  });
});
