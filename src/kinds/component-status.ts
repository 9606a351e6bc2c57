import type { KubeObject } from '../api/types.ts';
import { defineKind } from '../registry/kind.ts';
import { NAME_DESCRIPTION } from '../registry/table.ts';

type Condition = { type: string; status: 'True' | 'False' | 'Unknown'; message?: string; error?: string };

/** How long the database has to answer before it counts as unhealthy. */
const DATABASE_CHECK_MS = 2000;

function component(name: string, condition: Condition): KubeObject {
  // Computed, never created: upstream leaves creationTimestamp null.
  return { kind: 'ComponentStatus', apiVersion: 'v1', metadata: { name, creationTimestamp: null as unknown as string }, conditions: [condition] };
}

/** The components this server is made of, checked now: the database, and the API server itself. */
async function components(storage: { ping(timeoutMs?: number): Promise<void> }): Promise<KubeObject[]> {
  let database: Condition;
  try {
    await storage.ping(DATABASE_CHECK_MS);
    database = { type: 'Healthy', status: 'True', message: 'ok' };
  } catch (err) {
    database = { type: 'Healthy', status: 'False', error: err instanceof Error ? err.message : String(err) };
  }
  // The API server answers this request, so it is up.
  return [component('apiserver', { type: 'Healthy', status: 'True', message: 'ok' }), component('database', database)];
}

const healthy = (o: KubeObject) => ((o.conditions ?? []) as Condition[]).find((c) => c.type === 'Healthy');

/** v1 ComponentStatus (deprecated since 1.19): get and list only, computed when asked. */
export const componentStatuses = defineKind({
  group: '',
  version: 'v1',
  kind: 'ComponentStatus',
  plural: 'componentstatuses',
  singular: 'componentstatus',
  namespaced: false,
  shortNames: ['cs'],
  schemaMessage: 'k8s.io.api.core.v1.ComponentStatus',
  verbs: ['get', 'list'],
  // Upstream's core/v1 lifecycle: deprecated in 1.19, with neither a removal release nor a replacement.
  deprecation: { deprecated: { major: 1, minor: 19 } },
  computed: { list: (_ctx, storage) => components(storage) },
  // kubectl shows no Age for components: the kind lays out the whole row, Name included.
  tableColumns: [
    { name: 'Name', type: 'string', format: 'name', description: NAME_DESCRIPTION, cell: (o) => o.metadata?.name ?? '' },
    {
      name: 'Status',
      type: 'string',
      description: 'Status of the component conditions',
      cell: (o) => (healthy(o)?.status === 'True' ? 'Healthy' : healthy(o)?.status === 'False' ? 'Unhealthy' : 'Unknown'),
    },
    { name: 'Message', type: 'string', description: 'Message of the component conditions', cell: (o) => healthy(o)?.message ?? '' },
    { name: 'Error', type: 'string', description: 'Error of the component conditions', cell: (o) => healthy(o)?.error ?? '' },
  ],
});
