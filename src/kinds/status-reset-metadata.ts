import type { SubresourceDefinition, SubresourceStrategy } from '../registry/kind.ts';
import { statusSubresource } from '../registry/subresources.ts';

/** Metadata a status write may not change (upstream's ResetObjectMetaForStatus and its like). */
const KEPT = ['labels', 'annotations', 'finalizers', 'ownerReferences'] as const;

/**
 * The status subresource of kinds whose status strategy resets the user's metadata (APIService,
 * StorageVersionMigration, VolumeAttachment): as the common one, but labels, annotations,
 * finalizers and owner references stay as stored.
 */
export function statusResettingMetadata(strategy: Partial<SubresourceStrategy> = {}): SubresourceDefinition {
  const common = statusSubresource().strategy!;
  return statusSubresource({
    ...strategy,
    prepareForUpdate(ctx, obj, old) {
      const next = common.prepareForUpdate(ctx, obj, old);
      const meta = (next.metadata ??= {}) as Record<string, unknown>;
      const before = (old.metadata ?? {}) as Record<string, unknown>;
      for (const key of KEPT) {
        if (before[key] === undefined) delete meta[key];
        else meta[key] = before[key];
      }
      return strategy.prepareForUpdate ? strategy.prepareForUpdate(ctx, next, old) : next;
    },
  });
}
