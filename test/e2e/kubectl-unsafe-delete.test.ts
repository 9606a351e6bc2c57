/**
 * kubectl 1.33 meets an object that cannot be read (its row corrupted with SQL) and recovers with an
 * unsafe delete (AllowUnsafeMalformedObjectDeletion on).
 *
 * kubectl has no `--ignore-store-read-error-with-cluster-breaking-potential` flag in 1.33 (the option
 * is alpha; no kubectl release carries the flag yet), so the recovery goes through
 * `kubectl delete --raw` with the query parameter, the way the KEP's alpha documents it. Should a
 * kubectl with the flag be installed, the flag is used instead.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import pg from 'pg';
import { parseTable, skipReason, type Kubectl } from '../helpers/kubectl.ts';
import { namespaceFor, ok, useServer } from './setup.ts';

const e2e = useServer(['--feature-gates=AllowUnsafeMalformedObjectDeletion=true']);
const VERSION = '1.33';
const FLAG = '--ignore-store-read-error-with-cluster-breaking-potential';

describe(`kubectl ${VERSION}: deleting an object that cannot be read`, { skip: skipReason(VERSION) }, () => {
  const ns = namespaceFor('e2e-unsafe-delete', VERSION);
  let k: Kubectl;
  const kn = (args: string[]) => k.run(['-n', ns, ...args]);
  let rv = 0;

  before(async () => {
    k = e2e().kubectl(VERSION);
    ok(await k.run(['create', 'namespace', ns]));
    ok(await kn(['create', 'configmap', 'fine', '--from-literal=a=b']));
    ok(await kn(['create', 'configmap', 'broken', '--from-literal=a=b']));
    const sql = new pg.Client({ connectionString: e2e().srv.db.url });
    await sql.connect();
    try {
      const res = await sql.query(
        `update objects set object = jsonb_set(object, '{data}', '"not a map"') where resource = 'configmaps' and namespace = $1 and name = 'broken' returning resource_version`,
        [ns],
      );
      rv = Number(res.rows[0].resource_version);
    } finally {
      await sql.end();
    }
  });

  it('kubectl get fails, naming the object that cannot be read', async () => {
    const list = await kn(['get', 'configmaps']);
    assert.notEqual(list.code, 0);
    assert.match(list.stderr, /failed to read one or more configmaps from the storage/);
    const one = await kn(['get', 'configmap', 'broken']);
    assert.notEqual(one.code, 0);
    assert.ok(
      one.stderr.includes(`Key: /registry/configmaps/${ns}/broken, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=${rv}: json: cannot unmarshal string into Go struct field ConfigMap.data of type map[string]string`),
      one.stderr,
    );
    // Its neighbour reads; a plain delete fails on the same error.
    assert.match(ok(await kn(['get', 'configmap', 'fine', '-o', 'name'])), /configmap\/fine/);
    const plain = await kn(['delete', 'configmap', 'broken']);
    assert.notEqual(plain.code, 0);
    assert.match(plain.stderr, /corrupt object/);
  });

  it('the unsafe delete removes it, and kubectl get works again', async () => {
    const help = ok(await k.run(['delete', '--help']));
    const result = help.includes(FLAG)
      ? await kn(['delete', 'configmap', 'broken', FLAG])
      : await k.run(['delete', '--raw', `/api/v1/namespaces/${ns}/configmaps/broken?ignoreStoreReadErrorWithClusterBreakingPotential=true`]);
    const out = ok(result);
    if (!help.includes(FLAG)) assert.deepEqual(JSON.parse(out), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'broken', kind: 'ConfigMap' }, code: 200 });
    const rows = parseTable(ok(await kn(['get', 'configmaps'])));
    // (The root CA publisher may have added its ConfigMap meanwhile.)
    assert.deepEqual(rows.map((r) => r.NAME).filter((n) => n !== 'kube-root-ca.crt'), ['fine']);
    const gone = await kn(['get', 'configmap', 'broken']);
    assert.match(gone.stderr, /configmaps "broken" not found/);
  });
});
