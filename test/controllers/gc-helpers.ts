import assert from 'node:assert/strict';
import type { Api } from '../helpers/fixtures.ts';

/** Polls `probe` every 50 ms until it returns a truthy value, failing after `timeoutMs`. */
export async function until<T>(probe: () => Promise<T | undefined | false>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits until GET `path` answers 404. */
export async function gone(api: Api, path: string, timeoutMs?: number): Promise<void> {
  await until(async () => (await api.get(path)).status === 404, `${path} to be gone`, timeoutMs);
}

/** An owner reference to a stored object (apiVersion and kind as stored). */
export function ownerRef(owner: { apiVersion: string; kind: string; metadata: { name: string; uid: string } }, extra: { controller?: boolean; blockOwnerDeletion?: boolean } = {}) {
  return { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name, uid: owner.metadata.uid, ...extra };
}

export const cmPath = (ns: string, name = '') => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`;
export const secretPath = (ns: string, name = '') => `/api/v1/namespaces/${ns}/secrets${name ? `/${name}` : ''}`;
export const podPath = (ns: string, name = '') => `/api/v1/namespaces/${ns}/pods${name ? `/${name}` : ''}`;

/** A pod that is deleted at once (no node: no grace period). */
export function pod(name: string, metadata: Record<string, unknown> = {}) {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, ...metadata }, spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } };
}
