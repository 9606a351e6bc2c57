/**
 * Audit settings at start: bad flags and bad policies stop it with upstream's words; a log without
 * a policy records nothing; rotation, compression, batch mode and the legacy format on a running server.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { gunzipSync } from 'node:zlib';
import type { Context } from 'koa';
import pino from 'pino';
import { parseRequestInfo } from '../../src/api/request-info.ts';
import { Auditor } from '../../src/audit/auditor.ts';
import { PolicyChecker } from '../../src/audit/policy.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { StartupError } from '../../src/startup-error.ts';
import { configMap, createNamespace, uniqueName } from '../helpers/fixtures.ts';
import { client } from '../helpers/http.ts';
import { startTestServer } from '../helpers/server.ts';
import { auditIdOf, eventsOf } from './helpers.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'audit-start-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function policyFile(name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

const ALL_METADATA = policyFile('metadata.yaml', 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n');

test('bad audit flags are configuration errors, in upstream\'s words', () => {
  assert.throws(() => loadConfig(['--audit-log-path=/tmp/x.log', '--audit-log-mode=async'], {}), (err: Error) => {
    assert.ok(err instanceof ConfigError);
    assert.equal(err.message, 'invalid audit log mode async, allowed modes are "batch,blocking,blocking-strict"');
    return true;
  });
  assert.throws(() => loadConfig(['--audit-log-path=/tmp/x.log', '--audit-log-format=text', '--audit-log-version=v2'], {}), {
    message: '[invalid group version, allowed versions are ["audit.k8s.io/v1"], invalid audit log format text, allowed formats are "legacy,json"]',
  });
  assert.throws(() => loadConfig(['--audit-log-maxsize=-1'], {}), /must be a non-negative integer/);
  // Without a log the log's flags are not looked at (as upstream).
  assert.equal(loadConfig(['--audit-log-mode=async'], {}).auditLogMode, 'async');
});

test('a bad policy file stops the start with kube-apiserver\'s message', async () => {
  const empty = policyFile('empty.yaml', 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n');
  await assert.rejects(startTestServer([`--audit-policy-file=${empty}`, `--audit-log-path=${path.join(dir, 'never.log')}`]), (err: Error) => {
    assert.ok(err instanceof StartupError);
    assert.equal(err.message, `loading audit policy file: loaded illegal policy with 0 rules: from file ${empty}`);
    return true;
  });
  const beta = policyFile('beta.yaml', 'apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules:\n- level: Metadata\n');
  await assert.rejects(startTestServer([`--audit-policy-file=${beta}`]), {
    message: `loading audit policy file: failed decoding: no kind "Policy" is registered for version "audit.k8s.io/v1beta1" in scheme "k8s.io/apiserver/pkg/audit/scheme.go:30": from file ${beta}`,
  });
  assert.ok(!existsSync(path.join(dir, 'never.log')), 'nothing was started');
});

test('a log without a policy is created but records nothing; Audit-Id is still sent', async () => {
  const log = path.join(dir, 'nopolicy', 'audit.log');
  const srv = await startTestServer([`--audit-log-path=${log}`]);
  try {
    assert.ok(existsSync(log));
    const res = await client(srv.url, srv.adminAgent).get('/api/v1/namespaces');
    assert.equal(res.status, 200);
    auditIdOf(res);
    assert.equal(readFileSync(log, 'utf8'), '');
  } finally {
    await srv.stop();
  }
});

test('rotation by size with gzip and one backup kept, in batch mode', async () => {
  const logDir = path.join(dir, 'rotating');
  const log = path.join(logDir, 'audit.log');
  const policy = policyFile('rr.yaml', 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: RequestResponse\n  resources: [{group: "", resources: [configmaps]}]\n- level: None\n');
  const srv = await startTestServer([
    `--audit-policy-file=${policy}`,
    `--audit-log-path=${log}`,
    '--audit-log-maxsize=1',
    '--audit-log-maxbackup=1',
    '--audit-log-compress',
    '--audit-log-mode=batch',
  ]);
  try {
    const api = client(srv.url, srv.adminAgent);
    const ns = await createNamespace(api);
    // Each create event carries the request and the response: about 600 KB.
    const big = 'x'.repeat(300 * 1024);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap(uniqueName('big'), { big }));
      assert.equal(res.status, 201, res.text);
      ids.push(auditIdOf(res));
    }
    const backups = () => readdirSync(logDir).filter((n) => n !== 'audit.log');
    const deadline = Date.now() + 10_000;
    while (!(backups().length === 1 && backups()[0]!.endsWith('.gz')) && Date.now() < deadline) await sleep(50);
    const [backup] = backups();
    assert.equal(backups().length, 1, `one backup kept: ${readdirSync(logDir).join(', ')}`);
    assert.match(backup!, /^audit-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}\.log\.gz$/);
    const lines = [...gunzipSync(readFileSync(path.join(logDir, backup!))).toString().split('\n'), ...readFileSync(log, 'utf8').split('\n')].filter(Boolean);
    for (const l of lines) assert.equal(JSON.parse(l).kind, 'Event');
    // The current file holds the last create's ResponseComplete, under the 1 MB limit.
    assert.ok(readFileSync(log).length <= 1024 * 1024);
    const last = (await eventsOf(log, ids[3]!, 2)).map((e) => e.stage);
    assert.ok(last.includes('ResponseComplete'), `last events: ${last.join(',')}`);
  } finally {
    await srv.stop();
  }
});

test('the legacy format: one line of text per event', async () => {
  const log = path.join(dir, 'legacy.log');
  const srv = await startTestServer([`--audit-policy-file=${ALL_METADATA}`, `--audit-log-path=${log}`, '--audit-log-format=legacy']);
  try {
    const res = await client(srv.url, srv.adminAgent).get('/api/v1/namespaces/default', { 'User-Agent': 'legacy-test' });
    assert.equal(res.status, 200);
    const id = auditIdOf(res);
    const lines = readFileSync(log, 'utf8').split('\n').filter((l) => l.includes(`id="${id}"`));
    assert.equal(lines.length, 2);
    assert.match(
      lines[1]!,
      new RegExp(
        `^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z AUDIT: id="${id}" stage="ResponseComplete" ip="127\\.0\\.0\\.1" method="get" user="[^"]+" groups=".*" ` +
          'as="<self>" asgroups="<lookup>" user-agent="legacy-test" namespace="default" uri="/api/v1/namespaces/default" response="200"$',
      ),
    );
    assert.match(lines[0]!, / stage="RequestReceived" .* response="<deferred>"$/);
  } finally {
    await srv.stop();
  }
});

test('blocking-strict: a request whose RequestReceived cannot be written is refused with 500; blocking goes on', async () => {
  const run = async (strict: boolean) => {
    const auditor = new Auditor({
      checker: new PolicyChecker({ rules: [{ level: 'Metadata' }] }),
      sink: { process: () => false, close: async () => undefined },
      format: 'json',
      strict,
      logger: pino({ level: 'silent' }),
    });
    const ctx = {
      state: { audit: { receivedAt: 0, evaluated: false }, requestInfo: parseRequestInfo('GET', '/api/v1/pods', new URLSearchParams()), user: { name: 'u', groups: [] } },
      originalUrl: '/api/v1/pods',
      req: { headers: {}, socket: { remoteAddress: '127.0.0.1' } },
    } as unknown as Context;
    let ran = false;
    await auditor.start()(ctx, async () => {
      ran = true;
    });
    return ran;
  };
  assert.equal(await run(false), true);
  await assert.rejects(run(true), { message: 'Internal error occurred: failed to store audit event' });
});
