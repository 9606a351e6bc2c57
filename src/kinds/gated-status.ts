import type { RequestContext } from '../api/request-context.ts';
import type { KubeObject } from '../api/types.ts';
import type { SubresourceDefinition, SubresourceStrategy } from '../registry/kind.ts';
import { statusSubresource } from '../registry/subresources.ts';

/**
 * The common status subresource, followed by a kind's "drop disabled fields" step: upstream's status
 * strategies drop gated status fields the stored object does not use, as their main strategies do.
 */
export function statusDroppingGatedFields(drop: (ctx: RequestContext, obj: KubeObject, old: KubeObject) => void, strategy: Partial<SubresourceStrategy> = {}): SubresourceDefinition {
  const common = statusSubresource().strategy!;
  return statusSubresource({
    ...strategy,
    prepareForUpdate(ctx, obj, old) {
      const next = common.prepareForUpdate(ctx, obj, old);
      drop(ctx, next, old);
      return next;
    },
  });
}
