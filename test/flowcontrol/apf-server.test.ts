/**
 * API priority and fairness through a running server: classification headers, a Reject level's 429
 * with Retry-After (and clients that honour it), a Queue level whose requests wait while exempt ones
 * pass, the wait limit, watches that hold seats only while they start, the metrics and the debug
 * dumps, and configuration changes taking effect at once.
 *
 * The test levels have one share each: 3 seats of the server's 600, neither lent nor borrowed.
 * Seats are held by creates whose bodies are not finished (the handler waits for them).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { ClientRequest } from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { ApiException, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { eventually, uniqueName } from '../helpers/fixtures.ts';
import { client, request, type Reply } from '../helpers/http.ts';
import { kubectl, skipReason } from '../helpers/kubectl.ts';
import { serveFile } from '../helpers/server.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'pgkube-apf-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const tokens = path.join(dir, 'tokens.csv');
writeFileSync(tokens, 'reject-token,reject-user,2001\nqueue-token,queue-user,2002\nother-token,other-user,2003\n');

const FC = '/apis/flowcontrol.apiserver.k8s.io/v1';
const DUMP = '/debug/api_priority_and_fairness';
const SEATS = 3;

const level = (name: string, limitResponse: object) => ({
  apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
  kind: 'PriorityLevelConfiguration',
  metadata: { name },
  spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, lendablePercent: 0, borrowingLimitPercent: 0, limitResponse } },
});
const schema = (name: string, userName: string) => ({
  apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
  kind: 'FlowSchema',
  metadata: { name },
  spec: {
    priorityLevelConfiguration: { name },
    matchingPrecedence: 200,
    distinguisherMethod: { type: 'ByUser' },
    rules: [
      {
        subjects: [{ kind: 'User', user: { name: userName } }],
        resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }],
        nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      },
    ],
  },
});

const uids: Record<string, string> = {};

const t = serveFile([`--token-auth-file=${tokens}`], async ({ api }) => {
  await api.post('/apis/rbac.authorization.k8s.io/v1/clusterroles', {
    metadata: { name: 'apf-test' },
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['*'] }],
  });
  await api.post('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    metadata: { name: 'apf-test' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'apf-test' },
    subjects: ['reject-user', 'queue-user', 'other-user'].map((name) => ({ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name })),
  });
  for (const [name, limitResponse] of [
    ['apf-test-reject', { type: 'Reject' }],
    ['apf-test-queue', { type: 'Queue', queuing: { queues: 4, handSize: 2, queueLengthLimit: 10 } }],
  ] as const) {
    const pl = await api.post(`${FC}/prioritylevelconfigurations`, level(name, limitResponse));
    assert.equal(pl.status, 201, pl.text);
    uids[`pl/${name}`] = pl.json.metadata.uid;
  }
  for (const [name, user] of [
    ['apf-test-reject', 'reject-user'],
    ['apf-test-queue', 'queue-user'],
  ] as const) {
    const fs = await api.post(`${FC}/flowschemas`, schema(name, user));
    assert.equal(fs.status, 201, fs.text);
    uids[`fs/${name}`] = fs.json.metadata.uid;
  }
  // The binding and the schemas reach the server's views through their watches.
  await eventually(async () => (await as('queue-token').get(`/api/v1/namespaces/${t.ns}/configmaps`)).headers['x-kubernetes-pf-flowschema-uid'] === uids['fs/apf-test-queue'] || undefined, 'the queue schema in force');
  await eventually(async () => (await as('reject-token').get(`/api/v1/namespaces/${t.ns}/configmaps`)).status === 200 || undefined, 'the role binding in force');
});

const as = (token: string) => {
  const base = client(t.srv.url, t.srv.anonymousAgent);
  const auth = { Authorization: `Bearer ${token}` };
  return { get: (p: string) => base.get(p, auth), post: (p: string, body: unknown) => base.post(p, body, auth) };
};

/** A create whose body is held back: it occupies its seat (the handler waits for the body) until released. */
function heldCreate(token: string): { release(): Promise<Reply> } {
  const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: uniqueName('held') } });
  const req = https.request(new URL(`/api/v1/namespaces/${t.ns}/configmaps`, t.srv.url), {
    method: 'POST',
    agent: false,
    ca: t.srv.ca,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) },
  });
  const reply = new Promise<Reply>((resolve, reject) => {
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        const text = bytes.toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, bytes, json: text.startsWith('{') ? JSON.parse(text) : undefined });
      });
    });
    req.on('error', reject);
  });
  req.write(body.slice(0, -1));
  return {
    release: () => {
      req.end(body.slice(-1));
      return reply;
    },
  };
}

/** The rows of a debug dump, cells trimmed, keyed by their header. */
async function dump(name: string, query = ''): Promise<Record<string, string>[]> {
  const res = await t.api.get(`${DUMP}/${name}${query}`);
  assert.equal(res.status, 200, res.text);
  const [header, ...rows] = res.text.trimEnd().split('\n').map((line) => line.split(',').map((c) => c.trim()));
  return rows.map((cells) => Object.fromEntries(header!.map((h, i) => [h, cells[i] ?? ''])));
}

const levelRow = async (name: string) => (await dump('dump_priority_levels')).find((r) => r.PriorityLevelName === name)!;

/** Holds every seat of a level with creates as `token`, once they are all running. */
async function fillLevel(token: string, levelName: string) {
  const held = Array.from({ length: SEATS }, () => heldCreate(token));
  await eventually(async () => (await levelRow(levelName)).ExecutingRequests === String(SEATS) || undefined, `${SEATS} requests running in ${levelName}`, 5000);
  return {
    release: async () => {
      for (const reply of await Promise.all(held.map((h) => h.release()))) assert.equal(reply.status, 201, reply.text);
    },
  };
}

async function metricsText(): Promise<string> {
  const res = await t.api.get('/metrics');
  assert.equal(res.status, 200);
  return res.text;
}

function metricValue(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('classification headers', () => {
  test('every classified response names the matched schema and level by uid (not by name)', async () => {
    const exempt = (await t.api.get(`${FC}/flowschemas/exempt`)).json.metadata.uid;
    const exemptLevel = (await t.api.get(`${FC}/prioritylevelconfigurations/exempt`)).json.metadata.uid;
    const admin = await t.api.get(`/api/v1/namespaces/${t.ns}/configmaps`);
    assert.equal(admin.headers['x-kubernetes-pf-flowschema-uid'], exempt);
    assert.equal(admin.headers['x-kubernetes-pf-prioritylevel-uid'], exemptLevel);
    // Errors are classified responses too: a 404 and a 403.
    const missing = await as('queue-token').get(`/api/v1/namespaces/${t.ns}/configmaps/nope`);
    assert.equal(missing.status, 404);
    assert.equal(missing.headers['x-kubernetes-pf-flowschema-uid'], uids['fs/apf-test-queue']);
    assert.equal(missing.headers['x-kubernetes-pf-prioritylevel-uid'], uids['pl/apf-test-queue']);
    const forbidden = await as('queue-token').get('/api/v1/secrets');
    assert.equal(forbidden.status, 403);
    assert.equal(forbidden.headers['x-kubernetes-pf-flowschema-uid'], uids['fs/apf-test-queue']);
  });

  test('other users fall to the suggested global-default schema; probes are exempt', async () => {
    const globalDefault = (await t.api.get(`${FC}/flowschemas/global-default`)).json.metadata.uid;
    assert.equal((await as('other-token').get(`/api/v1/namespaces/${t.ns}/configmaps`)).headers['x-kubernetes-pf-flowschema-uid'], globalDefault);
    const probes = (await t.api.get(`${FC}/flowschemas/probes`)).json.metadata.uid;
    assert.equal((await t.anon.get('/readyz')).headers['x-kubernetes-pf-flowschema-uid'], probes);
  });
});

describe('a Reject level', () => {
  test('at its limit: 429 at once with Retry-After and upstream\'s text; other levels and exempt requests pass', async () => {
    const full = await fillLevel('reject-token', 'apf-test-reject');
    try {
      const started = performance.now();
      const res = await as('reject-token').get(`/api/v1/namespaces/${t.ns}/configmaps`);
      assert.ok(performance.now() - started < 1000);
      assert.equal(res.status, 429);
      assert.equal(res.text, 'Too many requests, please try again later.\n');
      assert.equal(res.headers['retry-after'], '1');
      assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.equal(res.headers['x-kubernetes-pf-flowschema-uid'], uids['fs/apf-test-reject']);
      assert.equal(res.headers['x-kubernetes-pf-prioritylevel-uid'], uids['pl/apf-test-reject']);
      assert.equal((await t.api.get(`/api/v1/namespaces/${t.ns}/configmaps`)).status, 200);
      assert.equal((await as('other-token').get(`/api/v1/namespaces/${t.ns}/configmaps`)).status, 200);
    } finally {
      await full.release();
    }
    assert.equal((await as('reject-token').get(`/api/v1/namespaces/${t.ns}/configmaps`)).status, 200);
    const text = await metricsText();
    assert.ok(
      (metricValue(text, 'apiserver_flowcontrol_rejected_requests_total{priority_level="apf-test-reject",flow_schema="apf-test-reject",reason="concurrency-limit"}') ?? 0) >= 1,
    );
  });

  test('client-node reports the 429 with its Retry-After; waiting that long and retrying succeeds', async () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: t.srv.url, caData: Buffer.from(t.srv.ca).toString('base64') }],
      users: [{ name: 'u', token: 'reject-token' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const core = kc.makeApiClient(CoreV1Api);
    const full = await fillLevel('reject-token', 'apf-test-reject');
    let released: Promise<void> | undefined;
    const waits: number[] = [];
    const list = async () => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await core.listNamespacedConfigMap({ namespace: t.ns });
        } catch (err) {
          if (!(err instanceof ApiException) || err.code !== 429 || attempt > 5) throw err;
          const seconds = Number(err.headers['retry-after']);
          waits.push(seconds);
          // The seats free up while the client waits.
          released ??= full.release();
          await new Promise((r) => setTimeout(r, seconds * 1000));
        }
      }
    };
    try {
      const result = await list();
      assert.ok(Array.isArray(result.items));
      assert.deepEqual(waits, [1]);
    } finally {
      await (released ?? full.release());
    }
  });

  test('kubectl retries after Retry-After until the level has room', { skip: skipReason('1.33') }, async () => {
    const kubeconfig = path.join(dir, 'reject.kubeconfig');
    writeFileSync(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: t.srv.url, 'certificate-authority-data': Buffer.from(t.srv.ca).toString('base64') } }],
        users: [{ name: 'u', user: { token: 'reject-token' } }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u', namespace: t.ns } }],
        'current-context': 'x',
      }),
    );
    const series = 'apiserver_flowcontrol_rejected_requests_total{priority_level="apf-test-reject",flow_schema="apf-test-reject",reason="concurrency-limit"}';
    const rejectedBefore = metricValue(await metricsText(), series) ?? 0;
    const full = await fillLevel('reject-token', 'apf-test-reject');
    const k = kubectl('1.33', kubeconfig, path.join(dir, 'kubectl-cache'));
    const run = k.run(['get', 'configmaps', '-o', 'name'], { timeoutMs: 20_000 });
    // kubectl meets the 429s, then the seats free up.
    await eventually(async () => (metricValue(await metricsText(), series) ?? 0) > rejectedBefore || undefined, 'kubectl rejected', 5000);
    await full.release();
    const result = await run;
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /configmap\/held-/);
  });
});

describe('a Queue level', () => {
  test('its requests wait for a seat while exempt and other requests pass, then run', async () => {
    const full = await fillLevel('queue-token', 'apf-test-queue');
    let waiting: Promise<Reply> | undefined;
    try {
      waiting = as('queue-token').get(`/api/v1/namespaces/${t.ns}/configmaps`);
      let answered = false;
      void waiting.then(() => (answered = true));
      await eventually(async () => (await levelRow('apf-test-queue')).WaitingRequests === '1' || undefined, 'one request queued', 5000);
      // Exempt (system:masters, probes) and other levels are served meanwhile.
      assert.equal((await t.api.get(`/api/v1/namespaces/${t.ns}/configmaps`)).status, 200);
      assert.equal((await t.anon.get('/healthz')).status, 200);
      assert.equal((await as('other-token').get(`/api/v1/namespaces/${t.ns}/configmaps`)).status, 200);
      assert.equal(answered, false);

      const row = await levelRow('apf-test-queue');
      assert.deepEqual([row.ActiveQueues, row.IsIdle, row.IsQuiescing, row.ExecutingRequests], ['1', 'false', 'false', String(SEATS)]);
      const queues = (await dump('dump_queues')).filter((r) => r.PriorityLevelName === 'apf-test-queue');
      assert.equal(queues.length, 4);
      assert.equal(queues.reduce((n, q) => n + Number(q.PendingRequests), 0), 1);
      assert.equal(queues.reduce((n, q) => n + Number(q.ExecutingRequests), 0), SEATS);
      const requests = (await dump('dump_requests', '?includeRequestDetails=1')).filter((r) => r.PriorityLevelName === 'apf-test-queue');
      const queued = requests.filter((r) => r.RequestIndexInQueue === '0');
      assert.equal(queued.length, 1);
      assert.deepEqual([queued[0]!.FlowSchemaName, queued[0]!.FlowDistingsher, queued[0]!.UserName, queued[0]!.Verb, queued[0]!.Resource, queued[0]!.StartTime], [
        'apf-test-queue',
        'queue-user',
        'queue-user',
        'list',
        'configmaps',
        '0001-01-01T00:00:00Z',
      ]);
      assert.equal(requests.filter((r) => r.RequestIndexInQueue === '-1').length, SEATS);
      const text = await metricsText();
      assert.equal(metricValue(text, 'apiserver_flowcontrol_current_inqueue_requests{priority_level="apf-test-queue",flow_schema="apf-test-queue"}'), 1);
      assert.equal(metricValue(text, 'apiserver_flowcontrol_current_executing_requests{priority_level="apf-test-queue",flow_schema="apf-test-queue"}'), SEATS);
    } finally {
      await full.release();
    }
    const served = await waiting!;
    assert.equal(served.status, 200);
    assert.equal(served.headers['x-kubernetes-pf-flowschema-uid'], uids['fs/apf-test-queue']);
  });

  test('a request waits at most a quarter of its deadline, then gets 429 (time-out)', async () => {
    const full = await fillLevel('queue-token', 'apf-test-queue');
    try {
      const started = performance.now();
      const res = await as('queue-token').get(`/api/v1/namespaces/${t.ns}/configmaps?timeout=2s`);
      const waited = performance.now() - started;
      assert.equal(res.status, 429);
      assert.ok(waited >= 450 && waited < 1900, `waited ${waited} ms`);
    } finally {
      await full.release();
    }
    const text = await metricsText();
    assert.equal(metricValue(text, 'apiserver_flowcontrol_rejected_requests_total{priority_level="apf-test-queue",flow_schema="apf-test-queue",reason="time-out"}'), 1);
    assert.equal((await levelRow('apf-test-queue')).CancelledRequests, '1');
  });

  test('a watch holds a seat only while it starts', async () => {
    const watches = await Promise.all(
      Array.from({ length: SEATS + 1 }, () => {
        return new Promise<ClientRequest>((resolve, reject) => {
          const req = https.get(new URL(`/api/v1/namespaces/${t.ns}/configmaps?watch=1`, t.srv.url), { agent: false, ca: t.srv.ca, headers: { Authorization: 'Bearer queue-token' } }, (res) => {
            assert.equal(res.statusCode, 200);
            resolve(req);
          });
          req.on('error', reject);
        });
      }),
    );
    try {
      // More watches than seats are running, and the level has every seat free again.
      await eventually(async () => (await levelRow('apf-test-queue')).ExecutingRequests === '0' || undefined, 'watch seats released', 5000);
      const started = performance.now();
      assert.equal((await as('queue-token').get(`/api/v1/namespaces/${t.ns}/configmaps`)).status, 200);
      assert.ok(performance.now() - started < 1000);
    } finally {
      for (const w of watches) w.destroy();
    }
  });
});

describe('metrics and configuration', () => {
  test('the apiserver_flowcontrol_* metrics after the workload', async () => {
    const text = await metricsText();
    assert.match(text, /# HELP apiserver_flowcontrol_dispatched_requests_total \[BETA\] Number of requests executed by API Priority and Fairness subsystem/);
    assert.ok((metricValue(text, 'apiserver_flowcontrol_dispatched_requests_total{priority_level="exempt",flow_schema="exempt"}') ?? 0) > 0);
    assert.ok((metricValue(text, 'apiserver_flowcontrol_dispatched_requests_total{priority_level="apf-test-queue",flow_schema="apf-test-queue"}') ?? 0) > 0);
    assert.equal(metricValue(text, 'apiserver_flowcontrol_nominal_limit_seats{priority_level="apf-test-reject"}'), SEATS);
    assert.equal(metricValue(text, 'apiserver_flowcontrol_current_limit_seats{priority_level="apf-test-reject"}'), SEATS);
    assert.equal(metricValue(text, 'apiserver_flowcontrol_nominal_limit_seats{priority_level="workload-low"}'), 243);
    assert.equal(metricValue(text, 'apiserver_flowcontrol_current_executing_requests{priority_level="apf-test-queue",flow_schema="apf-test-queue"}'), 0);
    assert.equal(metricValue(text, 'apiserver_flowcontrol_current_inqueue_requests{priority_level="apf-test-queue",flow_schema="apf-test-queue"}'), 0);
    assert.ok((metricValue(text, 'apiserver_flowcontrol_request_wait_duration_seconds_count{priority_level="apf-test-queue",flow_schema="apf-test-queue",execute="true"}') ?? 0) >= 2);
    assert.match(text, /apiserver_flowcontrol_request_wait_duration_seconds_bucket\{priority_level="apf-test-queue",flow_schema="apf-test-queue",execute="true",le="0.005"\}/);
    // The 429s count as dropped requests of the request metrics too.
    assert.match(text, /apiserver_request_total\{[^}]*code="429"[^}]*\} [1-9]/);
    // The deprecated twins are hidden in 1.34.
    assert.doesNotMatch(text, /apiserver_flowcontrol_request_concurrency_limit/);
  });

  test('the debug dumps are non-resource URLs: authorized like any other path', async () => {
    const res = await t.anon.get(`${DUMP}/dump_priority_levels`);
    assert.equal(res.status, 403);
    assert.equal(res.json.message, 'forbidden: User "system:anonymous" cannot get path "/debug/api_priority_and_fairness/dump_priority_levels"');
    const levels = await dump('dump_priority_levels');
    assert.deepEqual(
      levels.map((r) => r.PriorityLevelName),
      ['apf-test-queue', 'apf-test-reject', 'catch-all', 'exempt', 'global-default', 'leader-election', 'node-high', 'system', 'workload-high', 'workload-low'],
    );
  });

  test('a changed schema takes effect at once: deleted, its users fall to the next schema', async () => {
    assert.equal((await t.api.delete(`${FC}/flowschemas/apf-test-reject`)).status, 200);
    const globalDefault = (await t.api.get(`${FC}/flowschemas/global-default`)).json.metadata.uid;
    const started = performance.now();
    await eventually(
      async () => (await as('reject-token').get(`/api/v1/namespaces/${t.ns}/configmaps`)).headers['x-kubernetes-pf-flowschema-uid'] === globalDefault || undefined,
      'reject-user reclassified',
      1000,
    );
    assert.ok(performance.now() - started < 1000);
  });
});
