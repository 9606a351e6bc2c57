import { NO_ADMISSION } from '../src/admission/chain.ts';
import { ApiError } from '../src/api/errors.ts';
import { systemContext } from '../src/api/request-context.ts';
import { groupPriority } from '../src/http/discovery/group-priority.ts';
import { apiServices } from '../src/kinds/api-service.ts';
import type { KindDefinition } from '../src/registry/kind.ts';
import { ResourceStore } from '../src/registry/resource-store.ts';
import { storageRefOf } from '../src/registry/storage-view.ts';
import type { Storage } from '../src/storage/storage.ts';
import { mapConcurrently } from './concurrently.ts';

const AUTOMANAGED = 'kube-aggregator.kubernetes.io/automanaged';

/** Where a built-in version sorts within its group: GA above beta above alpha (core v1 and flowcontrol as upstream ranks them). */
function versionPriority(group: string, version: string): number {
  if (group === '') return 1;
  if (group === 'flowcontrol.apiserver.k8s.io' && version === 'v1') return 21;
  if (/^v\d+$/.test(version)) return 15;
  return version.includes('beta') ? 9 : 1;
}

/**
 * Registers an APIService for every group version this server serves itself, as kube-apiserver's
 * autoregistration does (`v1.` for the core group, `v1.coordination.k8s.io`, …): Local, and
 * Available. Idempotent: existing ones are left as they are, so several replicas may start at once.
 */
export async function seedLocalApiServices(storage: Storage, kinds: readonly KindDefinition[]): Promise<string[]> {
  if (!kinds.includes(apiServices)) return [];
  const store = new ResourceStore(apiServices, storage, NO_ADMISSION);
  const versions = new Map<string, { group: string; version: string }>();
  for (const k of kinds) versions.set(`${k.version}.${k.group}`, { group: k.group, version: k.version });
  // Each APIService is independent: registered a few at a time, so that the storage's group commit
  // writes them together instead of one round trip after another; the result keeps the sorted order.
  const outcomes = await mapConcurrently(
    [...versions].sort(([a], [b]) => (a < b ? -1 : 1)),
    async ([name, { group, version }]) => {
      // Every start but the first finds them: a read spares the whole create path answering AlreadyExists.
      if (await storage.get({ ...storageRefOf(apiServices), namespace: '', name })) return undefined;
      const body = {
        apiVersion: 'apiregistration.k8s.io/v1',
        kind: 'APIService',
        metadata: { name, labels: { [AUTOMANAGED]: 'onstart' } },
        spec: { ...(group ? { group } : {}), version, groupPriorityMinimum: group === '' ? 18000 : groupPriority(group), versionPriority: versionPriority(group, version) },
      };
      try {
        await store.create(systemContext(), '', body);
      } catch (err) {
        if (err instanceof ApiError && err.reason === 'AlreadyExists') return undefined;
        throw err;
      }
      const available = { type: 'Available', status: 'True', lastTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'), reason: 'Local', message: 'Local APIServices are always available' };
      await store.update(systemContext({ subresource: 'status' }), '', name, { build: (current) => ({ ...current!, status: { conditions: [available] } }) });
      return name;
    },
  );
  return outcomes.filter((name): name is string => name !== undefined);
}
