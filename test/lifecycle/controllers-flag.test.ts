import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseControllers } from '../../src/controllers/controller-names.ts';
import { startTestServer } from '../helpers/server.ts';

test('* turns on the default controllers but not bootstrapsigner and tokencleaner', () => {
  const on = parseControllers(['*']);
  assert.equal(on('namespace'), true);
  assert.equal(on('namespace-controller'), true);
  assert.equal(on('clusterrole-aggregation'), true);
  assert.equal(on('bootstrapsigner'), false);
  assert.equal(on('tokencleaner'), false);
});

test('a name turns one on, -name turns one off, and the first mention wins', () => {
  const on = parseControllers(['*', 'bootstrapsigner', '-namespace', 'token-cleaner-controller']);
  assert.equal(on('bootstrap-signer-controller'), true);
  assert.equal(on('tokencleaner'), true);
  assert.equal(on('namespace'), false);
  assert.equal(on('clusterrole-aggregation-controller'), true);
  assert.equal(parseControllers(['namespace'])('clusterrole-aggregation'), false);
  assert.equal(parseControllers(['namespace'])('namespace'), true);
});

test('names upstream knows but this server does not run are accepted', () => {
  assert.doesNotThrow(() => parseControllers(['*', 'deployment', '-garbagecollector', 'job-controller']));
});

test('unknown names are rejected with upstream message', () => {
  assert.throws(() => parseControllers(['*', 'foo']), /"foo" is not in the list of known controllers/);
  assert.throws(() => parseControllers(['-bar']), /"bar" is not in the list of known controllers/);
});

test('a server runs the controllers the flag names', async () => {
  const srv = await startTestServer(['--controllers=*,bootstrapsigner,tokencleaner']);
  try {
    const enabled = srv.server.controllers.enabled;
    for (const name of ['namespace-controller', 'bootstrap-signer-controller', 'token-cleaner-controller', 'clusterrole-aggregation-controller']) {
      assert.ok(enabled.includes(name), name);
    }
  } finally {
    await srv.stop();
  }
});

test('-namespace keeps the namespace controller from running: a deleted namespace stays Terminating', async () => {
  const srv = await startTestServer(['--controllers=*,-namespace']);
  try {
    assert.ok(!srv.server.controllers.enabled.includes('namespace-controller'));
    assert.ok(!srv.server.controllers.enabled.includes('bootstrap-signer-controller'));
    const { client } = await import('../helpers/http.ts');
    const api = client(srv.url, srv.adminAgent);
    assert.equal((await api.post('/api/v1/namespaces', { metadata: { name: 'stays' } })).status, 201);
    assert.equal((await api.delete('/api/v1/namespaces/stays')).status, 200);
    await new Promise((r) => setTimeout(r, 1500));
    const ns = await api.get('/api/v1/namespaces/stays');
    assert.equal(ns.status, 200);
    assert.equal(ns.json.status.phase, 'Terminating');
  } finally {
    await srv.stop();
  }
});

test('an unknown controller name fails the start', async () => {
  await assert.rejects(startTestServer(['--controllers=*,foo']), /"foo" is not in the list of known controllers/);
});
