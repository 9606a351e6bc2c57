/**
 * --enable-priority-and-fairness=false: the plain max-in-flight limits instead, as kube-apiserver:
 * no classification headers, no debug dumps, no flow control metrics.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { builtinKinds } from '../../src/kinds/index.ts';
import { enabledKinds } from '../../src/registry/runtime-config.ts';
import { serveFile } from '../helpers/server.ts';

const t = serveFile(['--enable-priority-and-fairness=false']);

test('the flag defaults to true and takes false', () => {
  assert.equal(loadConfig([], {}).enablePriorityAndFairness, true);
  assert.equal(loadConfig(['--enable-priority-and-fairness=false'], {}).enablePriorityAndFairness, false);
  assert.equal(loadConfig([], { ENABLE_PRIORITY_AND_FAIRNESS: 'false' }).enablePriorityAndFairness, false);
});

test('the seats must add up to something; the flowcontrol API may be turned off only without APF', () => {
  assert.throws(() => loadConfig(['--max-requests-inflight=0', '--max-mutating-requests-inflight=0'], {}), {
    message: 'invalid configuration: MaxRequestsInFlight=0 and MaxMutatingRequestsInFlight=0; they must add up to something positive',
  });
  assert.equal(loadConfig(['--max-requests-inflight=0', '--max-mutating-requests-inflight=0', '--enable-priority-and-fairness=false'], {}).maxRequestsInflight, 0);
  const off = ['flowcontrol.apiserver.k8s.io/v1=false'];
  assert.throws(() => enabledKinds(builtinKinds, off), { message: '--runtime-config=flowcontrol.apiserver.k8s.io/v1=false conflicts with --enable-priority-and-fairness=true' });
  assert.equal(enabledKinds(builtinKinds, off, false).some((k) => k.group === 'flowcontrol.apiserver.k8s.io'), false);
});

test('responses carry no classification, the dumps are not served, no flow control metrics', async () => {
  const res = await t.api.get(`/api/v1/namespaces/${t.ns}/configmaps`);
  assert.equal(res.status, 200);
  assert.equal(res.headers['x-kubernetes-pf-flowschema-uid'], undefined);
  assert.equal(res.headers['x-kubernetes-pf-prioritylevel-uid'], undefined);
  assert.equal((await t.api.get('/debug/api_priority_and_fairness/dump_priority_levels')).status, 404);
  const metrics = await t.api.get('/metrics');
  assert.doesNotMatch(metrics.text, /apiserver_flowcontrol_dispatched_requests_total/);
  // The max-in-flight filter keeps its gauge.
  assert.match(metrics.text, /apiserver_current_inflight_requests\{request_kind="readOnly"\}/);
});
