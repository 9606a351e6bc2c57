import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import type { Context } from 'koa';
import { ApiError } from '../../src/api/errors.ts';
import type { Attributes } from '../../src/auth/authz/authorizer.ts';
import { impersonation, readImpersonationHeaders, splitServiceAccountUsername } from '../../src/auth/impersonation.ts';
import type { UserInfo } from '../../src/auth/user.ts';
import { assertStatus } from '../helpers/fixtures.ts';
import { client } from '../helpers/http.ts';
import { serveFile } from '../helpers/server.ts';

const bob: UserInfo = { name: 'bob', groups: ['dev', 'system:authenticated'] };

/** Runs the middleware once with these header lines, an access checker that allows what `allow` says, and records what was asked. */
async function run(headers: Record<string, string[]>, allow: (a: Attributes) => boolean = () => true) {
  const asked: Attributes[] = [];
  const access = {
    authorize: async (a: Attributes) => {
      asked.push(a);
      return allow(a) ? { decision: 'allow' as const } : { decision: 'noOpinion' as const, reason: 'no RBAC policy matched' };
    },
  };
  const rawHeaders = Object.entries(headers).flatMap(([k, vs]) => vs.flatMap((v) => [k, v]));
  const ctx = { req: { rawHeaders, headersDistinct: headers, headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v.join(', ')])) }, state: { user: bob } } as unknown as Context;
  let reached = false;
  let error: unknown;
  try {
    await impersonation(access)(ctx, async () => {
      reached = true;
    });
  } catch (err) {
    error = err;
  }
  const state = ctx.state as { user: UserInfo; impersonatedBy?: UserInfo };
  return { asked, reached, error: error as ApiError | undefined, user: state.user, impersonatedBy: state.impersonatedBy, headersLeft: Object.keys(ctx.req.headers) };
}

const brief = (a: Attributes) => [a.request.verb, a.request.apiGroup, a.request.resource, a.request.subresource, a.request.namespace, a.request.name].join('|');

describe('impersonation (unit)', () => {
  test('no impersonation headers: nothing asked, the user unchanged', async () => {
    const r = await run({ 'user-agent': ['x'] });
    assert.equal(r.reached, true);
    assert.deepEqual(r.headersLeft, ['user-agent']);
    assert.equal(r.asked.length, 0);
    assert.equal(r.user, bob);
    assert.equal(r.impersonatedBy, undefined);
  });

  test('user, groups, extras and uid are each authorized for the requester, in upstream\'s order, then the request runs as the new user', async () => {
    const r = await run({
      'impersonate-user': ['alice'],
      'impersonate-group': ['g1', 'g2, with comma'],
      'impersonate-uid': ['1234'],
      'impersonate-extra-scopes': ['view', 'edit'],
      'impersonate-extra-example.org%2fteam': ['a'],
    });
    assert.equal(r.reached, true);
    assert.ok(r.asked.every((a) => a.user === bob && a.request.isResourceRequest));
    assert.deepEqual(r.asked.map(brief), [
      'impersonate||users|||alice',
      'impersonate||groups|||g1',
      'impersonate||groups|||g2, with comma',
      'impersonate|authentication.k8s.io|userextras|scopes||view',
      'impersonate|authentication.k8s.io|userextras|scopes||edit',
      'impersonate|authentication.k8s.io|userextras|example.org/team||a',
      'impersonate|authentication.k8s.io|uids|||1234',
    ]);
    assert.deepEqual(r.user, {
      name: 'alice',
      uid: '1234',
      groups: ['g1', 'g2, with comma', 'system:authenticated'],
      extra: { scopes: ['view', 'edit'], 'example.org/team': ['a'] },
    });
    assert.equal(r.impersonatedBy, bob);
    // The honoured headers are gone from the request.
    assert.deepEqual(r.headersLeft, []);
  });

  test('a service account user is checked as serviceaccounts in its namespace and gets its groups unless groups are given', async () => {
    const r = await run({ 'impersonate-user': ['system:serviceaccount:ns1:builder'] });
    assert.deepEqual(r.asked.map(brief), ['impersonate||serviceaccounts||ns1|builder']);
    assert.deepEqual(r.user.groups, ['system:serviceaccounts', 'system:serviceaccounts:ns1', 'system:authenticated']);
    const withGroups = await run({ 'impersonate-user': ['system:serviceaccount:ns1:builder'], 'impersonate-group': ['only'] });
    assert.deepEqual(withGroups.user.groups, ['only', 'system:authenticated']);
    // Not a valid service account name: an ordinary user.
    const odd = await run({ 'impersonate-user': ['system:serviceaccount:Bad_NS:x'] });
    assert.deepEqual(odd.asked.map(brief), ['impersonate||users|||system:serviceaccount:Bad_NS:x']);
    assert.deepEqual(odd.user.groups, ['system:authenticated']);
  });

  test('system:anonymous gets system:unauthenticated; system:unauthenticated given keeps system:authenticated out', async () => {
    assert.deepEqual((await run({ 'impersonate-user': ['system:anonymous'] })).user.groups, ['system:unauthenticated']);
    assert.deepEqual((await run({ 'impersonate-user': ['x'], 'impersonate-group': ['system:unauthenticated'] })).user.groups, ['system:unauthenticated']);
    assert.deepEqual((await run({ 'impersonate-user': ['x'], 'impersonate-group': ['system:authenticated'] })).user.groups, ['system:authenticated']);
  });

  test('the first refusal is the 403 upstream gives, naming the requester and what was asked; the request does not run', async () => {
    const user = await run({ 'impersonate-user': ['alice'] }, () => false);
    assert.equal(user.reached, false);
    assert.equal(user.error?.code, 403);
    assert.equal(user.error?.message, 'users "alice" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope: no RBAC policy matched');
    assert.deepEqual(user.error?.status.details, { name: 'alice', kind: 'users' });
    assert.equal(user.user, bob);

    const group = await run({ 'impersonate-user': ['alice'], 'impersonate-group': ['admins'] }, (a) => a.request.resource === 'users');
    assert.equal(group.error?.message, 'groups "admins" is forbidden: User "bob" cannot impersonate resource "groups" in API group "" at the cluster scope: no RBAC policy matched');

    const sa = await run({ 'impersonate-user': ['system:serviceaccount:ns1:builder'] }, () => false);
    assert.equal(sa.error?.message, 'serviceaccounts "builder" is forbidden: User "bob" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns1": no RBAC policy matched');

    const extra = await run({ 'impersonate-user': ['alice'], 'impersonate-extra-scopes': ['view'] }, (a) => a.request.resource !== 'userextras');
    assert.equal(
      extra.error?.message,
      'userextras.authentication.k8s.io "view" is forbidden: User "bob" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope: no RBAC policy matched',
    );
    assert.deepEqual(extra.error?.status.details, { name: 'view', group: 'authentication.k8s.io', kind: 'userextras' });

    const uid = await run({ 'impersonate-user': ['alice'], 'impersonate-uid': ['42'] }, (a) => a.request.resource !== 'uids');
    assert.equal(uid.error?.message, 'uids.authentication.k8s.io "42" is forbidden: User "bob" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope: no RBAC policy matched');
  });

  test('groups, uid or extras without a user are a 400; an empty extra key is a 400', async () => {
    const alone: Record<string, string[]>[] = [{ 'impersonate-group': ['g'] }, { 'impersonate-uid': ['1'] }, { 'impersonate-extra-scopes': ['v'] }];
    for (const headers of alone) {
      const r = await run(headers);
      assert.equal(r.reached, false);
      assert.equal(r.error?.code, 400);
      assert.match(r.error!.message, /without impersonating a user$/);
      assert.equal(r.asked.length, 0);
    }
    assert.equal((await run({ 'impersonate-group': ['g'] })).error?.message, 'requested group "g" without impersonating a user');
    const empty = await run({ 'impersonate-user': ['a'], 'impersonate-extra-': ['v'] });
    assert.equal(empty.error?.code, 400);
    assert.equal(empty.error?.message, 'impersonation extra header key must not be empty');
    // An empty user header asks for nothing.
    assert.equal((await run({ 'impersonate-user': [''] })).reached, true);
  });

  test('extra keys are lower-cased, then percent-decoded (kept as is when that fails)', () => {
    const r = readImpersonationHeaders({ 'impersonate-user': ['a'], 'impersonate-extra-a%2fb': ['1'], 'impersonate-extra-bad%zz': ['2'], 'impersonate-extra-up%41': ['3'] });
    assert.deepEqual(r?.user.extra, { 'a/b': ['1'], 'bad%zz': ['2'], upA: ['3'] });
  });

  test('service account user names as upstream splits them', () => {
    assert.deepEqual(splitServiceAccountUsername('system:serviceaccount:kube-system:default'), { namespace: 'kube-system', name: 'default' });
    assert.deepEqual(splitServiceAccountUsername('system:serviceaccount:ns:a.b'), { namespace: 'ns', name: 'a.b' });
    for (const u of ['system:serviceaccount:ns', 'system:serviceaccount:ns:a:b', 'system:serviceaccount::a', 'system:serviceaccount:ns:', 'system:serviceaccounts:ns:a', 'alice']) {
      assert.equal(splitServiceAccountUsername(u), undefined, u);
    }
  });
});

describe('impersonation (server, --authorization-mode=AlwaysDeny)', () => {
  // The token file exists before the server starts (serveFile reads its flags now).
  const dir = mkdtempSync(path.join(tmpdir(), 'pgkube-impersonation-'));
  writeFileSync(path.join(dir, 'tokens.csv'), 'bob-token,bob,1001,"dev"\n');
  const t = serveFile([`--token-auth-file=${path.join(dir, 'tokens.csv')}`, '--authorization-mode=AlwaysDeny']);
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('system:masters may impersonate anyone; the request is then authorized as the impersonated user', async () => {
    assertStatus(
      await t.api.get('/api/v1/namespaces', { 'Impersonate-User': 'alice' }),
      403,
      'Forbidden',
      'namespaces is forbidden: User "alice" cannot list resource "namespaces" in API group "" at the cluster scope: Everything is forbidden.',
    );
    assertStatus(
      await t.api.get(`/api/v1/namespaces/${t.ns}/configmaps`, { 'Impersonate-User': 'system:serviceaccount:kube-system:default' }),
      403,
      'Forbidden',
      `configmaps is forbidden: User "system:serviceaccount:kube-system:default" cannot list resource "configmaps" in API group "" in the namespace "${t.ns}": Everything is forbidden.`,
    );
    // The groups given are the user's: system:masters opens everything again.
    const res = await t.api.get('/api/v1/namespaces', { 'Impersonate-User': 'alice', 'Impersonate-Group': 'system:masters' });
    assert.equal(res.status, 200, res.text);
  });

  test('a user without the right to impersonate gets upstream\'s 403, naming itself', async () => {
    const bobApi = (headers: Record<string, string>) => client(t.srv.url, t.srv.anonymousAgent).get('/api/v1/namespaces', { Authorization: 'Bearer bob-token', ...headers });
    assertStatus(
      await bobApi({ 'Impersonate-User': 'alice' }),
      403,
      'Forbidden',
      'users "alice" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope: Everything is forbidden.',
    );
    assertStatus(
      await bobApi({ 'Impersonate-User': 'system:serviceaccount:kube-system:default' }),
      403,
      'Forbidden',
      'serviceaccounts "default" is forbidden: User "bob" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "kube-system": Everything is forbidden.',
    );
    assertStatus(await bobApi({ 'Impersonate-Group': 'system:masters' }), 400, 'BadRequest', 'requested group "system:masters" without impersonating a user');
    // An anonymous request may not impersonate either.
    assertStatus(
      await client(t.srv.url, t.srv.anonymousAgent).get('/api/v1/namespaces', { 'Impersonate-User': 'alice' }),
      403,
      'Forbidden',
      'users "alice" is forbidden: User "system:anonymous" cannot impersonate resource "users" in API group "" at the cluster scope: Everything is forbidden.',
    );
  });
});
