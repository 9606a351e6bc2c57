import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Reply } from './http.ts';
import { client } from './http.ts';

/** The client type the HTTP tests use. */
export type Api = ReturnType<typeof client>;

/** A short unique DNS-label name: `cm-1a2b3c`. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(3).toString('hex')}`;
}

export interface MetaInput {
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
  readonly finalizers?: string[];
  readonly namespace?: string;
  readonly resourceVersion?: string;
  readonly generateName?: string;
}

function meta(name: string | undefined, m: MetaInput = {}): Record<string, unknown> {
  return { ...(name !== undefined ? { name } : {}), ...m };
}

export function configMap(name: string | undefined, data: Record<string, string> = {}, m: MetaInput = {}) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(name, m), data };
}

export function secret(name: string, fields: Record<string, unknown> = {}, m: MetaInput = {}) {
  return { apiVersion: 'v1', kind: 'Secret', metadata: meta(name, m), ...fields };
}

export function namespace(name: string, m: MetaInput = {}) {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: meta(name, m) };
}

export function lease(name: string, holder = 'someone', m: MetaInput = {}) {
  return { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: meta(name, m), spec: { holderIdentity: holder, leaseDurationSeconds: 15 } };
}

/** An events.k8s.io/v1 Event with every required field. */
export function event(name: string, note = 'something happened', m: MetaInput = {}) {
  return {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: meta(name, m),
    eventTime: '2025-01-01T00:00:00.000000Z',
    reportingController: 'example.com/test',
    reportingInstance: 'test-1',
    action: 'Testing',
    reason: 'Tested',
    type: 'Normal',
    note,
    regarding: { kind: 'ConfigMap', name: 'x', namespace: 'default' },
  };
}

/** Creates a namespace and returns its name. */
export async function createNamespace(api: Api, name = uniqueName('ns')): Promise<string> {
  const res = await api.post('/api/v1/namespaces', namespace(name));
  assert.equal(res.status, 201, res.text);
  return name;
}

/** Creates an object and returns the stored body, failing the test on anything but 201. */
export async function create(api: Api, path: string, body: unknown): Promise<any> {
  const res = await api.post(path, body);
  assert.equal(res.status, 201, `POST ${path}: ${res.text}`);
  return res.json;
}

/** Asserts a failure Status as a client sees it: code, reason, and message (exact or pattern). */
export function assertStatus(res: Reply, code: number, reason: string, message?: string | RegExp): any {
  assert.equal(res.status, code, `expected ${code} ${reason}, got ${res.status}: ${res.text}`);
  const s = res.json;
  assert.ok(s, `expected a JSON Status body, got: ${res.text}`);
  assert.equal(s.kind, 'Status');
  assert.equal(s.apiVersion, 'v1');
  assert.equal(s.status, 'Failure');
  assert.equal(s.code, code);
  assert.equal(s.reason, reason);
  if (typeof message === 'string') assert.equal(s.message, message);
  else if (message) assert.match(s.message, message);
  return s;
}

/** Clears metadata.finalizers by GET and PUT, retrying on conflicts (controllers write too). */
export async function removeFinalizers(api: Api, path: string): Promise<Reply> {
  for (let attempt = 0; ; attempt++) {
    const current = await api.get(path);
    assert.equal(current.status, 200, current.text);
    const res = await api.put(path, { ...current.json, metadata: { ...current.json.metadata, finalizers: [] } });
    if (res.status !== 409 || attempt >= 10) return res;
  }
}

/** Polls `probe` until it returns a truthy value or the deadline passes. */
export async function eventually<T>(probe: () => Promise<T | undefined | false>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
