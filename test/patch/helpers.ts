import assert from 'node:assert/strict';
import { ApiError } from '../../src/api/errors.ts';
import { messageSchema, type ObjectSchema } from '../../src/schema/type-schema.ts';

export const CONFIG_MAP = messageSchema('k8s.io.api.core.v1.ConfigMap');
export const NAMESPACE = messageSchema('k8s.io.api.core.v1.Namespace');
export const POD = messageSchema('k8s.io.api.core.v1.Pod');
export const DEPLOYMENT = messageSchema('k8s.io.api.apps.v1.Deployment');

type Json = Record<string, unknown>;

export function configMap(data: Record<string, string> = { a: '1' }, metadata: Json = {}): Json {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default', ...metadata }, data };
}

export function namespace(finalizers: string[] = ['example.com/a'], specFinalizers: string[] = ['kubernetes']): Json {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'ns', finalizers },
    spec: { finalizers: specFinalizers },
  };
}

export function container(name: string, extra: Json = {}): Json {
  return { name, image: `${name}:1`, ...extra };
}

export function pod(containers: Json[] = [container('app'), container('sidecar')], spec: Json = {}): Json {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers, ...spec } };
}

export function ownerRef(uid: string, name = uid): Json {
  return { apiVersion: 'apps/v1', kind: 'ReplicaSet', name, uid };
}

/** The names of a list of named items, in order. */
export function names(list: unknown): string[] {
  return (list as { name: string }[]).map((c) => c.name);
}

/** Asserts that `fn` throws the ApiError a client would see; returns it for further checks. */
export function expectApiError(fn: () => unknown, code: number, reason: string, message?: string | RegExp): ApiError {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof ApiError, `expected an ApiError, got ${String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  assert.equal(caught.reason, reason);
  if (typeof message === 'string') assert.equal(caught.message, message);
  else if (message) assert.match(caught.message, message);
  return caught;
}

/** A deep, frozen copy: any attempt to change it throws. */
export function frozen<T>(value: T): T {
  const copy = structuredClone(value);
  const freeze = (v: unknown): void => {
    if (v && typeof v === 'object') {
      Object.freeze(v);
      for (const child of Object.values(v)) freeze(child);
    }
  };
  freeze(copy);
  return copy;
}
