/**
 * Objects that cannot be read, over HTTP: lists and gets fail with upstream's Status naming them,
 * and DELETE with ignoreStoreReadErrorWithClusterBreakingPotential (AllowUnsafeMalformedObjectDeletion)
 * removes them: only them, only with the other options unset, only for users who may
 * `unsafe-delete-ignore-read-errors`. Rows are corrupted with SQL, as a hand edit would.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { auditAnnotationsOf } from '../helpers/audit-log.ts';
import { assertStatus, create, eventually, type Api } from '../helpers/fixtures.ts';
import { client } from '../helpers/http.ts';
import { serveFile } from '../helpers/server.ts';
import { openWatch, type WatchEvent } from '../helpers/watch-stream.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'pgkube-unsafe-delete-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const tokens = path.join(dir, 'tokens.csv');
writeFileSync(tokens, 'alice-token,alice,1001\n');
const auditLog = path.join(dir, 'audit.log');
writeFileSync(path.join(dir, 'policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n');

const OPTION = 'ignoreStoreReadErrorWithClusterBreakingPotential';
const NOT_A_MAP = 'json: cannot unmarshal number into Go struct field ConfigMap.data of type map[string]string';

/** Replaces the stored object of a ConfigMap with one whose data is a number; returns the row's version. */
async function corrupt(dbUrl: string, ns: string, name: string): Promise<number> {
  const sql = new pg.Client({ connectionString: dbUrl });
  await sql.connect();
  try {
    const res = await sql.query(
      `update objects set object = jsonb_set(object, '{data}', '5') where resource = 'configmaps' and namespace = $1 and name = $2 returning resource_version`,
      [ns, name],
    );
    assert.equal(res.rowCount, 1);
    return Number(res.rows[0].resource_version);
  } finally {
    await sql.end();
  }
}

function corruptText(ns: string, name: string, rv: number): string {
  return `StorageError: corrupt object, Code: 7, Key: /registry/configmaps/${ns}/${name}, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=${rv}: ${NOT_A_MAP}`;
}

const configMap = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extra }, data: { a: 'b' } });

describe('with AllowUnsafeMalformedObjectDeletion', () => {
  const t = serveFile([
    '--feature-gates=AllowUnsafeMalformedObjectDeletion=true',
    `--token-auth-file=${tokens}`,
    `--audit-policy-file=${path.join(dir, 'policy.yaml')}`,
    `--audit-log-path=${auditLog}`,
  ]);
  let alice: Api;
  const cms = () => `/api/v1/namespaces/${t.ns}/configmaps`;
  let rv = 0;

  before(async () => {
    alice = client(t.srv.url, t.srv.anonymousAgent);
    const asAlice = (api: Api): Api => ({
      get: (p, h) => api.get(p, { Authorization: 'Bearer alice-token', ...h }),
      post: (p, b, h) => api.post(p, b, { Authorization: 'Bearer alice-token', ...h }),
      put: (p, b, h) => api.put(p, b, { Authorization: 'Bearer alice-token', ...h }),
      patch: api.patch,
      delete: (p, b, h) => api.delete(p, b, { Authorization: 'Bearer alice-token', ...h }),
    });
    alice = asAlice(alice);
    // alice may read and delete ConfigMaps here; the unsafe verb comes later.
    await create(t.api, `/apis/rbac.authorization.k8s.io/v1/namespaces/${t.ns}/roles`, {
      metadata: { name: 'cm-admin' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'delete', 'deletecollection'] }],
    });
    await create(t.api, `/apis/rbac.authorization.k8s.io/v1/namespaces/${t.ns}/rolebindings`, {
      metadata: { name: 'alice' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-admin' },
      subjects: [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' }],
    });
    await eventually(async () => (await alice.get(cms())).status === 200, 'alice may list');
    for (const name of ['good', 'bad', 'held']) await create(t.api, cms(), configMap(name));
    rv = await corrupt(t.srv.db.url, t.ns, 'bad');
  });

  test('a list answers 500 StorageReadError naming the object, in every form (the streamed ones before their first byte)', async () => {
    const expected = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'failed to read one or more configmaps from the storage',
      reason: 'StorageReadError',
      details: {
        name: 'list',
        kind: 'configmaps',
        causes: [{ reason: 'UnexpectedServerResponse', message: corruptText(t.ns, 'bad', rv), field: `/registry/configmaps/${t.ns}/bad` }],
      },
      code: 500,
    };
    assert.deepEqual(assertStatus(await t.api.get(cms()), 500, 'StorageReadError'), expected);
    assert.deepEqual((await t.api.get(`${cms()}?limit=10`)).json, expected);
    assert.deepEqual((await t.api.get(cms(), { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' })).json, expected);
    assert.deepEqual((await t.api.get(cms(), { Accept: 'application/yaml' })).status, 500);
    assert.equal((await t.api.get(cms(), { Accept: 'application/vnd.kubernetes.protobuf' })).status, 500);
    assert.deepEqual((await t.api.get('/api/v1/configmaps')).json.details.causes.map((c: any) => c.field), [`/registry/configmaps/${t.ns}/bad`]);
  });

  test('a get answers 500 InternalError naming it; its neighbours read', async () => {
    const text = corruptText(t.ns, 'bad', rv);
    const s = assertStatus(await t.api.get(`${cms()}/bad`), 500, 'InternalError', `Internal error occurred: ${text}`);
    assert.deepEqual(s.details, { causes: [{ message: text }] });
    assert.equal((await t.api.get(`${cms()}/good`)).status, 200);
    // A normal delete meets the same error.
    assertStatus(await t.api.delete(`${cms()}/bad`), 500, 'InternalError', `Internal error occurred: ${text}`);
  });

  test('the option with any other option set is 422, naming each', async () => {
    const res = await t.api.delete(`${cms()}/bad?${OPTION}=true&dryRun=All&gracePeriodSeconds=0&propagationPolicy=Background`, { preconditions: { uid: 'x' } });
    const head = `${OPTION}: Invalid value: true: cannot be set together with`;
    assertStatus(
      res,
      422,
      'Invalid',
      `DeleteOptions.meta.k8s.io "" is invalid: [${head} .dryRun, ${head} .propagationPolicy, ${head} .gracePeriodSeconds, ${head} .preconditions]`,
    );
    assertStatus(await t.api.delete(`${cms()}/bad`, { [OPTION]: true, orphanDependents: false }), 422, 'Invalid', `DeleteOptions.meta.k8s.io "" is invalid: ${head} .orphanDependents`);
    assert.equal((await t.api.get(`${cms()}/good`)).status, 200);
  });

  test('the option on an object that reads, or is missing, is 422', async () => {
    const detail = `${OPTION}: Invalid value: true: is exclusively used to delete corrupt object(s), try again by removing this option`;
    assertStatus(await t.api.delete(`${cms()}/good?${OPTION}=true`), 422, 'Invalid', `configmaps "good" is invalid: ${detail}`);
    assertStatus(await t.api.delete(`${cms()}/missing?${OPTION}=true`), 422, 'Invalid', `configmaps "missing" is invalid: ${detail}`);
    assert.equal((await t.api.get(`${cms()}/good`)).status, 200);
  });

  test('the query parameter reads as upstream reads a bool: bare is true, false and 0 are false', async () => {
    await create(t.api, cms(), configMap('plain'));
    assertStatus(await t.api.delete(`${cms()}/plain?${OPTION}`), 422, 'Invalid', /is exclusively used to delete corrupt object/);
    assertStatus(await t.api.delete(`${cms()}/plain?${OPTION}=yes`), 422, 'Invalid', /is exclusively used to delete corrupt object/);
    // Not asked for: a normal delete (with the other options allowed).
    assert.equal((await t.api.delete(`${cms()}/plain?${OPTION}=0&gracePeriodSeconds=0`)).status, 200);
    await create(t.api, cms(), configMap('plain'));
    assert.equal((await t.api.delete(`${cms()}/plain?${OPTION}=False`)).status, 200);
    await create(t.api, cms(), configMap('plain'));
    assert.equal((await t.api.delete(`${cms()}/plain`, { [OPTION]: false })).status, 200);
  });

  test('deletecollection never takes it', async () => {
    assertStatus(
      await t.api.delete(`${cms()}?${OPTION}=true`),
      422,
      'Invalid',
      `DeleteOptions.meta.k8s.io "" is invalid: ${OPTION}: Invalid value: true: is not allowed with DELETECOLLECTION, try again after removing the option`,
    );
    assert.equal((await t.api.get(`${cms()}/good`)).status, 200);
  });

  test('a user without the unsafe-delete-ignore-read-errors verb is refused (403), the request audited as an unsafe delete', async () => {
    const res = await alice.delete(`${cms()}/bad?${OPTION}=true`);
    assertStatus(res, 403, 'Forbidden', `configmaps "bad" is forbidden: not permitted to do "unsafe-delete-ignore-read-errors", reason: `);
    assert.deepEqual(res.json.details, { name: 'bad', kind: 'configmaps' });
    assert.equal((await auditAnnotationsOf(auditLog, res))['apiserver.k8s.io/unsafe-delete-ignore-read-error'], '');
    assert.equal((await t.api.get(`${cms()}/bad`)).status, 500);
  });

  test('with the verb it removes the object; watchers of it get an ERROR event; the list is healthy again', async () => {
    await create(t.api, `/apis/rbac.authorization.k8s.io/v1/namespaces/${t.ns}/roles`, {
      metadata: { name: 'unsafe' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['unsafe-delete-ignore-read-errors'] }],
    });
    await create(t.api, `/apis/rbac.authorization.k8s.io/v1/namespaces/${t.ns}/rolebindings`, {
      metadata: { name: 'alice-unsafe' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'unsafe' },
      subjects: [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' }],
    });
    // The latest version (lists of this resource fail): the watch sees what comes after it.
    const version = (await t.api.get('/api/v1/namespaces?limit=1')).json.metadata.resourceVersion;
    const events: WatchEvent[] = [];
    const watch = openWatch(t.srv.url, `${cms()}?watch=1&resourceVersion=${version}`, t.srv.adminAgent, (ev) => events.push(ev));
    try {
      const res = await eventually(async () => {
        const r = await alice.delete(`${cms()}/bad?${OPTION}=true`);
        return r.status === 403 ? undefined : r;
      }, 'alice may unsafe-delete');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'bad', kind: 'ConfigMap' }, code: 200 });
      await watch.done;
      assert.deepEqual(events, [
        {
          type: 'ERROR',
          object: {
            kind: 'Status',
            apiVersion: 'v1',
            metadata: {},
            status: 'Failure',
            message: `saw a DELETED event, but object data is corrupt - object not decodable revision=${rv}: ${NOT_A_MAP}`,
            reason: 'StorageReadError',
            code: 500,
          },
        },
      ]);
    } finally {
      watch.abort();
    }
    assertStatus(await t.api.get(`${cms()}/bad`), 404, 'NotFound');
    assert.deepEqual((await t.api.get(cms())).json.items.map((i: any) => i.metadata.name), ['good', 'held']);
  });

  test('an object held by finalizers goes at once (the option in the body)', async () => {
    await t.api.patch(`${cms()}/held`, { metadata: { finalizers: ['example.com/keep'] } }, 'application/merge-patch+json');
    const heldRv = await corrupt(t.srv.db.url, t.ns, 'held');
    assert.equal((await t.api.get(cms())).status, 500);
    assert.ok(heldRv > 0);
    const res = await t.api.delete(`${cms()}/held`, { kind: 'DeleteOptions', apiVersion: 'v1', [OPTION]: true });
    assert.equal(res.status, 200, res.text);
    assertStatus(await t.api.get(`${cms()}/held`), 404, 'NotFound');
    assert.deepEqual((await t.api.get(cms())).json.items.map((i: any) => i.metadata.name), ['good']);
  });
});

describe('without AllowUnsafeMalformedObjectDeletion (its default)', () => {
  const t = serveFile();
  const cms = () => `/api/v1/namespaces/${t.ns}/configmaps`;

  test('the option is dropped: the normal delete runs (and fails on a corrupt object), other options are not judged against it', async () => {
    for (const name of ['good', 'bad']) await create(t.api, cms(), configMap(name));
    const rv = await corrupt(t.srv.db.url, t.ns, 'bad');
    assertStatus(await t.api.delete(`${cms()}/bad?${OPTION}=true`), 500, 'InternalError', `Internal error occurred: ${corruptText(t.ns, 'bad', rv)}`);
    assertStatus(await t.api.get(cms()), 500, 'StorageReadError');
    const res = await t.api.delete(`${cms()}/good?${OPTION}=true&gracePeriodSeconds=0`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.status, 'Success');
  });
});
