/** The audit log's rotation, as lumberjack (kube-apiserver's log writer) rotates: names, limits, pruning, gzip. */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { backupName, RotatingFile } from '../../src/audit/log-file.ts';

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'audit-rotate-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A clock that moves on by a second each time it is read. */
function ticking(start = Date.UTC(2025, 0, 2, 3, 4, 5, 678)) {
  let t = start;
  return () => {
    const d = new Date(t);
    t += 1000;
    return d;
  };
}

const line = (n: number, size = 40) => `${String(n).padStart(4, '0')}${'x'.repeat(size - 5)}\n`;

test('backup names put the UTC time between the name and the extension', () => {
  const at = new Date(Date.UTC(2025, 0, 2, 3, 4, 5, 6));
  assert.equal(backupName('/var/log/audit.log', at), '/var/log/audit-2025-01-02T03-04-05.006.log');
  assert.equal(backupName('/var/log/audit', at), '/var/log/audit-2025-01-02T03-04-05.006');
  assert.equal(backupName('/var/log/kube.audit.json', at), '/var/log/kube.audit-2025-01-02T03-04-05.006.json');
});

test('ensure() makes the directory and a 0600 file, keeping what is there', () => {
  const file = path.join(dir, 'a', 'b', 'audit.log');
  const f = new RotatingFile({ filename: file, maxSizeBytes: 100, maxBackups: 0, maxAgeDays: 0, compress: false });
  f.ensure();
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(statSync(path.dirname(file)).mode & 0o777, 0o700);
  writeFileSync(file, 'kept\n');
  f.ensure();
  assert.equal(readFileSync(file, 'utf8'), 'kept\n');
});

test('a write that would pass the limit moves the file aside first; no line is split', async () => {
  const file = path.join(dir, 'audit.log');
  const f = new RotatingFile({ filename: file, maxSizeBytes: 100, maxBackups: 0, maxAgeDays: 0, compress: false, now: ticking() });
  for (let i = 0; i < 6; i++) f.write(line(i));
  f.close();
  await f.settled();
  const names = readdirSync(dir).sort();
  assert.deepEqual(names, ['audit-2025-01-02T03-04-05.678.log', 'audit-2025-01-02T03-04-06.678.log', 'audit.log']);
  // Two 40-byte lines fit in 100 bytes; a third would not.
  assert.equal(readFileSync(path.join(dir, names[0]!), 'utf8'), line(0) + line(1));
  assert.equal(readFileSync(path.join(dir, names[1]!), 'utf8'), line(2) + line(3));
  assert.equal(readFileSync(file, 'utf8'), line(4) + line(5));
  assert.throws(() => f.write('y'.repeat(101)), { message: 'write length 101 exceeds maximum file size 100' });
});

test('an existing file is appended to, or rotated at the first write when it is full', () => {
  const file = path.join(dir, 'audit.log');
  writeFileSync(file, line(0));
  const f = new RotatingFile({ filename: file, maxSizeBytes: 100, maxBackups: 0, maxAgeDays: 0, compress: false, now: ticking() });
  f.write(line(1));
  f.close();
  assert.equal(readFileSync(file, 'utf8'), line(0) + line(1));
  const g = new RotatingFile({ filename: file, maxSizeBytes: 100, maxBackups: 0, maxAgeDays: 0, compress: false, now: ticking() });
  g.write(line(2));
  g.close();
  assert.equal(readFileSync(file, 'utf8'), line(2));
  assert.equal(readdirSync(dir).length, 2);
});

test('a rotated file keeps its mode', () => {
  const file = path.join(dir, 'audit.log');
  writeFileSync(file, '', { mode: 0o640 });
  const f = new RotatingFile({ filename: file, maxSizeBytes: 50, maxBackups: 0, maxAgeDays: 0, compress: false, now: ticking() });
  f.write(line(0));
  f.write(line(1));
  f.close();
  assert.equal(statSync(file).mode & 0o777, 0o640);
});

test('maxBackups keeps the newest backups; other files in the directory are left alone', async () => {
  const file = path.join(dir, 'audit.log');
  writeFileSync(path.join(dir, 'audit-notatime.log'), 'x');
  writeFileSync(path.join(dir, 'other.log'), 'x');
  const f = new RotatingFile({ filename: file, maxSizeBytes: 50, maxBackups: 2, maxAgeDays: 0, compress: false, now: ticking() });
  for (let i = 0; i < 6; i++) f.write(line(i));
  f.close();
  await f.settled();
  assert.deepEqual(readdirSync(dir).sort(), [
    'audit-2025-01-02T03-04-08.678.log',
    'audit-2025-01-02T03-04-09.678.log',
    'audit-notatime.log',
    'audit.log',
    'other.log',
  ]);
  assert.equal(readFileSync(path.join(dir, 'audit-2025-01-02T03-04-09.678.log'), 'utf8'), line(4));
});

test('maxAge removes backups whose name is older than that many days', async () => {
  const file = path.join(dir, 'audit.log');
  const now = Date.UTC(2025, 5, 10, 12, 0, 0, 0);
  writeFileSync(path.join(dir, 'audit-2025-06-01T00-00-00.000.log'), 'old');
  writeFileSync(path.join(dir, 'audit-2025-06-01T00-00-00.001.log.gz'), 'old');
  writeFileSync(path.join(dir, 'audit-2025-06-08T00-00-00.000.log'), 'recent');
  const f = new RotatingFile({ filename: file, maxSizeBytes: 50, maxBackups: 0, maxAgeDays: 7, compress: false, now: () => new Date(now) });
  f.write(line(0));
  f.write(line(1));
  f.close();
  await f.settled();
  assert.deepEqual(readdirSync(dir).sort(), ['audit-2025-06-08T00-00-00.000.log', 'audit-2025-06-10T12-00-00.000.log', 'audit.log']);
});

test('compress gzips each backup to <name>.gz and removes the plain one', async () => {
  const file = path.join(dir, 'audit.log');
  const f = new RotatingFile({ filename: file, maxSizeBytes: 50, maxBackups: 0, maxAgeDays: 0, compress: true, now: ticking() });
  for (let i = 0; i < 3; i++) f.write(line(i));
  f.close();
  await f.settled();
  const names = readdirSync(dir).sort();
  assert.deepEqual(names, ['audit-2025-01-02T03-04-05.678.log.gz', 'audit-2025-01-02T03-04-06.678.log.gz', 'audit.log']);
  assert.equal(gunzipSync(readFileSync(path.join(dir, names[0]!))).toString(), line(0));
  assert.ok(!existsSync(path.join(dir, 'audit-2025-01-02T03-04-05.678.log')));
});

test('a backup and its compressed copy count once towards maxBackups', async () => {
  const file = path.join(dir, 'audit.log');
  writeFileSync(path.join(dir, 'audit-2025-01-01T00-00-00.000.log'), 'a');
  writeFileSync(path.join(dir, 'audit-2025-01-01T00-00-00.000.log.gz'), 'a');
  const f = new RotatingFile({ filename: file, maxSizeBytes: 50, maxBackups: 2, maxAgeDays: 0, compress: false, now: ticking() });
  f.write(line(0));
  f.write(line(1));
  f.close();
  await f.settled();
  assert.deepEqual(readdirSync(dir).sort(), [
    'audit-2025-01-01T00-00-00.000.log',
    'audit-2025-01-01T00-00-00.000.log.gz',
    'audit-2025-01-02T03-04-05.678.log',
    'audit.log',
  ]);
});
