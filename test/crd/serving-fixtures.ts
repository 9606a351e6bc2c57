/**
 * Fixtures of the custom resource serving tests: a two-version CRD (v1 storage, v2), its objects,
 * and the steps the CRD controllers take (accepting names, Established), done by the test through
 * the status subresource so that serving is tested on its own.
 */
import assert from 'node:assert/strict';
import pg from 'pg';
import type { Api } from '../helpers/fixtures.ts';

export const GROUP = 'stable.example.com';
export const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

const schema = {
  openAPIV3Schema: {
    type: 'object',
    properties: {
      spec: { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string' } } },
      status: { type: 'object', properties: { ready: { type: 'boolean' } } },
    },
  },
};

/** A namespaced CRD `<plural>.stable.example.com` serving v1 (storage) and v2. */
export function crd(plural: string, options: { storage?: 'v1' | 'v2'; conversion?: Record<string, unknown>; kind?: string } = {}) {
  const kind = options.kind ?? plural[0]!.toUpperCase() + plural.slice(1, -1);
  const storage = options.storage ?? 'v1';
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${GROUP}` },
    spec: {
      group: GROUP,
      names: { plural, singular: plural.slice(0, -1), kind, listKind: `${kind}List` },
      scope: 'Namespaced',
      versions: ['v1', 'v2'].map((name) => ({ name, served: true, storage: name === storage, schema, subresources: { status: {} } })),
      ...(options.conversion ? { conversion: options.conversion } : {}),
    },
  };
}

/** An object of the CRD at `version`. */
export function cr(plural: string, name: string, version: string, spec: Record<string, unknown> = { size: 1 }) {
  const kind = plural[0]!.toUpperCase() + plural.slice(1, -1);
  return { apiVersion: `${GROUP}/${version}`, kind, metadata: { name }, spec };
}

/** The CRD's condition of `type` ('True', 'False', or undefined when it has none). */
export async function conditionOf(api: Api, name: string, type: string): Promise<string | undefined> {
  const got = await api.get(`${CRDS}/${name}`);
  return (got.json?.status?.conditions ?? []).find((c: any) => c.type === type)?.status;
}

/**
 * Creates the CRD and waits until the CRD controllers have established it (their work, not the
 * serving loop's); returns the stored CRD.
 */
export async function establishedCrd(api: Api, body: { metadata: { name: string } }): Promise<any> {
  const res = await api.post(CRDS, body);
  assert.equal(res.status, 201, res.text);
  await within(10_000, async () => (await conditionOf(api, body.metadata.name, 'Established')) === 'True', `${body.metadata.name} established`);
  return res.json;
}

/** Polls until `probe` holds, failing after `ms`; returns how long it took. */
export async function within(ms: number, probe: () => Promise<boolean>, what: string): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await probe()) return Date.now() - start;
    if (Date.now() - start > ms) assert.fail(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The stored row of an object, read from PostgreSQL directly. */
export async function storedRow(databaseUrl: string, resource: string, namespace: string, name: string): Promise<any> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query('select object from objects where api_group = $1 and resource = $2 and namespace = $3 and name = $4', [GROUP, resource, namespace, name]);
    return rows[0]?.object;
  } finally {
    await client.end();
  }
}
