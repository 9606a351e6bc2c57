import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertStatus, configMap, createNamespace } from '../helpers/fixtures.ts';
import { serveFile } from '../helpers/server.ts';

let base: string;
const t = serveFile([], async () => {
  base = `/api/v1/namespaces/${await createNamespace(t.api)}/configmaps`;
  for (const name of ['a', 'b', 'c']) assert.equal((await t.api.post(base, configMap(name))).status, 201);
});

test('limit accepts the largest int64 and lists everything in one page', async () => {
  const res = await t.api.get(`${base}?limit=9223372036854775807`);
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.json.items.map((o: any) => o.metadata.name), ['a', 'b', 'c']);
  assert.equal(res.json.metadata.continue, undefined);
  const big = await t.api.get(`${base}?limit=9007199254740993`);
  assert.equal(big.status, 200, big.text);
  assert.equal(big.json.items.length, 3);
});

test('limit past int64 is 400 with strconv.ParseInt\'s words', async () => {
  assertStatus(await t.api.get(`${base}?limit=9223372036854775808`), 400, 'BadRequest', 'strconv.ParseInt: parsing "9223372036854775808": value out of range');
  assertStatus(await t.api.get(`${base}?limit=-9223372036854775809`), 400, 'BadRequest', 'strconv.ParseInt: parsing "-9223372036854775809": value out of range');
  assertStatus(await t.api.get(`${base}?limit=100000000000000000000000000`), 400, 'BadRequest', 'strconv.ParseInt: parsing "100000000000000000000000000": value out of range');
});

test('limit that is not a decimal integer is 400 invalid syntax', async () => {
  assertStatus(await t.api.get(`${base}?limit=abc`), 400, 'BadRequest', 'strconv.ParseInt: parsing "abc": invalid syntax');
  assertStatus(await t.api.get(`${base}?limit=1e3`), 400, 'BadRequest', 'strconv.ParseInt: parsing "1e3": invalid syntax');
  assertStatus(await t.api.get(`${base}?limit=1.5`), 400, 'BadRequest', 'strconv.ParseInt: parsing "1.5": invalid syntax');
});

test('the smallest int64 limit is refused by ListOptions validation, printed exactly', async () => {
  assertStatus(await t.api.get(`${base}?limit=-9223372036854775808`), 422, 'Invalid',
    'ListOptions.meta.k8s.io "" is invalid: limit: Invalid value: -9223372036854775808: must be greater than or equal to 0');
});

test('timeoutSeconds and gracePeriodSeconds past int64 are 400, not 500', async () => {
  assertStatus(await t.api.get(`${base}?timeoutSeconds=9223372036854775808`), 400, 'BadRequest', 'strconv.ParseInt: parsing "9223372036854775808": value out of range');
  assertStatus(await t.api.get(`${base}?watch=1&timeoutSeconds=abc`), 400, 'BadRequest', 'strconv.ParseInt: parsing "abc": invalid syntax');
  assertStatus(await t.api.delete(`${base}/a?gracePeriodSeconds=9223372036854775808`), 400, 'BadRequest', 'strconv.ParseInt: parsing "9223372036854775808": value out of range');
  const ok = await t.api.delete(`${base}/a?gracePeriodSeconds=9223372036854775807&dryRun=All`);
  assert.equal(ok.status, 200, ok.text);
});

test('resourceVersion past what storage holds is 400 on list, get and watch', async () => {
  for (const path of [`${base}?resourceVersion=9223372036854775808`, `${base}/a?resourceVersion=99999999999999999999`, `${base}?watch=1&resourceVersion=18446744073709551616`]) {
    const res = await t.api.get(path);
    assert.equal(res.status, 400, `${path}: ${res.text}`);
  }
});
