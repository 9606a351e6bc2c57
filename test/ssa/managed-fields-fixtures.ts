/**
 * Fixtures the FieldManager tests share: managers for a few kinds, the clock, what the store adds to
 * a created object, and readers for the managedFields it comes back with.
 */
import assert from 'node:assert/strict';
import { ApiError } from '../../src/api/errors.ts';
import { pods } from '../../src/kinds/pod.ts';
import { FieldManager, resetFieldsFor } from '../../src/registry/managed-fields/index.ts';
import { messageSchema } from '../../src/schema/type-schema.ts';

export type Obj = Record<string, any>;

export const configMaps = (options: { defaulter?: (o: Obj) => void } = {}) =>
  new FieldManager({ schema: messageSchema('k8s.io.api.core.v1.ConfigMap'), apiVersion: 'v1', kind: 'ConfigMap', subresource: '', ...options });
export const deployments = () => new FieldManager({ schema: messageSchema('k8s.io.api.apps.v1.Deployment'), apiVersion: 'apps/v1', kind: 'Deployment', subresource: '' });
export const podManager = (subresource = '') =>
  new FieldManager({ schema: pods.schema, apiVersion: 'v1', kind: 'Pod', subresource, resetFields: resetFieldsFor(pods, subresource)! });

/** A second of 2024-01-01, and how an entry's time reads for it. */
export const at = (s: number) => new Date(Date.UTC(2024, 0, 1, 0, 0, s));
export const stamp = (s: number) => at(s).toISOString().replace('.000Z', 'Z');

/** What the store does to a created object that matters here: it gets a uid. */
export function stored(obj: object): Obj {
  const o = obj as Obj;
  o.metadata.uid ??= 'b8c7d4d2-uid';
  return o;
}

/** A ConfigMap `cm` in `default`, with `meta` laid over its metadata. */
export const cm = (data?: Record<string, string>, meta: Obj = {}): Obj => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'cm', namespace: 'default', ...meta },
  ...(data ? { data } : {}),
});
export const entriesOf = (obj: Obj): Obj[] => obj.metadata?.managedFields ?? [];
export const byManager = (obj: Obj) => Object.fromEntries(entriesOf(obj).map((e) => [e.manager, e]));

/** Runs `fn` and returns the ApiError it throws. */
export function apiErrorOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ApiError, `expected an ApiError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected an error');
}
