import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { ensurePki } from '../../src/auth/pki/ensure-pki.ts';
import { assertStatus } from '../helpers/fixtures.ts';
import { client } from '../helpers/http.ts';
import { serveFile, startTestServer } from '../helpers/server.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'pgkube-tokenfile-server-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const tokens = path.join(dir, 'tokens.csv');
writeFileSync(tokens, 'alice-token,alice,1001,"dev,qa"\nroot-token,root,0,system:masters\n');

describe('--token-auth-file with --anonymous-auth=false (AlwaysDeny)', () => {
  const t = serveFile([`--token-auth-file=${tokens}`, '--anonymous-auth=false', '--authorization-mode=AlwaysDeny']);
  const withToken = (token: string, agent?: https.Agent) => client(t.srv.url, agent ?? t.srv.anonymousAgent).get('/api/v1/namespaces', { Authorization: `Bearer ${token}` });

  test('a token from the file names its user; its groups count (system:masters passes)', async () => {
    assertStatus(
      await withToken('alice-token'),
      403,
      'Forbidden',
      'namespaces is forbidden: User "alice" cannot list resource "namespaces" in API group "" at the cluster scope: Everything is forbidden.',
    );
    assert.equal((await withToken('root-token')).status, 200);
  });

  test('an unknown token, or one that differs by a character, is a 401', async () => {
    for (const token of ['alice-tokem', 'alice-token2', 'ALICE-TOKEN', 'nobody']) {
      const res = await withToken(token);
      assertStatus(res, 401, 'Unauthorized', 'Unauthorized');
      assert.equal(res.headers['www-authenticate'], 'Basic realm="kubernetes-master"');
    }
  });

  test('--anonymous-auth=false: a request without credentials is a 401, health too', async () => {
    assertStatus(await t.anon.get('/api/v1/namespaces'), 401, 'Unauthorized', 'Unauthorized');
    assertStatus(await t.anon.get('/version'), 401, 'Unauthorized');
    // The admin certificate still works.
    assert.equal((await t.api.get('/api/v1/namespaces')).status, 200);
  });

  test('union: an untrusted client certificate next to a good token authenticates by the token; a good certificate wins over a token', async () => {
    const stranger = await ensurePki({ dir: path.join(dir, 'stranger-pki') });
    // Trusts the server, but presents a certificate from a CA the server does not know.
    const untrusted = new https.Agent({ ca: t.srv.ca, cert: stranger.adminCert.pem, key: stranger.adminKey.pem });
    try {
      assertStatus(await client(t.srv.url, untrusted).get('/api/v1/namespaces'), 401, 'Unauthorized');
      assert.equal((await withToken('root-token', untrusted)).status, 200);
      assertStatus(await withToken('alice-token', untrusted), 403, 'Forbidden', /User "alice"/);
      assertStatus(await withToken('bad-token', untrusted), 401, 'Unauthorized');
    } finally {
      untrusted.destroy();
    }
    // The admin certificate (system:masters) with alice's token: the certificate decides.
    assert.equal((await withToken('alice-token', t.srv.adminAgent)).status, 200);
  });
});

describe('a token file that cannot be used stops the start', () => {
  test('malformed, too few columns, or missing: startServer rejects with a message naming the file', async () => {
    const malformed = path.join(dir, 'malformed.csv');
    writeFileSync(malformed, 'tok,user"x,1\n');
    await assert.rejects(startTestServer([`--token-auth-file=${malformed}`]), { message: `--token-auth-file: ${malformed}: parse error on line 1, column 9: bare " in non-quoted-field` });
    const short = path.join(dir, 'short.csv');
    writeFileSync(short, 'tok,user\n');
    await assert.rejects(startTestServer([`--token-auth-file=${short}`]), { message: /must have at least 3 columns .* found 2 on line 1/ });
    const missing = path.join(dir, 'missing.csv');
    await assert.rejects(startTestServer([`--token-auth-file=${missing}`]), { message: `--token-auth-file: cannot read ${missing}: ENOENT` });
  });
});
