/**
 * The reload rules of --authentication-config without a server: which failures are tried again on
 * the next check (the file cannot be read, an issuer cannot be reached in time) and which wait for
 * the file to change (it does not decode or validate).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import pino from 'pino';
import { AuthenticationConfigFile } from '../../src/auth/authn/jwt/authentication-config-file.ts';
import { writeAuthenticationConfig } from '../helpers/authentication-config-file.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'pgkube-authn-file-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function setup(name: string) {
  const file = path.join(dir, name);
  const logs: { msg: string; err?: string }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  const count = (msg: string) => logs.filter((l) => l.msg.startsWith(msg)).length;
  const load = () => AuthenticationConfigFile.load({ file, apiAudiences: ['api'], serviceAccountIssuers: [], anonymousFlagGiven: false, logger, intervalMs: 100, readyTimeoutMs: 300 });
  return { file, logs, count, load };
}

/** An issuer nothing listens at: discovery never succeeds. */
const unreachable = { issuer: { url: 'https://127.0.0.1:1', audiences: ['k'] }, claimMappings: { username: { claim: 'sub', prefix: '' } } };

describe('authentication config file reloads', () => {
  it('an unreadable file is logged and tried again on every check', async () => {
    const t = setup('unreadable.yaml');
    writeAuthenticationConfig(t.file, { jwt: [] });
    const stop = t.load().start();
    try {
      unlinkSync(t.file);
      await sleep(450);
      assert.ok(t.count('failed to read authentication config file') >= 2, JSON.stringify(t.logs));
    } finally {
      stop();
    }
  });

  it('an issuer that is not discovered in time keeps the previous configuration and is tried again', async () => {
    const t = setup('unreachable.yaml');
    writeAuthenticationConfig(t.file, { jwt: [] });
    const config = t.load();
    const stop = config.start();
    try {
      writeAuthenticationConfig(t.file, { jwt: [unreachable] });
      await sleep(1_200);
      assert.ok(t.count('failed to update authentication config') >= 2, JSON.stringify(t.logs));
      assert.match(t.logs.find((l) => l.msg.startsWith('failed to update'))!.err!, /127\.0\.0\.1:1/);
      assert.equal(t.count('reloaded authentication config'), 0);
    } finally {
      stop();
    }
  });

  it('a file that does not validate is refused once, until it changes again', async () => {
    const t = setup('invalid.yaml');
    writeAuthenticationConfig(t.file, { jwt: [] });
    const stop = t.load().start();
    try {
      writeFileSync(t.file, 'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\njwt: [{issuer: {url: "http://x", audiences: [k]}}]\n');
      await sleep(450);
      assert.equal(t.count('failed to validate authentication config'), 1, JSON.stringify(t.logs));
      writeAuthenticationConfig(t.file, { jwt: [] }, 'apiserver.config.k8s.io/v1beta1');
      await sleep(300);
      assert.equal(t.count('reloaded authentication config'), 1, JSON.stringify(t.logs));
    } finally {
      stop();
    }
  });
});
