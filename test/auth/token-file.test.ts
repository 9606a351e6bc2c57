import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { loadTokenFile, parseCsv, parseTokenFile, staticTokenUser, tokenFileVerifier } from '../../src/auth/authn/token-file.ts';

describe('CSV as Go encoding/csv reads it', () => {
  test('quoted fields, doubled quotes, commas and line ends inside quotes, CRLF, blank lines', () => {
    const records = parseCsv('a,b,c\r\n\n"x ""y""",",",z\n"multi\nline",2,3\n  spaced , kept ,\n');
    assert.deepEqual(records, [
      { line: 1, fields: ['a', 'b', 'c'] },
      { line: 3, fields: ['x "y"', ',', 'z'] },
      { line: 4, fields: ['multi\nline', '2', '3'] },
      { line: 6, fields: ['  spaced ', ' kept ', ''] },
    ]);
  });

  test('a last line without a line end, and # is no comment', () => {
    assert.deepEqual(parseCsv('#t,u,1\nt,u,2'), [
      { line: 1, fields: ['#t', 'u', '1'] },
      { line: 2, fields: ['t', 'u', '2'] },
    ]);
  });

  test('a bare quote or a stray character after a closing quote is a parse error naming the line', () => {
    assert.throws(() => parseCsv('a,b,c\nt,u"x,1\n'), { message: 'parse error on line 2, column 4: bare " in non-quoted-field' });
    assert.throws(() => parseCsv('"t"x,u,1\n'), { message: /parse error on line 1, column 3: extraneous or missing " in quoted-field/ });
    assert.throws(() => parseCsv('t,u,1\n"never closed,u,1\n'), { message: /record on line 2; parse error on line 3.*extraneous or missing " in quoted-field/ });
  });
});

describe('token file records', () => {
  test('token, user, uid and groups from the 4th column split at commas', () => {
    const tokens = parseTokenFile('secret1,alice,uid-1,"dev,qa"\nsecret2,bob,,\nsecret3,carol,c,g1,g2\n', 'f.csv');
    assert.deepEqual(staticTokenUser(tokens, 'secret1'), { name: 'alice', uid: 'uid-1', groups: ['dev', 'qa'] });
    assert.deepEqual(staticTokenUser(tokens, 'secret2'), { name: 'bob', groups: [] });
    // Columns after the 4th are groups too (the protocol's "further columns are group names").
    assert.deepEqual(staticTokenUser(tokens, 'secret3'), { name: 'carol', uid: 'c', groups: ['g1', 'g2'] });
    assert.equal(staticTokenUser(tokens, 'secret'), null);
    assert.equal(staticTokenUser(tokens, 'secret1 '), null);
    assert.equal(staticTokenUser(tokens, ''), null);
  });

  test('fewer than 3 columns is an error naming the file and line', () => {
    assert.throws(() => parseTokenFile('t,u,1\nt2,u2\n', '/etc/tokens.csv'), {
      message: "--token-auth-file: token file '/etc/tokens.csv' must have at least 3 columns (token, user name, user uid), found 2 on line 2",
    });
  });

  test('an empty user name is an error naming the line', () => {
    assert.throws(() => parseTokenFile('t,u,1\n\nt2,,2\n', 'f.csv'), { message: /empty user name on line 3/ });
  });

  test('an empty token is skipped with a warning, a duplicate token keeps the later record with a warning; no token is logged', () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (l: string) => lines.push(l) });
    const tokens = parseTokenFile(',nobody,0\ndup-token-value,first,1\ndup-token-value,second,2\n', 'f.csv', logger);
    assert.equal(staticTokenUser(tokens, 'dup-token-value')?.name, 'second');
    assert.equal(staticTokenUser(tokens, ''), null);
    assert.equal(lines.length, 2);
    assert.match(lines[0]!, /empty token/);
    assert.match(lines[1]!, /duplicate token/);
    assert.ok(lines.every((l) => !l.includes('dup-token-value')));
  });

  test('a CSV syntax error names the file', () => {
    assert.throws(() => parseTokenFile('t,u"x,1\n', 'f.csv'), { message: '--token-auth-file: f.csv: parse error on line 1, column 4: bare " in non-quoted-field' });
  });
});

describe('reading the file', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'pgkube-tokenfile-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('a missing file is an error naming it', async () => {
    const file = path.join(dir, 'missing.csv');
    await assert.rejects(loadTokenFile(file), { message: `--token-auth-file: cannot read ${file}: ENOENT` });
  });

  test('the verifier is for the API audiences only', async () => {
    const file = path.join(dir, 'tokens.csv');
    await writeFile(file, 'tok,alice,1\n');
    const v = await tokenFileVerifier(file, ['https://kubernetes.default.svc']);
    assert.deepEqual(await v.verify('tok', []), { user: { name: 'alice', uid: '1', groups: [] }, audiences: ['https://kubernetes.default.svc'] });
    assert.equal((await v.verify('tok', ['https://kubernetes.default.svc', 'other']))?.audiences.join(), 'https://kubernetes.default.svc');
    assert.equal(await v.verify('tok', ['other']), null);
    assert.equal(await v.verify('nope', []), null);
  });
});
