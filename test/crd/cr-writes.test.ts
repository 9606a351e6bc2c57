/**
 * Writes of a custom resource as upstream's CR codec and customresource strategy make them: pruning
 * under each fieldValidation directive, defaults, value validation, CEL rules with oldSelf, list sets
 * and maps, generation, and the type checks of apiVersion and kind.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { customResourceKinds } from '../../src/crd/serving/kinds.ts';
import { serveFile } from '../helpers/server.ts';
import { GROUP, widget, widgetCrd } from './cr-fixtures.ts';

let base = '';
const t = serveFile([], (served) => {
  for (const kind of customResourceKinds(widgetCrd())) served.srv.server.surface.add(kind);
  base = `/apis/${GROUP}/v1/namespaces/${served.ns}/widgets`;
});

describe('pruning unknown fields', () => {
  it('Strict refuses unknown fields with the decoder text', async () => {
    const r = await t.api.post(`${base}?fieldValidation=Strict`, widget('strict', { replicas: 1, foo: 1, bar: { x: 1 } }));
    assert.equal(r.status, 400, r.text);
    assert.equal(r.json.message, 'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.bar", unknown field "spec.foo"');
  });

  it('Strict reports duplicate fields before unknown ones', async () => {
    const body = `{"apiVersion":"${GROUP}/v1","kind":"Widget","metadata":{"name":"dup"},"spec":{"replicas":1,"replicas":2,"foo":1}}`;
    const r = await t.api.post(`${base}?fieldValidation=Strict`, body);
    assert.equal(r.status, 400, r.text);
    assert.equal(r.json.message, 'Widget in version "v1" cannot be handled as a Widget: strict decoding error: duplicate field "spec.replicas", unknown field "spec.foo"');
  });

  it('Warn (the default) prunes and warns, metadata unknown fields included', async () => {
    const body = widget('warned', { replicas: 1, foo: 1 });
    (body.metadata as Record<string, unknown>).bogus = 'x';
    const r = await t.api.post(base, body);
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.spec.foo, undefined);
    assert.equal(r.json.metadata.bogus, undefined);
    assert.equal(r.headers.warning, '299 - "unknown field \\"metadata.bogus\\"", 299 - "unknown field \\"spec.foo\\""');
  });

  it('Ignore prunes silently; preserve-unknown-fields keeps what it holds', async () => {
    const r = await t.api.post(`${base}?fieldValidation=Ignore`, widget('ignored', { replicas: 1, foo: 1, free: { anything: [1, 2] } }));
    assert.equal(r.status, 201, r.text);
    assert.equal(r.headers.warning, undefined);
    assert.equal(r.json.spec.foo, undefined);
    assert.deepEqual(r.json.spec.free, { anything: [1, 2] });
  });

  it('prunes inside embedded resources and keeps their apiVersion, kind and metadata', async () => {
    const r = await t.api.post(`${base}?fieldValidation=Ignore`, widget('embedded', { replicas: 1, template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { a: 'b' } }, spec: { image: 'x', extra: 1 } } }));
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.json.spec.template, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { a: 'b' } }, spec: { image: 'x' } });
  });
});

describe('malformed metadata', () => {
  it('refuses metadata that does not decode as ObjectMeta, in the decoder words', async () => {
    const r = await t.api.post(base, { ...widget('badmeta'), metadata: { name: 'badmeta', labels: 1 } });
    assert.equal(r.status, 400, r.text);
    assert.match(r.json.message, /^Widget in version "v1" cannot be handled as a Widget: .*labels/);
  });

  it('refuses an embedded resource whose metadata does not decode, naming its path', async () => {
    const r = await t.api.post(base, widget('badembedded', { replicas: 1, template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 7 } } }));
    assert.equal(r.status, 400, r.text);
    assert.match(r.json.message, /^Widget in version "v1" cannot be handled as a Widget: spec\.template\.metadata: Invalid value: /);
  });

  it('refuses an embedded apiVersion that is not a string', async () => {
    const r = await t.api.post(base, widget('badkind', { replicas: 1, template: { apiVersion: 1, kind: 'Pod' } }));
    assert.equal(r.status, 400, r.text);
    assert.equal(r.json.message, 'Widget in version "v1" cannot be handled as a Widget: spec.template.apiVersion: Invalid value: 1: must be a string');
  });
});

describe('patches', () => {
  it('a merge patch adding an unknown field: Strict is upstream 422 on "patch", Warn warns and prunes', async () => {
    await t.api.post(base, widget('patched', { replicas: 1 }));
    const strict = await t.api.patch(`${base}/patched?fieldValidation=Strict`, { spec: { foo: 1 } }, 'application/merge-patch+json');
    assert.equal(strict.status, 422, strict.text);
    assert.match(strict.json.message, /^ "" is invalid: patch: Invalid value: "\{.*\}": strict decoding error: unknown field "spec\.foo"$/);
    const warn = await t.api.patch(`${base}/patched`, [{ op: 'add', path: '/spec/foo', value: 1 }], 'application/json-patch+json');
    assert.equal(warn.status, 200, warn.text);
    assert.equal(warn.headers.warning, '299 - "unknown field \\"spec.foo\\""');
    assert.equal(warn.json.spec.foo, undefined);
  });

  it('a patch that makes a type wrong is refused by validation, not decoding', async () => {
    await t.api.post(base, widget('patch-type', { replicas: 1 }));
    const r = await t.api.patch(`${base}/patch-type`, { spec: { replicas: 'x' } }, 'application/merge-patch+json');
    assert.equal(r.status, 422, r.text);
    assert.match(r.json.message, /spec\.replicas: Invalid value: "string": spec\.replicas in body must be of type integer: "string"/);
  });
});

describe('defaults and validation', () => {
  it('defaults on create and drops nulls the schema does not allow', async () => {
    const r = await t.api.post(base, widget('defaulted', { replicas: 2, tags: null }));
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.spec.color, 'blue');
    assert.equal('tags' in r.json.spec, false);
    assert.equal(r.json.metadata.generation, 1);
  });

  it('refuses values the schema does not allow, with upstream texts', async () => {
    const r = await t.api.post(base, widget('bad', { replicas: -1, color: 'pink' }));
    assert.equal(r.status, 422, r.text);
    assert.equal(r.json.reason, 'Invalid');
    assert.match(r.json.message, /^Widget\.kinds\.example\.com "bad" is invalid: \[/);
    assert.ok(r.json.message.includes('spec.color: Unsupported value: "pink": supported values: "blue", "red", "green"'), r.json.message);
    assert.ok(r.json.message.includes('spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0'), r.json.message);
  });

  it('refuses a wrong type as value validation, not a decode error', async () => {
    const r = await t.api.post(base, widget('typed', { replicas: 'three' }));
    assert.equal(r.status, 422, r.text);
    assert.ok(r.json.message.includes('spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"'), r.json.message);
  });

  it('runs x-kubernetes-validations rules', async () => {
    const r = await t.api.post(base, widget('many', { replicas: 101 }));
    assert.equal(r.status, 422, r.text);
    assert.equal(r.json.message, 'Widget.kinds.example.com "many" is invalid: spec: Invalid value: "object": too many replicas');
  });

  it('runs transition rules with oldSelf on updates', async () => {
    const created = await t.api.post(base, widget('frozen', { replicas: 1, immutable: 'a' }));
    assert.equal(created.status, 201, created.text);
    const r = await t.api.patch(`${base}/frozen`, { spec: { immutable: 'b' } }, 'application/merge-patch+json');
    assert.equal(r.status, 422, r.text);
    assert.equal(r.json.message, 'Widget.kinds.example.com "frozen" is invalid: spec.immutable: Invalid value: "string": is immutable');
  });

  it('refuses duplicates in list sets and maps', async () => {
    const r = await t.api.post(base, widget('dups', { replicas: 1, tags: ['a', 'a'], ports: [{ name: 'x', port: 1 }, { name: 'x', port: 2 }] }));
    assert.equal(r.status, 422, r.text);
    assert.ok(r.json.message.includes('spec.tags[1]: Duplicate value: "a"'), r.json.message);
    assert.ok(r.json.message.includes('spec.ports[1]: Duplicate value: {"name":"x"}'), r.json.message);
  });

  it('validates metadata with the generic rules: names are DNS subdomains', async () => {
    const r = await t.api.post(base, widget('Not_A_Name'));
    assert.equal(r.status, 422, r.text);
    assert.match(r.json.message, /metadata\.name: Invalid value: "Not_A_Name": a lowercase RFC 1123 subdomain/);
  });

  it('refuses a body of another version (400) or kind (422), as the CR handler and validator do', async () => {
    const version = await t.api.post(base, { ...widget('other'), apiVersion: `${GROUP}/v2` });
    assert.equal(version.status, 400, version.text);
    assert.equal(version.json.message, `the API version in the data (${GROUP}/v2) does not match the expected API version (${GROUP}/v1)`);
    const kind = await t.api.post(base, { ...widget('other'), kind: 'Gadget' });
    assert.equal(kind.status, 422, kind.text);
    assert.equal(kind.json.message, 'Widget.kinds.example.com "other" is invalid: kind: Invalid value: "Gadget": must be Widget');
  });

  it('requires metadata.resourceVersion on PUT', async () => {
    await t.api.post(base, widget('put-me'));
    const r = await t.api.put(`${base}/put-me`, widget('put-me', { replicas: 3 }));
    assert.equal(r.status, 422, r.text);
    assert.match(r.json.message, /metadata\.resourceVersion: Invalid value: 0x0: must be specified for an update/);
  });
});

describe('warnings', () => {
  it('warns about added finalizers without a path, once, on create and update', async () => {
    const body = widget('fin');
    (body.metadata as Record<string, unknown>).finalizers = ['example.com/ok', 'kubernetes', 'bare.finalizer'];
    const r = await t.api.post(base, body);
    assert.equal(r.status, 201, r.text);
    assert.equal(r.headers.warning, '299 - "metadata.finalizers: \\"bare.finalizer\\": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers"');
    const again = await t.api.patch(`${base}/fin`, { metadata: { labels: { a: 'b' } } }, 'application/merge-patch+json');
    assert.equal(again.headers.warning, undefined);
    await t.api.patch(`${base}/fin`, { metadata: { finalizers: [] } }, 'application/merge-patch+json');
  });
});

describe('generation and the status subresource', () => {
  it('bumps generation on spec changes only, and the main resource keeps status as stored', async () => {
    await t.api.post(base, widget('gen', { replicas: 1 }));
    const spec = await t.api.patch(`${base}/gen`, { spec: { replicas: 2 }, status: { phase: 'Ignored' } }, 'application/merge-patch+json');
    assert.equal(spec.status, 200, spec.text);
    assert.equal(spec.json.metadata.generation, 2);
    assert.equal(spec.json.status, undefined);
    const labels = await t.api.patch(`${base}/gen`, { metadata: { labels: { a: 'b' } } }, 'application/merge-patch+json');
    assert.equal(labels.json.metadata.generation, 2);
  });

  // The status is validated as its own value: its errors' texts name paths below status, as upstream's.
  it('a status write validates status only, at status', async () => {
    await t.api.post(base, widget('stat-bad', { replicas: 1 }));
    const r = await t.api.patch(`${base}/stat-bad/status`, { status: { replicas: 'many' } }, 'application/merge-patch+json');
    assert.equal(r.status, 422, r.text);
    assert.ok(r.json.message.includes('status.replicas: Invalid value: "string": replicas in body must be of type integer: "string"'), r.json.message);
  });

  it('a status write changes status only, never generation, labels or spec', async () => {
    await t.api.post(base, widget('stat', { replicas: 1 }));
    const r = await t.api.patch(`${base}/stat/status`, { spec: { replicas: 5 }, metadata: { labels: { x: 'y' } }, status: { phase: 'Ready' } }, 'application/merge-patch+json');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.status.phase, 'Ready');
    assert.equal(r.json.spec.replicas, 1);
    assert.equal(r.json.metadata.labels, undefined);
    assert.equal(r.json.metadata.generation, 1);
    const got = await t.api.get(`${base}/stat/status`);
    assert.equal(got.json.status.phase, 'Ready');
  });

  it('a create drops status', async () => {
    const r = await t.api.post(base, { ...widget('nostatus'), status: { phase: 'x' } });
    assert.equal(r.json.status, undefined);
  });
});
