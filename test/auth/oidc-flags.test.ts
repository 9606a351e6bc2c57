/**
 * --oidc-* flags end to end: the server discovers a loopback https issuer (its own CA via
 * --oidc-ca-file), fetches its key set, and authenticates ID tokens signed with that key. The user
 * name is read back from AlwaysDeny's 403 message.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { makeTestCa } from '../helpers/test-ca.ts';
import { usernamePrefix } from '../../src/auth/authn/jwt/oidc-flags.ts';

let issuerServer: https.Server;
let issuer: string;
let privateKey: CryptoKey;
let srv: TestServer;

async function startIssuer(): Promise<{ caFile: string; dir: string }> {
  const ca = await makeTestCa('oidc-test-ca');
  const leaf = await ca.issue({ commonName: '127.0.0.1', ipAddresses: ['127.0.0.1'], usage: 'server' });
  const pair = await generateKeyPair('RS256');
  privateKey = pair.privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  issuerServer = https.createServer({ cert: leaf.certPem, key: leaf.keyPem }, (req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/.well-known/openid-configuration') res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
    else if (req.url === '/jwks') res.end(JSON.stringify({ keys: [jwk] }));
    else res.writeHead(404).end('{}');
  });
  await new Promise<void>((r) => issuerServer.listen(0, '127.0.0.1', r));
  issuer = `https://127.0.0.1:${(issuerServer.address() as AddressInfo).port}`;
  const dir = (await import('node:os')).tmpdir();
  const caFile = path.join(dir, `oidc-ca-${process.pid}.crt`);
  await writeFile(caFile, ca.certPem);
  return { caFile, dir };
}

function token(claims: Record<string, unknown>, opts: { iss?: string; aud?: string; exp?: number } = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ tier: 'gold', ...claims })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setIssuer(opts.iss ?? issuer)
    .setAudience(opts.aud ?? 'my-client')
    .setIssuedAt(now)
    .setExpirationTime(opts.exp ?? now + 600)
    .sign(privateKey);
}

function get(bearer: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(`${srv.url}/api/v1/namespaces`, { agent: srv.anonymousAgent, headers: { authorization: `Bearer ${bearer}` } }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('OIDC flags', () => {
  before(async () => {
    const { caFile } = await startIssuer();
    srv = await startTestServer([
      `--oidc-issuer-url=${issuer}`,
      '--oidc-client-id=my-client',
      `--oidc-ca-file=${caFile}`,
      '--oidc-groups-claim=groups',
      '--oidc-groups-prefix=oidc:',
      '--oidc-required-claim=tier=gold',
      '--authorization-mode=AlwaysDeny',
    ]);
    // Discovery runs in the background: wait until a valid token is no longer refused.
    const t = await token({ sub: 'alice' });
    for (let i = 0; i < 100 && (await get(t)).status === 401; i++) await new Promise((r) => setTimeout(r, 100));
  });
  after(async () => {
    await srv?.stop();
    issuerServer?.close();
  });

  it('a valid token names the user with the issuer prefix', async () => {
    const res = await get(await token({ sub: 'alice', groups: ['dev'] }));
    assert.equal(res.status, 403, res.body);
    assert.match(res.body, new RegExp(`User \\\\?"${issuer.replace(/[.]/g, '\\.')}#alice\\\\?" cannot list`));
  });

  it('an expired token is 401', async () => {
    const now = Math.floor(Date.now() / 1000);
    assert.equal((await get(await token({ sub: 'alice' }, { exp: now - 10 }))).status, 401);
  });

  it('another issuer is not this authenticator: 401 overall', async () => {
    assert.equal((await get(await token({ sub: 'alice' }, { iss: 'https://elsewhere.example' }))).status, 401);
  });

  it('a wrong audience is 401', async () => {
    assert.equal((await get(await token({ sub: 'alice' }, { aud: 'other' }))).status, 401);
  });

  it('a missing required claim is 401', async () => {
    assert.equal((await get(await token({ sub: 'alice', tier: 'silver' }))).status, 401);
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
