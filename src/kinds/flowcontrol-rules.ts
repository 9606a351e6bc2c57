/** Rules FlowSchema and PriorityLevelConfiguration share. */
import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import type { SubresourceDefinition } from '../registry/kind.ts';
import { statusSubresource } from '../registry/subresources.ts';
import * as field from '../registry/validation/field.ts';

/** Status conditions: each type set and given once. */
export function flowcontrolConditionErrors(obj: KubeObject): FieldError[] {
  const conditions = (obj.status as { conditions?: { type?: string }[] } | undefined)?.conditions ?? [];
  const at = field.path('status', 'conditions');
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  conditions.forEach((c, i) => {
    const type = c.type ?? '';
    if (seen.has(type)) errs.push(field.duplicate(at.index(i).child('type'), type));
    seen.add(type);
    if (!type) errs.push(field.required(at.index(i).child('type'), 'must not be empty'));
  });
  return errs;
}

/** Metadata upstream's status strategies for these kinds take from the stored object, not the body. */
const STORED_METADATA = ['labels', 'annotations', 'finalizers', 'ownerReferences'] as const;

/**
 * The status subresource of both kinds: upstream's status strategy keeps the stored spec and the
 * stored metadata (all of it but managedFields), so a status write cannot relabel the object; only
 * the condition rules apply.
 */
export function flowcontrolStatusSubresource(): SubresourceDefinition {
  const common = statusSubresource().strategy!;
  return statusSubresource({
    prepareForUpdate(ctx, obj, old) {
      const next = common.prepareForUpdate(ctx, obj, old);
      const meta = (next.metadata ??= {}) as Record<string, unknown>;
      const stored = (old.metadata ?? {}) as Record<string, unknown>;
      for (const key of STORED_METADATA) {
        if (stored[key] === undefined) delete meta[key];
        else meta[key] = stored[key];
      }
      return next;
    },
    validateUpdate: (_ctx, obj) => flowcontrolConditionErrors(obj),
  });
}
