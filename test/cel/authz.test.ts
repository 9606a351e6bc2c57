import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AuthorizationRequest, AuthorizerBinding } from '../../src/cel/index.ts';
import { env, run, runAsync } from './helpers.ts';

/** An authorizer that allows what `allow` says and records every question. */
function authorizer(allow: (r: AuthorizationRequest) => boolean, asked: AuthorizationRequest[] = []): AuthorizerBinding {
  return {
    user: { name: 'alice', groups: ['devs'] },
    authorize: async (r) => {
      asked.push(r);
      return allow(r) ? { decision: 'allow', reason: 'rbac says so' } : { decision: 'noOpinion', reason: '' };
    },
    requestResource: { group: 'apps', resource: 'deployments', namespace: 'prod', name: 'web' },
  };
}

test('authz: a resource check asks the authorizer with the attributes built up', async () => {
  const asked: AuthorizationRequest[] = [];
  const r = await runAsync(`authorizer.group('apps').resource('deployments').subresource('scale').namespace('prod').name('web').check('update').allowed()`, { authorizer: authorizer(() => true, asked) });
  assert.equal(r.value, true);
  assert.deepEqual(asked, [
    { user: { name: 'alice', groups: ['devs'] }, verb: 'update', resourceRequest: true, path: '', group: 'apps', apiVersion: '*', resource: 'deployments', subresource: 'scale', namespace: 'prod', name: 'web', fieldSelector: '', labelSelector: '' },
  ]);
});

test('authz: a path check, and reason/errored/error of the decision', async () => {
  const a = authorizer((req) => req.path === '/healthz');
  assert.equal((await runAsync(`authorizer.path('/healthz').check('get').allowed()`, { authorizer: a })).value, true);
  assert.equal((await runAsync(`authorizer.path('/metrics').check('get').allowed()`, { authorizer: a })).value, false);
  assert.equal((await runAsync(`authorizer.path('/healthz').check('get').reason()`, { authorizer: a })).value, 'rbac says so');
  assert.equal((await runAsync(`authorizer.path('/healthz').check('get').errored()`, { authorizer: a })).value, false);
  const failing: AuthorizerBinding = { user: { name: 'u', groups: [] }, authorize: () => Promise.reject(new Error('webhook unreachable')) };
  assert.deepEqual(await runAsync(`authorizer.path('/x').check('get').errored() ? authorizer.path('/x').check('get').error() : ''`, { authorizer: failing }), { value: 'webhook unreachable', cost: 700006 });
});

test('authz: authorizer.requestResource is the request\'s own resource', async () => {
  const asked: AuthorizationRequest[] = [];
  await runAsync(`authorizer.requestResource.check('delete').allowed()`, { authorizer: authorizer(() => true, asked) });
  assert.equal(asked[0]!.resource, 'deployments');
  assert.equal(asked[0]!.namespace, 'prod');
  assert.equal(asked[0]!.name, 'web');
  assert.equal(asked[0]!.verb, 'delete');
});

test('authz: serviceAccount asks as the service account', async () => {
  const asked: AuthorizationRequest[] = [];
  await runAsync(`authorizer.serviceAccount('kube-system', 'builder').group('').resource('pods').check('list').allowed()`, { authorizer: authorizer(() => true, asked) });
  assert.deepEqual(asked[0]!.user, { name: 'system:serviceaccount:kube-system:builder', groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system'] });
});

test('authz: selectors reach the authorizer as written', async () => {
  const asked: AuthorizationRequest[] = [];
  await runAsync(`authorizer.group('').resource('pods').fieldSelector('spec.nodeName=n1').labelSelector('app=web').check('list').allowed()`, { authorizer: authorizer(() => true, asked) });
  assert.equal(asked[0]!.fieldSelector, 'spec.nodeName=n1');
  assert.equal(asked[0]!.labelSelector, 'app=web');
});

test('authz: each distinct question is asked once per evaluation', async () => {
  const asked: AuthorizationRequest[] = [];
  const r = await runAsync(`authorizer.path('/a').check('get').allowed() || authorizer.path('/a').check('get').allowed()`, { authorizer: authorizer(() => false, asked) });
  assert.equal(r.value, false);
  assert.equal(asked.length, 1);
});

test('authz: argument errors are upstream\'s', () => {
  const a = { authorizer: authorizer(() => true) };
  assert.equal(run(`authorizer.path('  ')`, a).error, 'path must not be empty');
  assert.equal(run(`authorizer.group('apps').resource('')`, a).error, 'resource must not be empty');
  assert.equal(run(`authorizer.serviceAccount('default', 'invalid@*name')`, a).error, 'Invalid service account name');
  assert.equal(run(`authorizer.serviceAccount('not@a#valid!namespace', 'validname')`, a).error, 'Invalid service account namespace');
});

test('authz: an expression without a check evaluates synchronously', () => {
  const r = env.compile(`authorizer.group('apps').resource('x') == authorizer.group('apps').resource('x')`).evaluate({ authorizer: authorizer(() => true) });
  assert.ok(!(r instanceof Promise));
  assert.equal(env.compile(`authorizer.path('/x').check('get').allowed()`).usesAuthorizer, true);
  assert.equal(env.compile(`object.x == 1`).usesAuthorizer, false);
});
