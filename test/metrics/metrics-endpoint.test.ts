import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { configMap, createNamespace, type Api } from '../helpers/fixtures.ts';
import { client, type Reply } from '../helpers/http.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { resourceRequest, scrape, type Scrape } from './scrape.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'pgkube-metrics-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const tokens = path.join(dir, 'tokens.csv');
writeFileSync(tokens, 'monitor-token,monitor,uid-monitor,system:monitoring\nnobody-token,nobody,uid-nobody,\n');

const REQUEST_DURATION_BUCKETS = ['0.005', '0.025', '0.05', '0.1', '0.2', '0.4', '0.6', '0.8', '1', '1.25', '1.5', '2', '3', '4', '5', '6', '8', '10', '15', '20', '30', '45', '60', '+Inf'];
const RESPONSE_SIZE_BUCKETS = ['1000', '10000', '100000', '1e+06', '1e+07', '1e+08', '1e+09', '+Inf'];
const WATCH_EVENT_SIZE_BUCKETS = ['1024', '2048', '4096', '8192', '16384', '32768', '65536', '131072', '+Inf'];

/** The `le` labels of a histogram series, in ascending order, as written. */
function bucketBounds(s: Scrape, name: string, labels: Record<string, string>): string[] {
  const sample = s.sample(name, labels);
  assert.ok(sample?.buckets, `${name} ${JSON.stringify(labels)} is in the scrape`);
  return Object.keys(sample.buckets).sort((a, b) => Number(a.replace('+Inf', 'Infinity')) - Number(b.replace('+Inf', 'Infinity')));
}

/** Every apiserver_request_total series that changed between two scrapes, with its change. */
function requestTotalChanges(before: Scrape, after: Scrape): Map<string, number> {
  const changes = new Map<string, number>();
  for (const m of after.family('apiserver_request_total')?.metrics ?? []) {
    const delta = Number(m.value) - before.value('apiserver_request_total', m.labels ?? {});
    if (delta !== 0) changes.set(JSON.stringify(m.labels), delta);
  }
  return changes;
}

function sumOf(s: Scrape, name: string, labels: Record<string, string>): number {
  return Number(s.sample(name, labels)?.sum ?? 0);
}

describe('/metrics after a scripted workload', () => {
  let srv: TestServer;
  let admin: Api;
  let ns: string;
  before(async () => {
    srv = await startTestServer([`--token-auth-file=${tokens}`]);
    admin = client(srv.url, srv.adminAgent);
    ns = await createNamespace(admin);
  });
  after(async () => {
    await srv?.stop();
  });
  const as = (token: string) => ({
    get: (p: string) => client(srv.url, srv.anonymousAgent).get(p, { Authorization: `Bearer ${token}` }),
  });

  test('readable by system:masters and the system:monitoring group; 403 for others, as a non-resource URL', async () => {
    assert.equal((await admin.get('/metrics')).status, 200);
    assert.equal((await as('monitor-token').get('/metrics')).status, 200);
    const denied = await as('nobody-token').get('/metrics');
    assert.equal(denied.status, 403);
    assert.equal(denied.json.reason, 'Forbidden');
    assert.equal(denied.json.message, 'forbidden: User "nobody" cannot get path "/metrics"');
    assert.equal((await client(srv.url, srv.anonymousAgent).get('/metrics')).status, 403);
  });

  test('the counts, durations and sizes are exactly what the workload did; refused and unrouted requests are not counted', async () => {
    const cms = `/api/v1/namespaces/${ns}/configmaps`;
    const before = await scrape(admin);

    for (const name of ['cm-a', 'cm-b', 'cm-c']) assert.equal((await admin.post(cms, configMap(name, { k: 'v' }))).status, 201);
    assert.equal((await admin.post(`${cms}?dryRun=All`, configMap('cm-dry'))).status, 201);
    const gets: Reply[] = [await admin.get(`${cms}/cm-a`), await admin.get(`${cms}/cm-b`), await admin.get(`${cms}/missing`)];
    assert.deepEqual(gets.map((r) => r.status), [200, 200, 404]);
    const applied = await admin.patch(`${cms}/cm-a?fieldManager=metrics-test&force=true`, JSON.stringify(configMap('cm-a', { k: 'applied' })), 'application/apply-patch+yaml');
    assert.equal(applied.status, 200, applied.text);
    assert.equal((await admin.delete(`${cms}/cm-c`)).status, 200);
    // A list written as it is read (no limit), and a page.
    const lists: Reply[] = [await admin.get(cms), await admin.get(`${cms}?limit=1`)];
    assert.deepEqual(lists.map((r) => r.status), [200, 200]);
    assert.equal((await admin.get('/livez')).status, 200);
    // Aggregated discovery is counted (as upstream's handler for it is instrumented); the legacy document is not.
    assert.equal((await admin.get('/apis', { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' })).status, 200);
    assert.equal((await admin.get('/apis')).status, 200);
    // ComponentStatus is a deprecated API version.
    assert.equal((await admin.get('/api/v1/componentstatuses')).status, 200);
    // Refused, or nothing serves them: not counted, and their names never become label values.
    assert.equal((await as('nobody-token').get(cms)).status, 403);
    assert.equal((await admin.get(`/api/v1/namespaces/${ns}/nosuchthings`)).status, 404);
    assert.equal((await admin.get('/apis/nosuch.example.com/v1/things')).status, 404);
    assert.equal((await admin.get(`${cms}/cm-a/nosuchsub`)).status, 404);

    // A watch from the list's version sees one more create, and ends by its own timeout.
    const fromVersion = lists[0]!.json.metadata.resourceVersion as string;
    const watchBody = new Promise<string>((resolve, reject) => {
      const req = https.request(new URL(`${cms}?watch=true&resourceVersion=${fromVersion}&timeoutSeconds=2`, srv.url), { agent: srv.adminAgent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
    const watching = { verb: 'WATCH', group: '', version: 'v1', resource: 'configmaps', subresource: '', scope: 'namespace', component: 'apiserver' };
    let during: Scrape | undefined;
    for (let i = 0; i < 50 && !(during && during.value('apiserver_longrunning_requests', watching) === 1); i++) {
      await new Promise((r) => setTimeout(r, 20));
      during = await scrape(admin);
    }
    assert.equal(during!.value('apiserver_longrunning_requests', watching), 1, 'the open watch is a long-running request');
    assert.equal((await admin.post(cms, configMap('cm-d'))).status, 201);
    const watched = await watchBody;
    const lines = watched.split('\n').filter(Boolean);
    assert.equal(lines.length, 1, watched);
    const eventPrefix = '{"type":"ADDED","object":';
    assert.ok(lines[0]!.startsWith(eventPrefix));
    const eventObjectBytes = Buffer.byteLength(lines[0]!.slice(eventPrefix.length, -1));

    const final = await scrape(admin);
    const expected = new Map<string, number>([
      [JSON.stringify(resourceRequest({ verb: 'POST', resource: 'configmaps', scope: 'resource', code: '201' })), 4],
      [JSON.stringify(resourceRequest({ verb: 'POST', resource: 'configmaps', scope: 'resource', code: '201', dry_run: 'All' })), 1],
      [JSON.stringify(resourceRequest({ verb: 'GET', resource: 'configmaps', scope: 'resource', code: '200' })), 2],
      [JSON.stringify(resourceRequest({ verb: 'GET', resource: 'configmaps', scope: 'resource', code: '404' })), 1],
      [JSON.stringify(resourceRequest({ verb: 'APPLY', resource: 'configmaps', scope: 'resource', code: '200' })), 1],
      [JSON.stringify(resourceRequest({ verb: 'DELETE', resource: 'configmaps', scope: 'resource', code: '200' })), 1],
      [JSON.stringify(resourceRequest({ verb: 'LIST', resource: 'configmaps', scope: 'namespace', code: '200' })), 2],
      [JSON.stringify(resourceRequest({ verb: 'WATCH', resource: 'configmaps', scope: 'namespace', code: '200' })), 1],
      [JSON.stringify(resourceRequest({ verb: 'LIST', resource: 'componentstatuses', scope: 'cluster', code: '200' })), 1],
      [JSON.stringify({ verb: 'GET', dry_run: '', group: '', version: '', resource: '', subresource: '/livez', scope: '', component: '', code: '200' }), 1],
      [JSON.stringify({ verb: 'GET', dry_run: '', group: '', version: '', resource: '', subresource: 'apis', scope: '', component: 'apiserver', code: '200' }), 1],
    ]);
    assert.deepEqual(requestTotalChanges(before, final), expected);

    // Durations: one observation per counted request, in upstream's buckets.
    const getSeries = resourceRequest({ verb: 'GET', resource: 'configmaps', scope: 'resource' });
    assert.deepEqual(bucketBounds(final, 'apiserver_request_duration_seconds', getSeries), REQUEST_DURATION_BUCKETS);
    const durations = (labels: Record<string, string>) =>
      final.count('apiserver_request_duration_seconds', labels) - before.count('apiserver_request_duration_seconds', labels);
    assert.equal(durations(getSeries), 3);
    assert.equal(durations(resourceRequest({ verb: 'POST', resource: 'configmaps', scope: 'resource' })), 4);
    assert.equal(durations(resourceRequest({ verb: 'WATCH', resource: 'configmaps', scope: 'namespace' })), 1);
    assert.ok(sumOf(final, 'apiserver_request_duration_seconds', resourceRequest({ verb: 'WATCH', resource: 'configmaps', scope: 'namespace' })) >= 1.5, 'a watch lasts until it ends');

    // Sizes: the reads only (no dry_run label), the bytes each response carried.
    const sizeLabels = ({ dry_run: _dryRun, ...labels }: Record<string, string>) => labels;
    const sizes = (labels: Record<string, string>) => ({
      count: final.count('apiserver_response_sizes', labels) - before.count('apiserver_response_sizes', labels),
      sum: sumOf(final, 'apiserver_response_sizes', labels) - sumOf(before, 'apiserver_response_sizes', labels),
    });
    assert.deepEqual(bucketBounds(final, 'apiserver_response_sizes', sizeLabels(getSeries)), RESPONSE_SIZE_BUCKETS);
    assert.deepEqual(sizes(sizeLabels(getSeries)), { count: 3, sum: gets.reduce((n, r) => n + r.bytes.length, 0) });
    assert.deepEqual(sizes(sizeLabels(resourceRequest({ verb: 'LIST', resource: 'configmaps', scope: 'namespace' }))), {
      count: 2,
      sum: lists.reduce((n, r) => n + r.bytes.length, 0),
    });
    assert.deepEqual(sizes(sizeLabels(resourceRequest({ verb: 'WATCH', resource: 'configmaps', scope: 'namespace' }))), { count: 1, sum: Buffer.byteLength(watched) });
    assert.equal(final.family('apiserver_response_sizes')?.metrics.some((m) => m.labels?.verb === 'POST'), false, 'writes have no response size');

    // The watch: no longer running, one event sent, its object's size.
    assert.equal(final.value('apiserver_longrunning_requests', watching), 0);
    const watchLabels = { group: '', version: 'v1', resource: 'configmaps' };
    assert.equal(final.value('apiserver_watch_events_total', watchLabels) - before.value('apiserver_watch_events_total', watchLabels), 1);
    assert.deepEqual(bucketBounds(final, 'apiserver_watch_events_sizes', watchLabels), WATCH_EVENT_SIZE_BUCKETS);
    assert.equal(sumOf(final, 'apiserver_watch_events_sizes', watchLabels) - sumOf(before, 'apiserver_watch_events_sizes', watchLabels), eventObjectBytes);

    // The deprecated API that was requested.
    assert.equal(final.value('apiserver_requested_deprecated_apis', { group: '', version: 'v1', resource: 'componentstatuses', subresource: '', removed_release: '' }), 1);
    assert.equal(final.family('apiserver_requested_deprecated_apis')?.metrics.length, 1);

    // Bounded labels: nothing named by a request (namespace, objects, unknown paths, users) is a label value.
    const values = final.labelValues();
    for (const forbidden of [ns, 'cm-a', 'cm-b', 'cm-c', 'cm-d', 'missing', 'nosuchthings', 'nosuch.example.com', 'things', 'nosuchsub', 'nobody']) {
      assert.equal(values.has(forbidden), false, `"${forbidden}" is not a label value`);
    }
  });

  test('PostgreSQL requests are timed per operation and resource; a missing object is an answer, not an error', async () => {
    const cms = `/api/v1/namespaces/${ns}/configmaps`;
    const labels = { operation: 'get', group: '', resource: 'configmaps' };
    const before = await scrape(admin);
    for (let i = 0; i < 3; i++) assert.equal((await admin.get(`${cms}/not-there-${i}`)).status, 404);
    const final = await scrape(admin);
    assert.ok(final.value('apiserver_storage_postgres_requests_total', labels) - before.value('apiserver_storage_postgres_requests_total', labels) >= 3);
    assert.equal(final.value('apiserver_storage_postgres_request_errors_total', labels), 0);
    assert.deepEqual(bucketBounds(final, 'apiserver_storage_postgres_request_duration_seconds', labels), REQUEST_DURATION_BUCKETS);
    assert.ok(final.count('apiserver_storage_postgres_request_duration_seconds', labels) - before.count('apiserver_storage_postgres_request_duration_seconds', labels) >= 3);
  });

  test('stored objects per resource are the rows in the database, under upstream names', async () => {
    assert.equal((await admin.post(`/api/v1/namespaces/${ns}/configmaps`, configMap('counted'))).status, 201);
    const s = await scrape(admin);
    const db = new pg.Client({ connectionString: srv.db.url });
    await db.connect();
    try {
      const count = async (group: string, resource: string) =>
        Number((await db.query('select count(*) as n from objects where api_group = $1 and resource = $2', [group, resource])).rows[0].n);
      const configmaps = await count('', 'configmaps');
      assert.ok(configmaps >= 1);
      assert.equal(s.value('apiserver_storage_objects', { resource: 'configmaps' }), configmaps);
      assert.equal(s.value('apiserver_resource_objects', { group: '', resource: 'configmaps' }), configmaps);
      // Other groups' resources are qualified by their group, as upstream's GroupResource prints them.
      assert.equal(s.value('apiserver_storage_objects', { resource: 'clusterroles.rbac.authorization.k8s.io' }), await count('rbac.authorization.k8s.io', 'clusterroles'));
      assert.equal(s.sample('apiserver_storage_objects', { resource: 'poddisruptionbudgets.policy' })?.value, '0', 'a served resource with nothing stored counts 0');
      // events.k8s.io Events are stored as core Events: both count them.
      assert.equal(s.value('apiserver_storage_objects', { resource: 'events.events.k8s.io' }), await count('', 'events'));
      assert.equal(s.sample('apiserver_storage_objects', { resource: 'componentstatuses' }), undefined, 'a computed kind is not stored');
      assert.equal(s.sample('apiserver_storage_objects', { resource: 'tokenreviews.authentication.k8s.io' }), undefined, 'a review is not stored');
      const size = Number((await db.query('select pg_database_size(current_database()) as n')).rows[0].n);
      const sizeSample = s.family('apiserver_storage_size_bytes')?.metrics[0];
      assert.ok(sizeSample && Number(sizeSample.value) > 0 && Math.abs(Number(sizeSample.value) - size) < size / 2, 'the database size');
      assert.match(sizeSample.labels?.storage_cluster_id ?? '', /^\d+$/, 'the PostgreSQL system identifier');
    } finally {
      await db.end();
    }
  });

  test('help texts carry the stability level; deprecated metrics are hidden; the process and Node runtime metrics are there', async () => {
    const s = await scrape(admin);
    assert.equal(
      s.family('apiserver_request_total')?.help,
      '[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
    );
    assert.equal(s.family('apiserver_request_total')?.type, 'COUNTER');
    assert.equal(s.family('apiserver_request_duration_seconds')?.type, 'HISTOGRAM');
    assert.equal(s.family('apiserver_current_inflight_requests')?.type, 'GAUGE');
    assert.equal(s.family('apiserver_watch_events_total')?.help, '[ALPHA] Number of events sent in watch clients');
    assert.equal(s.family('registered_metrics_total')?.help, '[BETA] The count of registered metrics broken by stability level and deprecation version.');
    assert.ok(s.value('registered_metrics_total', { stability_level: 'STABLE', deprecated_version: '' }) >= 8);
    // apiserver_storage_db_total_size_in_bytes was deprecated in 1.28: hidden in 1.34.
    assert.equal(s.family('apiserver_storage_db_total_size_in_bytes'), undefined);
    assert.equal(s.value('hidden_metrics_total', {}), 1);
    for (const kind of ['readOnly', 'mutating']) assert.ok(s.sample('apiserver_current_inflight_requests', { request_kind: kind }), kind);
    assert.equal(s.family('process_cpu_user_seconds_total')?.type, 'COUNTER');
    assert.equal(s.family('process_resident_memory_bytes')?.type, 'GAUGE');
    assert.ok(Number(s.family('nodejs_heap_size_used_bytes')?.metrics[0]?.value) > 0);
  });
});

describe('--show-hidden-metrics-for-version=1.33', () => {
  let srv: TestServer;
  let admin: Api;
  before(async () => {
    srv = await startTestServer(['--show-hidden-metrics-for-version=1.33']);
    admin = client(srv.url, srv.adminAgent);
  });
  after(async () => {
    await srv?.stop();
  });

  test('shows the hidden metrics again, their help starting with the deprecation notice', async () => {
    const s = await scrape(admin);
    const family = s.family('apiserver_storage_db_total_size_in_bytes');
    assert.equal(family?.help, '[ALPHA] (Deprecated since 1.28.0) Total size of the storage database file physically allocated in bytes.');
    assert.ok(Number(family.metrics[0]?.value) > 0);
    assert.match(family.metrics[0]?.labels?.endpoint ?? '', /:\d+\/pgkube_test/);
    assert.equal(s.value('hidden_metrics_total', {}), 0);
    assert.equal(s.value('registered_metrics_total', { stability_level: 'ALPHA', deprecated_version: '1.28.0' }), 1);
  });

  test('each server has its own registry: this one counts only its own requests', async () => {
    const before = await scrape(admin);
    const ns = await createNamespace(admin);
    assert.equal((await admin.post(`/api/v1/namespaces/${ns}/configmaps`, configMap('only-here'))).status, 201);
    const s = await scrape(admin);
    const posts = resourceRequest({ verb: 'POST', resource: 'configmaps', scope: 'resource', code: '201' });
    // The other server of this file made several; this one saw one.
    assert.equal(s.value('apiserver_request_total', posts) - before.value('apiserver_request_total', posts), 1);
    assert.equal(s.value('apiserver_request_total', posts), 1);
  });
});
