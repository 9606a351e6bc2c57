import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertStatus, configMap, create, createNamespace, secret } from '../helpers/fixtures.ts';
import { serveFile } from '../helpers/server.ts';

const t = serveFile();

const names = (res: { json: any }) => res.json.items.map((i: any) => i.metadata.name);

/** A namespace holding configmaps `cm-0` … `cm-<n-1>`; returns its configmaps path. */
async function filled(n: number, labels: (i: number) => Record<string, string> = () => ({})): Promise<string> {
  const space = await createNamespace(t.api);
  const path = `/api/v1/namespaces/${space}/configmaps`;
  for (let i = 0; i < n; i++) await create(t.api, path, configMap(`cm-${i}`, { i: String(i) }, { labels: labels(i) }));
  return path;
}

describe('chunked lists', () => {
  test('limit and continue walk every item once, in name order', async () => {
    const path = await filled(5);
    const seen: string[] = [];
    let token = '';
    let pages = 0;
    do {
      const res = await t.api.get(`${path}?limit=2${token ? `&continue=${encodeURIComponent(token)}` : ''}`);
      assert.equal(res.status, 200, res.text);
      seen.push(...names(res));
      token = res.json.metadata.continue ?? '';
      pages++;
    } while (token);
    assert.equal(pages, 3);
    assert.deepEqual(seen, ['cm-0', 'cm-1', 'cm-2', 'cm-3', 'cm-4']);
  });

  test('every page shows the snapshot of the first, even when objects change in between', async () => {
    const path = await filled(4);
    const first = await t.api.get(`${path}?limit=2`);
    const version = first.json.metadata.resourceVersion;
    // Change the rest of the list after the first page was read.
    const cm2 = (await t.api.get(`${path}/cm-2`)).json;
    assert.equal((await t.api.put(`${path}/cm-2`, { ...cm2, data: { i: 'changed' } })).status, 200);
    assert.equal((await t.api.delete(`${path}/cm-3`)).status, 200);
    await create(t.api, path, configMap('cm-9'));

    const second = await t.api.get(`${path}?limit=2&continue=${encodeURIComponent(first.json.metadata.continue)}`);
    assert.equal(second.status, 200, second.text);
    assert.equal(second.json.metadata.resourceVersion, version);
    assert.deepEqual(names(second), ['cm-2', 'cm-3']);
    assert.deepEqual(second.json.items[0].data, { i: '2' });
    assert.equal(second.json.metadata.continue, undefined);

    const fresh = await t.api.get(path);
    assert.deepEqual(names(fresh), ['cm-0', 'cm-1', 'cm-2', 'cm-9']);
    assert.deepEqual(fresh.json.items[2].data, { i: 'changed' });
  });

  test('remainingItemCount is set on pages that are not the last', async () => {
    const path = await filled(5);
    const first = await t.api.get(`${path}?limit=2`);
    assert.equal(first.json.metadata.remainingItemCount, 3);
    const second = await t.api.get(`${path}?limit=2&continue=${encodeURIComponent(first.json.metadata.continue)}`);
    assert.equal(second.json.metadata.remainingItemCount, 1);
    const last = await t.api.get(`${path}?limit=2&continue=${encodeURIComponent(second.json.metadata.continue)}`);
    assert.deepEqual(names(last), ['cm-4']);
    assert.equal(last.json.metadata.remainingItemCount, undefined);
    assert.equal(last.json.metadata.continue, undefined);
    const whole = await t.api.get(`${path}?limit=10`);
    assert.equal(whole.json.metadata.remainingItemCount, undefined);
    assert.equal(whole.json.metadata.continue, undefined);
  });

  test("a continue token carries the page's count: the next page subtracts instead of counting again", async () => {
    const path = await filled(6);
    const first = await t.api.get(`${path}?limit=2`);
    assert.equal(first.json.metadata.remainingItemCount, 4);
    const token = (json: object) => Buffer.from(JSON.stringify(json)).toString('base64url');
    const decoded = JSON.parse(Buffer.from(first.json.metadata.continue, 'base64url').toString('utf8'));
    assert.equal(decoded.remaining, 4);
    // Objects change after the first page: the walk still reads (and counts) the first page's snapshot.
    assert.equal((await t.api.delete(`${path}/cm-5`)).status, 200);
    await create(t.api, path, configMap('cm-9'));
    const second = await t.api.get(`${path}?limit=2&continue=${encodeURIComponent(first.json.metadata.continue)}`);
    assert.deepEqual(names(second), ['cm-2', 'cm-3']);
    assert.equal(second.json.metadata.remainingItemCount, 2);
    // The count comes from the token: one that says 100 gets 98 (a client that edits its token misleads only itself).
    const edited = await t.api.get(`${path}?limit=2&continue=${token({ ...decoded, remaining: 100 })}`);
    assert.deepEqual(names(edited), ['cm-2', 'cm-3']);
    assert.equal(edited.json.metadata.remainingItemCount, 98);
    // Upstream's shape (no count), or a count that is no count: the page counts, at the token's snapshot.
    for (const remaining of [undefined, -1, 1.5, 'x']) {
      const res = await t.api.get(`${path}?limit=2&continue=${token({ ...decoded, remaining })}`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.metadata.remainingItemCount, 2, String(remaining));
    }
  });

  test('remainingItemCount is left out when a selector is used', async () => {
    const path = await filled(5, () => ({ all: 'yes' }));
    const byLabel = await t.api.get(`${path}?limit=2&labelSelector=all%3Dyes`);
    assert.deepEqual(names(byLabel), ['cm-0', 'cm-1']);
    assert.ok(byLabel.json.metadata.continue);
    assert.equal(byLabel.json.metadata.remainingItemCount, undefined);
    const byField = await t.api.get(`${path}?limit=2&fieldSelector=metadata.name!%3Dcm-0`);
    assert.deepEqual(names(byField), ['cm-1', 'cm-2']);
    assert.equal(byField.json.metadata.remainingItemCount, undefined);
  });

  test('limit=0 means no limit', async () => {
    const path = await filled(3);
    const res = await t.api.get(`${path}?limit=0`);
    assert.deepEqual(names(res), ['cm-0', 'cm-1', 'cm-2']);
    assert.equal(res.json.metadata.continue, undefined);
  });

  test('a continue token that cannot be decoded is a 400', async () => {
    const path = await filled(1);
    assertStatus(await t.api.get(`${path}?continue=not-a-token`), 400, 'BadRequest', /^invalid continue token: continue key is not valid: /);
  });
});

describe('resourceVersion and resourceVersionMatch', () => {
  async function snapshot(): Promise<{ path: string; old: string }> {
    const path = await filled(2);
    const old = (await t.api.get(path)).json.metadata.resourceVersion;
    await create(t.api, path, configMap('cm-later'));
    return { path, old };
  }

  test('unset and 0 read the latest state', async () => {
    const { path } = await snapshot();
    assert.deepEqual(names(await t.api.get(path)), ['cm-0', 'cm-1', 'cm-later']);
    assert.deepEqual(names(await t.api.get(`${path}?resourceVersion=0`)), ['cm-0', 'cm-1', 'cm-later']);
    assert.deepEqual(names(await t.api.get(`${path}?resourceVersion=0&resourceVersionMatch=NotOlderThan`)), ['cm-0', 'cm-1', 'cm-later']);
  });

  test('a version without limit is NotOlderThan: at least that new', async () => {
    const { path, old } = await snapshot();
    const res = await t.api.get(`${path}?resourceVersion=${old}`);
    assert.deepEqual(names(res), ['cm-0', 'cm-1', 'cm-later']);
    assert.ok(Number(res.json.metadata.resourceVersion) > Number(old));
    const explicit = await t.api.get(`${path}?resourceVersion=${old}&resourceVersionMatch=NotOlderThan`);
    assert.deepEqual(names(explicit), ['cm-0', 'cm-1', 'cm-later']);
  });

  test('a version with limit, and Exact, read the state at that version', async () => {
    const { path, old } = await snapshot();
    const paged = await t.api.get(`${path}?resourceVersion=${old}&limit=10`);
    assert.deepEqual(names(paged), ['cm-0', 'cm-1']);
    assert.equal(paged.json.metadata.resourceVersion, old);
    const exact = await t.api.get(`${path}?resourceVersion=${old}&resourceVersionMatch=Exact`);
    assert.deepEqual(names(exact), ['cm-0', 'cm-1']);
    assert.equal(exact.json.metadata.resourceVersion, old);
  });

  test('continue with resourceVersion 0 is treated as the token alone', async () => {
    const path = await filled(3);
    const first = await t.api.get(`${path}?limit=2`);
    const res = await t.api.get(`${path}?limit=2&resourceVersion=0&continue=${encodeURIComponent(first.json.metadata.continue)}`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(names(res), ['cm-2']);
  });

  test('continue with a non-zero resourceVersion is 400', async () => {
    const path = await filled(3);
    const first = await t.api.get(`${path}?limit=2`);
    const rv = first.json.metadata.resourceVersion;
    assertStatus(
      await t.api.get(`${path}?limit=2&resourceVersion=${rv}&continue=${encodeURIComponent(first.json.metadata.continue)}`),
      400,
      'BadRequest',
      'specifying resource version is not allowed when using continue',
    );
  });

  const invalid = (detail: string) => `ListOptions.meta.k8s.io "" is invalid: ${detail}`;
  for (const [query, message] of [
    ['resourceVersionMatch=Exact', invalid('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided')],
    ['resourceVersionMatch=NotOlderThan&limit=5', invalid('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided')],
    ['resourceVersion=0&resourceVersionMatch=Exact', invalid('resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"')],
    ['resourceVersion=0&resourceVersionMatch=Exact&limit=5', invalid('resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"')],
    ['resourceVersion=1&resourceVersionMatch=Newest', invalid('resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""')],
    ['sendInitialEvents=true', invalid('sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list')],
  ] as const) {
    test(`invalid ListOptions are 422: ${query}`, async () => {
      const s = assertStatus(await t.api.get(`/api/v1/namespaces/default/configmaps?${query}`), 422, 'Invalid', message);
      assert.equal(s.details.kind, 'ListOptions');
      assert.equal(s.details.group, 'meta.k8s.io');
    });
  }

  test('resourceVersionMatch with a continue token is 422', async () => {
    const path = await filled(3);
    const first = await t.api.get(`${path}?limit=2`);
    assertStatus(
      await t.api.get(`${path}?limit=2&resourceVersion=${first.json.metadata.resourceVersion}&resourceVersionMatch=Exact&continue=${encodeURIComponent(first.json.metadata.continue)}`),
      422,
      'Invalid',
      /resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided/,
    );
  });

  test('a version from the future is a 504 Timeout once the wait gives up', async () => {
    const res = await t.api.get('/api/v1/namespaces/default/configmaps?resourceVersion=999999999&resourceVersionMatch=NotOlderThan');
    const s = assertStatus(res, 504, 'Timeout', /^Timeout: Too large resource version: 999999999, current: \d+$/);
    assert.deepEqual(s.details, { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 });
  });

  test('get with resourceVersion 0 or a reached version reads the object', async () => {
    const path = await filled(1);
    const cm = (await t.api.get(`${path}/cm-0`)).json;
    assert.equal((await t.api.get(`${path}/cm-0?resourceVersion=0`)).status, 200);
    const res = await t.api.get(`${path}/cm-0?resourceVersion=${cm.metadata.resourceVersion}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.json.metadata, cm.metadata);
  });
});

describe('selectors', () => {
  let path: string;
  before(async () => {
    const tiers = ['web', 'db', 'cache', 'web'];
    path = await filled(4, (i) => ({ tier: tiers[i]!, ...(i % 2 === 0 ? { even: 'true' } : {}), rank: String(i * 10) }));
  });

  for (const [selector, expected] of [
    ['tier=web', ['cm-0', 'cm-3']],
    ['tier==web', ['cm-0', 'cm-3']],
    ['tier!=web', ['cm-1', 'cm-2']],
    ['tier in (db,cache)', ['cm-1', 'cm-2']],
    ['tier notin (web)', ['cm-1', 'cm-2']],
    ['even', ['cm-0', 'cm-2']],
    ['!even', ['cm-1', 'cm-3']],
    ['tier=web,even', ['cm-0']],
    ['rank>15', ['cm-2', 'cm-3']],
    ['rank<15', ['cm-0', 'cm-1']],
    ['missing!=x', ['cm-0', 'cm-1', 'cm-2', 'cm-3']],
    ['tier in ()', []],
  ] as const) {
    test(`label selector ${selector}`, async () => {
      const res = await t.api.get(`${path}?labelSelector=${encodeURIComponent(selector)}`);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(names(res), expected);
    });
  }

  test('field selectors on metadata.name and metadata.namespace', async () => {
    assert.deepEqual(names(await t.api.get(`${path}?fieldSelector=metadata.name%3Dcm-2`)), ['cm-2']);
    assert.deepEqual(names(await t.api.get(`${path}?fieldSelector=metadata.name!%3Dcm-2`)), ['cm-0', 'cm-1', 'cm-3']);
    const space = path.split('/')[4];
    const all = await t.api.get(`/api/v1/configmaps?fieldSelector=metadata.namespace%3D${space},metadata.name%3Dcm-1`);
    assert.deepEqual(all.json.items.map((i: any) => `${i.metadata.namespace}/${i.metadata.name}`), [`${space}/cm-1`]);
  });

  test('secrets select on type', async () => {
    const space = await createNamespace(t.api);
    const secrets = `/api/v1/namespaces/${space}/secrets`;
    await create(t.api, secrets, secret('opaque', { stringData: { a: 'b' } }));
    await create(t.api, secrets, secret('basic', { type: 'kubernetes.io/basic-auth', stringData: { username: 'u' } }));
    assert.deepEqual(names(await t.api.get(`${secrets}?fieldSelector=type%3Dkubernetes.io/basic-auth`)), ['basic']);
    assert.deepEqual(names(await t.api.get(`${secrets}?fieldSelector=type%3DOpaque`)), ['opaque']);
    assert.deepEqual(names(await t.api.get(`${secrets}?fieldSelector=type!%3DOpaque`)), ['basic']);
  });

  test('namespaces select on status.phase', async () => {
    const active = await t.api.get('/api/v1/namespaces?fieldSelector=status.phase%3DActive');
    assert.ok(names(active).includes('default'));
    const terminating = await t.api.get('/api/v1/namespaces?fieldSelector=status.phase%3DTerminating');
    assert.ok(!names(terminating).includes('default'));
  });

  test('a field the kind cannot be selected on is 400', async () => {
    assertStatus(await t.api.get(`${path}?fieldSelector=type%3DOpaque`), 400, 'BadRequest', 'field label not supported: type');
    assertStatus(await t.api.get(`${path}?fieldSelector=spec.nope%3D1`), 400, 'BadRequest', 'field label not supported: spec.nope');
  });

  for (const bad of ['tier in (web', 'tier notin', '=web', 'tier=web=x', 'Bad Key=x']) {
    test(`a malformed label selector is 400: ${bad}`, async () => {
      assertStatus(await t.api.get(`${path}?labelSelector=${encodeURIComponent(bad)}`), 400, 'BadRequest');
    });
  }

  test('a malformed field selector is 400', async () => {
    assertStatus(await t.api.get(`${path}?fieldSelector=metadata.name`), 400, 'BadRequest', "invalid selector: 'metadata.name'; can't understand 'metadata.name'");
  });
});
