import type { KubeObject } from '../api/types.ts';
import { cloneJson } from '../codecs/deep-json.ts';
import type { SubresourceDefinition, SubresourceStrategy } from './kind.ts';

/** Top-level fields that are not the object's desired state. */
const NOT_SPEC = new Set(['apiVersion', 'kind', 'metadata', 'status']);

/**
 * The status strategy of built-in kinds: the update takes status and metadata from the body (labels
 * and annotations included, as upstream's status strategies keep them) and keeps everything else
 * (spec, data, …) as stored.
 */
const statusUpdate: SubresourceStrategy = {
  prepareForUpdate(_ctx, obj, old) {
    const next: KubeObject = { ...obj };
    for (const key of Object.keys(next)) if (!NOT_SPEC.has(key)) delete next[key];
    for (const [key, value] of Object.entries(old)) if (!NOT_SPEC.has(key)) next[key] = cloneJson(value);
    return next;
  },
};

/**
 * The `status` subresource: get, update and patch of the object's status. Pass a strategy to add
 * kind rules (validateUpdate) or to change what a status write may touch.
 */
export function statusSubresource(strategy: Partial<SubresourceStrategy> = {}): SubresourceDefinition {
  return { name: 'status', verbs: ['get', 'update', 'patch'], strategy: { ...statusUpdate, ...strategy } };
}
