import { randomUUID } from 'node:crypto';
import type { WriteOp } from '../src/storage/postgres/write-batcher.ts';

/** Bytes of metadata and framing around the payload in a stored bench ConfigMap (measured, roughly). */
const OVERHEAD_BYTES = 260;

function payload(bytes: number): string {
  return 'x'.repeat(Math.max(1, bytes - OVERHEAD_BYTES));
}

/** A ConfigMap as a client POSTs it: about `bytes` once the server has added its fields. */
export function configMapBody(namespace: string, name: string, bytes: number): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, labels: { app: 'bench' } },
    data: { payload: payload(bytes) },
  });
}

/** The same ConfigMap as the server hands it to storage (server fields filled in). */
export function storedConfigMapText(namespace: string, name: string, bytes: number, labels: Record<string, string> = {}): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, labels: { app: 'bench', ...labels }, uid: randomUUID(), creationTimestamp: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') },
    data: { payload: payload(bytes) },
  });
}

/** A create op for kube_write_batch, exactly as the server's storage sends one. */
export function createOp(namespace: string, name: string, bytes: number, labels?: Record<string, string>): WriteOp {
  return { op: 'create', g: '', r: 'configmaps', ns: namespace, n: name, objectText: storedConfigMapText(namespace, name, bytes, labels) };
}

/** kube_write_batch's argument, encoded the way WriteBatcher encodes it (object texts spliced in). */
export function encodeOps(ops: readonly WriteOp[]): string {
  const parts = ops.map((o) => {
    const head = JSON.stringify({ op: o.op, g: o.g, r: o.r, ns: o.ns, n: o.n, rv: o.rv === undefined ? null : String(o.rv), uid: o.uid ?? null });
    return o.objectText === undefined ? head : `${head.slice(0, -1)},"object":${o.objectText}}`;
  });
  return `[${parts.join(',')}]`;
}

/** The statement WriteBatcher sends (same name, so it is prepared once per connection like the server's). */
export const WRITE_BATCH_SQL = 'select idx, outcome, resource_version, object from kube_write_batch($1::jsonb)';

/** Zero-padded names keep keyset order equal to creation order. */
export function seqName(prefix: string, i: number): string {
  return `${prefix}-${String(i).padStart(6, '0')}`;
}
