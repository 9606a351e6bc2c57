import assert from 'node:assert/strict';
import { test } from 'node:test';
import { configMap, create, createNamespace } from '../helpers/fixtures.ts';
import { type Reply } from '../helpers/http.ts';
import { serveFile } from '../helpers/server.ts';

const t = serveFile([], async () => {
  await create(t.api, `/api/v1/namespaces/${t.ns}/configmaps`, configMap('target', { a: '1' }, { labels: { app: 'x' }, finalizers: [] }));
});

/** A small deterministic PRNG (mulberry32), so a failure reproduces. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!,
  };
}

// NUL in strings is left out here: the storage cannot hold it yet (see the todo test at the end).
const ODD_VALUES: readonly unknown[] = [
  null, true, false, 0, -1, 1.5, 1e308, -0, 'x', '', ' ', 'Ünïcödé', '\u0001', '../..', 'a/b', '%', '.', '..', 'x'.repeat(300),
  [], [1], ['a', null], {}, { a: 1 }, { '': '' }, { __proto__: 1 }, { constructor: 'x' }, [[[[[]]]]],
];

const PATHS_IN_OBJECT: readonly string[][] = [
  ['metadata'], ['metadata', 'name'], ['metadata', 'generateName'], ['metadata', 'namespace'], ['metadata', 'labels'],
  ['metadata', 'labels', 'app'], ['metadata', 'annotations'], ['metadata', 'finalizers'], ['metadata', 'resourceVersion'],
  ['metadata', 'uid'], ['metadata', 'creationTimestamp'], ['metadata', 'deletionTimestamp'], ['metadata', 'ownerReferences'],
  ['metadata', 'managedFields'], ['metadata', 'generation'], ['data'], ['data', 'a'], ['binaryData'], ['binaryData', 'b'],
  ['immutable'], ['kind'], ['apiVersion'], ['stringData'], ['type'], ['spec'], ['status'],
];

function setPath(obj: any, path: string[], value: unknown): void {
  let cur = obj;
  for (const key of path.slice(0, -1)) {
    if (cur[key] === null || typeof cur[key] !== 'object') cur[key] = {};
    cur = cur[key];
  }
  cur[path[path.length - 1]!] = value;
}

/** A malformed or oddly typed body, as text. */
function oddBody(r: ReturnType<typeof rng>, name: string): string {
  const base = configMap(name, { a: '1' }, { labels: { app: 'x' } });
  switch (r.int(9)) {
    case 0: {
      const text = JSON.stringify(base);
      return text.slice(0, r.int(text.length));
    }
    case 1: {
      const text = Buffer.from(JSON.stringify(base));
      for (let i = 0; i < 3; i++) text[r.int(text.length)] = r.int(256);
      return text.toString('latin1');
    }
    case 2: {
      const obj: any = structuredClone(base);
      for (let i = 0; i < 1 + r.int(3); i++) setPath(obj, r.pick(PATHS_IN_OBJECT), structuredClone(r.pick(ODD_VALUES)));
      return JSON.stringify(obj);
    }
    case 3:
      return JSON.stringify(r.pick(ODD_VALUES));
    case 4:
      return `${'['.repeat(2000)}${']'.repeat(2000)}`;
    case 5:
      return withLoneSurrogates(r, JSON.stringify(base));
    case 6:
      return deepBody(r, name);
    case 7:
      return withLoneSurrogates(r, deepBody(r, name));
    default:
      return `{"metadata":{"name":"${name}","name":"dup"},"data":{"a":"1","a":2}}`;
  }
}

const SURROGATES = ['\\ud800', '\\udc00', '\\udbff\\udbff', '\\uDFFF', '\\ud83d', '\\ude00\\ud83d'];

/** JSON text with lone surrogate escapes put inside a few of its strings, keys included. */
function withLoneSurrogates(r: ReturnType<typeof rng>, text: string): string {
  let out = text;
  for (let k = 0; k < 1 + r.int(3); k++) {
    const quotes = [...out.matchAll(/"/g)].map((m) => m.index!);
    if (quotes.length === 0) break;
    const at = r.pick(quotes) + 1;
    out = out.slice(0, at) + r.pick(SURROGATES) + out.slice(at);
  }
  return out;
}

const DEPTHS = [999, 1_000, 1_001, 9_999, 10_000, 10_001, 200_000];

/** A body with one value nested around the limits (free-form, unknown or typed place), closed or not. */
function deepBody(r: ReturnType<typeof rng>, name: string): string {
  const levels = r.pick(DEPTHS);
  const [open, close] = r.pick([['[', ']'], ['{"a":', '}'], ['[{"x":', '}]']] as const);
  const value = open.repeat(levels) + (open === '[' ? '' : '1') + (r.int(5) === 0 ? '' : close.repeat(levels));
  return r.pick([
    `{"metadata":{"name":"${name}"},"x":${value}}`,
    `{"metadata":{"name":"${name}","managedFields":[{"manager":"m","operation":"Update","fieldsType":"FieldsV1","fieldsV1":${value}}]}}`,
    `{"metadata":{"name":"${name}","labels":${value}}}`,
    `{"metadata":{"name":"${name}"},"data":${value}}`,
  ]);
}

const SELECTOR_ATOMS = ['a', 'b=c', 'a!=', '!a', 'a in (b,c)', 'a notin (', 'a in ()', '=', '==', '!=', ',', ',,', '(', ')', 'a=b=c', 'x/y=z', '-a', 'a>1', 'a<', 'a gt 1', '%', '\\', 'metadata.name=x', 'metadata.namespace!=y', 'type=z', 'status.phase=Active', 'spec.x=1', 'a\\,b=c', 'é=ü', ' a = b '];
const QUERY_KEYS = ['labelSelector', 'fieldSelector', 'limit', 'continue', 'resourceVersion', 'resourceVersionMatch', 'watch', 'timeoutSeconds', 'allowWatchBookmarks', 'sendInitialEvents', 'pretty', 'dryRun', 'fieldValidation', 'gracePeriodSeconds', 'propagationPolicy', 'orphanDependents', 'includeObject'];
const QUERY_VALUES = ['', '0', '-1', '1', '99999999999999999999', '9223372036854775807', '9223372036854775808', '-9223372036854775808', '+1', ' 7', '0x10', '1e3', 'abc', 'true', 'Exact', 'NotOlderThan', 'All', 'Strict', 'Foreground', 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTIsInN0YXJ0IjoiXHUwMDAwIn0', 'bm90IGpzb24', '%zz', '1.5', 'None', 'Object'];

function oddQuery(r: ReturnType<typeof rng>): string {
  const parts: string[] = [];
  for (let i = 0; i < 1 + r.int(3); i++) {
    const key = r.pick(QUERY_KEYS);
    const value = key.endsWith('Selector') ? Array.from({ length: 1 + r.int(3) }, () => r.pick(SELECTOR_ATOMS)).join(r.pick([',', ' ', ''])) : r.pick(QUERY_VALUES);
    parts.push(`${key}=${encodeURIComponent(value)}`);
  }
  return parts.join('&');
}

const SEGMENTS = ['api', 'apis', 'v1', 'v2', 'namespaces', 'default', 'configmaps', 'secrets', 'status', 'finalize', 'watch', 'leases', 'coordination.k8s.io', 'events.k8s.io', 'target', '', '%2F', '%00', '..', '.', 'x'.repeat(300), 'Ünï', '%E0%A4%A', '%zz', '%2D', '%25', 'namespaces'];
function oddPath(r: ReturnType<typeof rng>): string {
  const prefix = r.pick(['/api/v1', `/api/v1/namespaces/${t.ns}`, '/apis/coordination.k8s.io/v1', '/apis', '/api', '']);
  const rest = Array.from({ length: r.int(5) }, () => r.pick(SEGMENTS)).join('/');
  return `${prefix}/${rest}`.replace(/^\/+/, '/');
}

async function send(method: string, path: string, body?: string, contentType = 'application/json'): Promise<Reply> {
  const headers = body !== undefined ? { 'Content-Type': contentType } : undefined;
  switch (method) {
    case 'POST':
      return t.api.post(path, body ?? '', headers);
    case 'PUT':
      return t.api.put(path, body ?? '', headers);
    case 'PATCH':
      return t.api.patch(path, body ?? '', contentType);
    case 'DELETE':
      return t.api.delete(path, body, headers);
    default:
      return t.api.get(path);
  }
}

/** Runs the cases a few at a time; collects every answer at or above 500. */
async function fuzz(cases: Array<() => [string, string, string?, string?]>): Promise<string[]> {
  const failures: string[] = [];
  const queue = [...cases];
  const worker = async () => {
    for (let c = queue.shift(); c; c = queue.shift()) {
      const [method, path, body, contentType] = c();
      let res: Reply;
      try {
        res = await send(method, path, body, contentType);
      } catch (err) {
        failures.push(`${method} ${path}: transport error ${(err as Error).message}`);
        continue;
      }
      if (res.status >= 500) failures.push(`${method} ${path} ${body?.slice(0, 120) ?? ''} → ${res.status} ${res.text.slice(0, 300)}`);
      else if (res.status >= 400 && res.json?.kind !== 'Status' && !path.includes('watch')) {
        failures.push(`${method} ${path} → ${res.status} without a Status body: ${res.text.slice(0, 200)}`);
      }
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  return failures;
}

test('malformed create and update bodies never give a 5xx', async () => {
  const r = rng(1);
  const cms = `/api/v1/namespaces/${t.ns}/configmaps`;
  const cases = Array.from({ length: 300 }, (_, i) => () => {
    const method = r.pick(['POST', 'PUT', 'POST', 'PUT', 'DELETE']);
    const name = `fuzz-${i}`;
    const path = method === 'POST' ? cms : `${cms}/${r.pick([name, 'target'])}`;
    const type = r.pick(['application/json', 'application/json', 'application/yaml']);
    return [method, path, oddBody(r, name), type] as [string, string, string, string];
  });
  assert.deepEqual(await fuzz(cases), []);
});

test('malformed secrets, leases, events and namespaces never give a 5xx', async () => {
  const r = rng(2);
  const targets = [
    [`/api/v1/namespaces/${t.ns}/secrets`, 'v1', 'Secret'],
    [`/apis/coordination.k8s.io/v1/namespaces/${t.ns}/leases`, 'coordination.k8s.io/v1', 'Lease'],
    [`/apis/events.k8s.io/v1/namespaces/${t.ns}/events`, 'events.k8s.io/v1', 'Event'],
    ['/api/v1/namespaces', 'v1', 'Namespace'],
    [`/api/v1/namespaces/${t.ns}/serviceaccounts`, 'v1', 'ServiceAccount'],
  ] as const;
  const cases = Array.from({ length: 200 }, (_, i) => () => {
    const [path, apiVersion, kind] = r.pick(targets);
    const obj: any = { apiVersion, kind, metadata: { name: `fz-${i}` } };
    for (let k = 0; k < 1 + r.int(3); k++) setPath(obj, r.pick([...PATHS_IN_OBJECT, ['spec', 'holderIdentity'], ['spec', 'leaseDurationSeconds'], ['spec', 'finalizers'], ['series'], ['regarding'], ['eventTime'], ['secrets']]), structuredClone(r.pick(ODD_VALUES)));
    const method = r.pick(['POST', 'PUT']);
    return [method, method === 'POST' ? path : `${path}/fz-${i}`, JSON.stringify(obj)] as [string, string, string];
  });
  assert.deepEqual(await fuzz(cases), []);
});

test('malformed list, watch and delete query strings never give a 5xx', async () => {
  const r = rng(3);
  const bases = [`/api/v1/namespaces/${t.ns}/configmaps`, '/api/v1/configmaps', '/api/v1/namespaces', `/api/v1/namespaces/${t.ns}/secrets`, `/apis/events.k8s.io/v1/namespaces/${t.ns}/events`];
  const cases = Array.from({ length: 300 }, () => () => {
    const method = r.pick(['GET', 'GET', 'GET', 'DELETE']);
    let query = oddQuery(r);
    // Watches that would succeed stream until their timeout; keep the fuzz to requests that end.
    if (method === 'GET') query = query.replace(/(^|&)(watch|timeoutSeconds)=[^&]*/g, '') + '&watch=false';
    const base = method === 'DELETE' ? `/api/v1/namespaces/${t.ns}/configmaps/${r.pick(['none', 'target-x'])}` : r.pick(bases);
    return [method, `${base}?${query}`] as [string, string];
  });
  assert.deepEqual(await fuzz(cases), []);
});

test('malformed paths never give a 5xx', async () => {
  const r = rng(4);
  const cases = Array.from({ length: 300 }, () => () => {
    const method = r.pick(['GET', 'GET', 'POST', 'PUT', 'DELETE', 'PATCH']);
    const body = method === 'GET' || method === 'DELETE' ? undefined : JSON.stringify(configMap('target'));
    const contentType = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
    return [method, `${oddPath(r)}?watch=false`, body, contentType] as [string, string, string?, string?];
  });
  assert.deepEqual(await fuzz(cases), []);
});

test('patches with lone surrogates and deep nesting never give a 5xx', async () => {
  const r = rng(6);
  // A namespace and object of their own: the path fuzz above may have deleted the shared ones.
  const own = await createNamespace(t.api);
  await create(t.api, `/api/v1/namespaces/${own}/configmaps`, configMap('target', { a: '1' }, { labels: { app: 'x' } }));
  const target = `/api/v1/namespaces/${own}/configmaps/target`;
  const types = ['application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/json-patch+json'] as const;
  const cases = Array.from({ length: 150 }, () => () => {
    const type = r.pick(types);
    const deep = deepBody(r, 'target').replace(/^\{"metadata":\{"name":"target"\},?/, '{').replace(/^\{"metadata":\{"name":"target",/, '{"metadata":{');
    const value = r.int(2) ? deep : JSON.stringify({ data: { a: 'x' }, metadata: { labels: { app: 'x' }, annotations: { k: 'v' } } });
    const body = type === 'application/json-patch+json'
      ? `[{"op":"${r.pick(['add', 'replace', 'test'])}","path":"${r.pick(['/data/a', '/x', '/metadata/annotations/k', '/metadata/managedFields'])}","value":${value}}]`
      : value;
    return ['PATCH', target, r.int(2) ? withLoneSurrogates(r, body) : body, type] as [string, string, string, string];
  });
  assert.deepEqual(await fuzz(cases), []);
});

test('malformed DeleteOptions bodies never give a 5xx', async () => {
  const r = rng(5);
  const cases = Array.from({ length: 100 }, () => () => {
    const opts: any = { kind: 'DeleteOptions', apiVersion: 'v1' };
    for (const key of ['dryRun', 'gracePeriodSeconds', 'preconditions', 'propagationPolicy', 'orphanDependents']) {
      if (r.int(2)) opts[key] = structuredClone(r.pick(ODD_VALUES));
    }
    const body = r.int(4) === 0 ? JSON.stringify(opts).slice(0, r.int(40)) : JSON.stringify(opts);
    return ['DELETE', `/api/v1/namespaces/${t.ns}/configmaps/${r.pick(['none', 'target-y'])}`, body] as [string, string, string];
  });
  assert.deepEqual(await fuzz(cases), []);
});

test('a NUL character in a string value is a clear 400 and in a selector matches nothing; never a 500', async () => {
  // A namespace of its own: the path fuzz above may have deleted the shared one.
  const path = `/api/v1/namespaces/${await createNamespace(t.api)}/configmaps`;
  // PostgreSQL text cannot hold U+0000, so such a value is refused with a reason instead of failing inside the store.
  const res = await t.api.post(path, configMap('nul-value', { a: 'x\u0000y' }));
  assert.equal(res.status, 400, res.text);
  assert.equal(res.json.reason, 'BadRequest');
  assert.match(res.json.message, /NUL character/);
  // An escaped backslash followed by u0000 is ordinary text and is stored.
  const lookalike = await t.api.post(path, configMap('nul-lookalike', { a: 'x\\u0000y' }));
  assert.equal(lookalike.status, 201, lookalike.text);
  assert.equal((await t.api.get(`${path}/nul-lookalike`)).json.data.a, 'x\\u0000y');
  const list = await t.api.get(`${path}?fieldSelector=metadata.name%3Da%00`);
  assert.equal(list.status, 200, list.text);
  assert.deepEqual(list.json.items, []);
});
