import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import Koa from 'koa';
import pino from 'pino';
import { parseRequestInfo } from '../../src/api/request-info.ts';
import { requestTimeout } from '../../src/http/request-timeout.ts';
import { ApiserverMetrics } from '../../src/metrics/apiserver-metrics.ts';
import { MetricsRegistry } from '../../src/metrics/metrics-registry.ts';
import { RequestMetrics } from '../../src/metrics/request-metrics.ts';
import { openTestRegistry, type TestRegistry } from '../helpers/registry.ts';
import { Scrape } from './scrape.ts';

/**
 * No handler of the server goes on after its response began and then overruns its deadline, so the
 * abort is made here: the server's request metrics and request timeout on a handler that starts its
 * answer and stalls. The timeout cuts the connection, and counts the abort.
 */
let reg: TestRegistry;
let server: http.Server;
let registry: MetricsRegistry;
before(async () => {
  reg = await openTestRegistry();
  registry = new MetricsRegistry({ showHidden: false });
  const requests = new RequestMetrics(new ApiserverMetrics(registry), reg.surface);
  const app = new Koa();
  app.use(requests.middleware());
  app.use(async (ctx, next) => {
    ctx.state.requestInfo = parseRequestInfo(ctx.method, ctx.path, ctx.URL.searchParams);
    await next();
  });
  app.use(requestTimeout(100, pino({ level: 'silent' })));
  app.use(async (ctx) => {
    ctx.respond = false;
    ctx.res.writeHead(200, { 'Content-Type': 'application/json' });
    ctx.res.write('{');
    await new Promise((r) => setTimeout(r, 400));
  });
  server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
after(async () => {
  await new Promise((r) => server.close(r));
  await reg.close();
});

function cutOff(path: string): Promise<string> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path }, (res) => {
      res.on('data', () => undefined);
      res.on('error', (err) => resolve(err.message));
      res.on('end', () => resolve('ended'));
    });
    req.on('error', (err) => resolve(err.message));
  });
}

test('a response cut off at its deadline counts in apiserver_request_aborts_total, with bounded labels', async () => {
  assert.equal(await cutOff('/api/v1/namespaces/ns/configmaps'), 'aborted');
  assert.equal(await cutOff('/api/v1/namespaces/ns/configmaps/one?watch=0'), 'aborted');
  assert.equal(await cutOff('/api/v1/namespaces/ns/nosuchthings'), 'aborted');
  const s = new Scrape(await registry.text());
  const aborts = (labels: Record<string, string>) => s.value('apiserver_request_aborts_total', labels);
  assert.equal(aborts({ verb: 'LIST', group: '', version: 'v1', resource: 'configmaps', subresource: '', scope: 'namespace' }), 1);
  assert.equal(aborts({ verb: 'GET', group: '', version: 'v1', resource: 'configmaps', subresource: '', scope: 'resource' }), 1);
  // A resource nothing serves is counted without its names.
  assert.equal(aborts({ verb: 'LIST', group: '', version: '', resource: '', subresource: '', scope: 'namespace' }), 1);
  assert.equal(s.family('apiserver_request_aborts_total')?.metrics.length, 3);
  assert.equal(s.family('apiserver_request_aborts_total')?.help, '[ALPHA] Number of requests which apiserver aborted possibly due to a timeout, for each group, version, verb, resource, subresource and scope');
});
