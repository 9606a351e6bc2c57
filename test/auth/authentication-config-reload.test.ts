/**
 * --authentication-config is read again when the file changes: a valid file replaces the JWT
 * authenticators once its issuers are discovered; a file that does not validate, or that changes
 * `anonymous`, is logged and the previous authenticators stay. The log names the problem, never a
 * token.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { jwtFor, writeAuthenticationConfig } from '../helpers/authentication-config-file.ts';
import { startOidcProvider, type OidcProvider } from '../helpers/oidc-provider.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { untilAuthenticated, whoami } from '../helpers/whoami.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'pgkube-authn-reload-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('--authentication-config reload', () => {
  const file = path.join(dir, 'authn.yaml');
  const logs: { msg: string; err?: string; file?: string }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  let a: OidcProvider;
  let b: OidcProvider;
  let srv: TestServer;
  let tokenA: string;
  let tokenB: string;
  const mapping = (prefix: string) => ({ claimMappings: { username: { claim: 'sub', prefix } } });

  /** Waits for a log line with `msg` written after `from` lines. */
  async function logged(msg: string, from: number): Promise<{ msg: string; err?: string }> {
    for (let i = 0; i < 200; i++) {
      const line = logs.slice(from).find((l) => l.msg.startsWith(msg));
      if (line) return line;
      await sleep(50);
    }
    assert.fail(`no "${msg}" in the log:\n${logs.slice(from).map((l) => l.msg).join('\n')}`);
  }

  before(async () => {
    [a, b] = await Promise.all([startOidcProvider(), startOidcProvider()]);
    writeAuthenticationConfig(file, { jwt: [jwtFor(a, mapping('a:'))] });
    srv = await startTestServer([`--authentication-config=${file}`], { logger });
    [tokenA, tokenB] = await Promise.all([a.idToken({ sub: 'alice' }, { expiresIn: 3000 }), b.idToken({ sub: 'bob' }, { expiresIn: 3000 })]);
    assert.equal((await untilAuthenticated(srv, tokenA)).user?.username, 'a:alice');
  });
  after(async () => {
    await srv?.stop();
    await Promise.all([a?.close(), b?.close()]);
  });

  it('a token of an issuer the file does not name is 401', async () => {
    assert.equal((await whoami(srv, tokenB)).status, 401);
  });

  it('adding an issuer to the file makes its tokens authenticate', async () => {
    const from = logs.length;
    writeAuthenticationConfig(file, { jwt: [jwtFor(a, mapping('a:')), jwtFor(b, mapping('b:'))] });
    assert.equal((await untilAuthenticated(srv, tokenB)).user?.username, 'b:bob');
    assert.equal((await whoami(srv, tokenA)).user?.username, 'a:alice');
    await logged('reloaded authentication config', from);
  });

  it('a file that does not validate is logged and the previous authenticators stay', async () => {
    const from = logs.length;
    writeAuthenticationConfig(file, { jwt: [jwtFor(a, mapping('a:'), { url: 'http://idp.example' })] });
    const line = await logged('failed to validate authentication config', from);
    assert.match(line.err ?? '', /jwt\[0\]\.issuer\.url: Invalid value: "http:\/\/idp\.example": URL scheme must be https/);
    assert.equal((await whoami(srv, tokenA)).status, 201);
    assert.equal((await whoami(srv, tokenB)).status, 201);
    const text = JSON.stringify(logs.slice(from));
    assert.ok(!text.includes(tokenA) && !text.includes(tokenB), 'no token in the log');
  });

  it('a file that changes anonymous is refused, as upstream (anonymous needs a restart)', async () => {
    const from = logs.length;
    writeAuthenticationConfig(file, { jwt: [jwtFor(b, mapping('b:'))], anonymous: { enabled: false } });
    const line = await logged('failed to validate authentication config', from);
    assert.equal(line.err, 'anonymous: Forbidden: changed from initial configuration file');
    assert.equal((await whoami(srv, tokenA)).status, 201);
  });

  it('removing an issuer makes its tokens 401', async () => {
    const from = logs.length;
    writeAuthenticationConfig(file, { jwt: [jwtFor(b, mapping('b2:'))] });
    await logged('reloaded authentication config', from);
    assert.equal((await whoami(srv, tokenA)).status, 401);
    assert.equal((await whoami(srv, tokenB)).user?.username, 'b2:bob');
  });

  it('a file that cannot be decoded is logged and kept out', async () => {
    const from = logs.length;
    writeAuthenticationConfig(file, { jwt: [{ issuer: { url: b.issuer, audience: ['x'] } }] });
    const line = await logged('failed to load authentication config', from);
    assert.match(line.err ?? '', /strict decoding error: unknown field "jwt\[0\]\.issuer\.audience"/);
    assert.equal((await whoami(srv, tokenB)).user?.username, 'b2:bob');
  });
});
