import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseRequestInfo } from '../../src/api/request-info.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { formatGoFloat } from '../../src/metrics/families.ts';
import { MetricsRegistry } from '../../src/metrics/metrics-registry.ts';
import { cleanDryRun, reportedVerb, requestScope, routeScope, watchRequested } from '../../src/metrics/request-labels.ts';
import { exposedHelp, showHiddenMetricsVersionProblem, visibilityOf } from '../../src/metrics/stability.ts';
import { Scrape } from './scrape.ts';

function info(method: string, url: string) {
  const u = new URL(url, 'https://x');
  return { info: parseRequestInfo(method, u.pathname, u.searchParams), query: u.searchParams, raw: u.search.slice(1) };
}

/** The verb and scope a resource request is reported with (the kind's scope given). */
function labels(method: string, url: string, namespaced = true, contentType = '') {
  const { info: i, query, raw } = info(method, url);
  const scope = routeScope(i, namespaced);
  return { verb: reportedVerb(method, scope, i, watchRequested(raw, query), () => contentType), scope };
}

describe('request labels, as upstream cleans them', () => {
  test('verbs come from the method: LIST for collections, WATCH, APPLY, CONNECT, other', () => {
    assert.deepEqual(labels('GET', '/api/v1/namespaces/ns/configmaps/a'), { verb: 'GET', scope: 'resource' });
    assert.deepEqual(labels('HEAD', '/api/v1/namespaces/ns/configmaps/a'), { verb: 'GET', scope: 'resource' });
    assert.deepEqual(labels('GET', '/api/v1/namespaces/ns/configmaps'), { verb: 'LIST', scope: 'namespace' });
    assert.deepEqual(labels('GET', '/api/v1/configmaps'), { verb: 'LIST', scope: 'cluster' }, 'across namespaces');
    assert.deepEqual(labels('GET', '/api/v1/namespaces', false), { verb: 'LIST', scope: 'cluster' });
    assert.deepEqual(labels('GET', '/api/v1/namespaces/ns', false), { verb: 'GET', scope: 'resource' });
    // A name from a field selector is still a list route.
    assert.deepEqual(labels('GET', '/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name%3Da'), { verb: 'LIST', scope: 'namespace' });
    assert.deepEqual(labels('GET', '/api/v1/namespaces/ns/configmaps?watch=true'), { verb: 'WATCH', scope: 'namespace' });
    assert.deepEqual(labels('GET', '/api/v1/namespaces/ns/configmaps?watch=1'), { verb: 'WATCH', scope: 'namespace' });
    assert.deepEqual(labels('GET', '/api/v1/namespaces/ns/configmaps?watch=false'), { verb: 'LIST', scope: 'namespace' });
    assert.deepEqual(labels('GET', '/api/v1/namespaces/ns/configmaps?watch=FALSE'), { verb: 'LIST', scope: 'namespace' });
    assert.deepEqual(labels('GET', '/api/v1/watch/namespaces/ns/configmaps'), { verb: 'WATCH', scope: 'namespace' }, 'the legacy watch path');
    assert.deepEqual(labels('GET', '/api/v1/namespaces/ns/configmaps/a?watch=true'), { verb: 'WATCH', scope: 'resource' });
    assert.deepEqual(labels('POST', '/api/v1/namespaces/ns/configmaps'), { verb: 'POST', scope: 'resource' }, 'a create is a resource route');
    assert.deepEqual(labels('PUT', '/api/v1/namespaces/ns/configmaps/a'), { verb: 'PUT', scope: 'resource' });
    assert.deepEqual(labels('PATCH', '/api/v1/namespaces/ns/configmaps/a', true, 'application/merge-patch+json'), { verb: 'PATCH', scope: 'resource' });
    assert.deepEqual(labels('PATCH', '/api/v1/namespaces/ns/configmaps/a', true, 'application/apply-patch+yaml'), { verb: 'APPLY', scope: 'resource' });
    assert.deepEqual(labels('DELETE', '/api/v1/namespaces/ns/configmaps/a'), { verb: 'DELETE', scope: 'resource' });
    assert.deepEqual(labels('DELETE', '/api/v1/namespaces/ns/configmaps'), { verb: 'DELETE', scope: 'namespace' }, 'deletecollection reports DELETE');
    assert.deepEqual(labels('GET', '/api/v1/namespaces/ns/pods/p/log'), { verb: 'CONNECT', scope: 'resource' });
    assert.deepEqual(labels('OPTIONS', '/api/v1/namespaces/ns/configmaps/a'), { verb: 'other', scope: 'resource' });
  });

  test('requests that reached no route are scoped as CleanScope does (a selector name counts)', () => {
    assert.equal(requestScope(info('GET', '/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name%3Da').info), 'resource');
    assert.equal(requestScope(info('GET', '/api/v1/namespaces/ns/configmaps').info), 'namespace');
    assert.equal(requestScope(info('GET', '/api/v1/configmaps').info), 'cluster');
    assert.equal(requestScope(info('GET', '/version').info), '');
  });

  test('dry_run is empty, All or invalid', () => {
    const dryRun = (q: string) => cleanDryRun(q, new URLSearchParams(q));
    assert.equal(dryRun(''), '');
    assert.equal(dryRun('fieldManager=x'), '');
    assert.equal(dryRun('dryRun=All'), 'All');
    assert.equal(dryRun('dryRun=All&dryRun=All'), 'All');
    assert.equal(dryRun('dryRun=all'), 'invalid');
    assert.equal(dryRun('dryRun='), 'invalid');
    assert.equal(dryRun('dryRun=All&dryRun=Some'), 'invalid');
    assert.equal(dryRun('dryRunX=1'), '');
  });

  test('bucket bounds are written as Go writes floats', () => {
    assert.deepEqual([0.005, 0.025, 1, 1.25, 60, 1000, 100000, 1e6, 1e9, 131072, 0.0001, 0.00001, 2.5e-7].map(formatGoFloat), [
      '0.005', '0.025', '1', '1.25', '60', '1000', '100000', '1e+06', '1e+09', '131072', '0.0001', '1e-05', '2.5e-07',
    ]);
  });
});

describe('metric stability', () => {
  const definition = { name: 'm', help: 'Some help.', labelNames: [] };
  test('help carries the level (ALPHA by default) and, once deprecated, the deprecation notice', () => {
    assert.equal(exposedHelp(definition, false), '[ALPHA] Some help.');
    assert.equal(exposedHelp({ ...definition, stabilityLevel: 'STABLE' }, false), '[STABLE] Some help.');
    assert.equal(exposedHelp({ ...definition, stabilityLevel: 'BETA', deprecatedVersion: '1.34.0' }, true), '[BETA] (Deprecated since 1.34.0) Some help.');
  });

  test('deprecated in this release: shown with the notice; in an earlier one: hidden unless shown again', () => {
    assert.deepEqual(visibilityOf(definition, false), { deprecated: false, hidden: false });
    assert.deepEqual(visibilityOf({ ...definition, deprecatedVersion: '1.34.0' }, false), { deprecated: true, hidden: false });
    assert.deepEqual(visibilityOf({ ...definition, deprecatedVersion: '1.35.0' }, false), { deprecated: false, hidden: false });
    assert.deepEqual(visibilityOf({ ...definition, deprecatedVersion: '1.33.0' }, false), { deprecated: true, hidden: true });
    assert.deepEqual(visibilityOf({ ...definition, deprecatedVersion: '1.28.0' }, true), { deprecated: true, hidden: false });
  });

  test('a registry exposes what is not hidden and counts what it registered and hid', async () => {
    for (const showHidden of [false, true]) {
      const registry = new MetricsRegistry({ showHidden });
      registry.counter({ name: 'a_total', help: 'A.', stabilityLevel: 'STABLE', labelNames: ['x'] }).series('1').inc(2);
      registry.gauge({ name: 'b', help: 'B.', deprecatedVersion: '1.34.0', labelNames: [] }).series().set(3);
      registry.gauge({ name: 'c', help: 'C.', deprecatedVersion: '1.31.0', labelNames: [] }).series().set(4);
      const s = new Scrape(await registry.text());
      assert.equal(s.value('a_total', { x: '1' }), 2);
      assert.equal(s.family('b')?.help, '[ALPHA] (Deprecated since 1.34.0) B.');
      assert.equal(s.family('c')?.help, showHidden ? '[ALPHA] (Deprecated since 1.31.0) C.' : undefined);
      assert.equal(s.value('hidden_metrics_total', {}), showHidden ? 0 : 1);
      assert.equal(s.value('registered_metrics_total', { stability_level: 'ALPHA', deprecated_version: '1.31.0' }), showHidden ? 1 : 0);
      assert.equal(s.value('registered_metrics_total', { stability_level: 'STABLE', deprecated_version: '' }), 1);
    }
  });

  test('--show-hidden-metrics-for-version takes only the previous minor release', () => {
    assert.equal(showHiddenMetricsVersionProblem(''), undefined);
    assert.equal(showHiddenMetricsVersionProblem('1.33'), undefined);
    assert.equal(loadConfig(['--show-hidden-metrics-for-version=1.33'], {}).showHiddenMetricsForVersion, '1.33');
    for (const value of ['1.32', '1.34', '1.33.0', 'v1.33']) {
      assert.throws(() => loadConfig([`--show-hidden-metrics-for-version=${value}`], {}), (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.equal(err.message, "--show-hidden-metrics-for-version must be omitted or have the value '1.33'. Only the previous minor version is allowed");
        return true;
      });
    }
  });
});
