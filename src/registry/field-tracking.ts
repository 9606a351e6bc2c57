/**
 * The store's side of metadata.managedFields: one FieldManager per endpoint of a kind (its main
 * resource and each subresource, each with the fields its strategy resets), and the name a write
 * is recorded under (the fieldManager parameter, else the User-Agent as upstream derives it).
 */
import type { RequestContext } from '../api/request-context.ts';
import type { KubeObject } from '../api/types.ts';
import { systemContext } from '../api/request-context.ts';
import { apiVersionOf, type KindDefinition } from './kind.ts';
import { FieldManager, managerOrUserAgent, resetFieldsFor, type KindVersions } from './managed-fields/index.ts';

export class FieldTracking {
  readonly #kind: KindDefinition;
  readonly #managers = new Map<string, FieldManager>();

  constructor(kind: KindDefinition) {
    this.#kind = kind;
  }

  /** Who the write is recorded under. */
  managerOf(ctx: RequestContext): string {
    return managerOrUserAgent(ctx.fieldManager, ctx.userAgent);
  }

  /** The field manager of the endpoint a request addresses ('' for the main resource). */
  forSubresource(subresource: string): FieldManager {
    let manager = this.#managers.get(subresource);
    if (!manager) {
      const kind = this.#kind;
      const resetFields = resetFieldsFor(kind, subresource);
      // The kind's defaulting has no use for the request here: upstream defaults the merged object as the decoder would.
      const defaulter = kind.strategy.default ? (obj: object) => kind.strategy.default!(systemContext(), obj as KubeObject) : undefined;
      manager = new FieldManager({
        schema: kind.schema,
        apiVersion: apiVersionOf(kind),
        kind: kind.kind,
        subresource,
        ...(resetFields ? { resetFields } : {}),
        ...(defaulter ? { defaulter } : {}),
        // A custom resource's other versions, which managers may have recorded their fields at.
        ...(versionsOf(kind) ? { versions: versionsOf(kind)! } : {}),
      });
      this.#managers.set(subresource, manager);
    }
    return manager;
  }

  /** Records an Update by the request's manager: `live` null for a create. Never fails (upstream's UpdateNoErrors). */
  recordUpdate(ctx: RequestContext, live: KubeObject | null, next: KubeObject): KubeObject {
    return this.forSubresource(ctx.subresource).update(live, next, this.managerOf(ctx)) as KubeObject;
  }

  /**
   * recordUpdate of an update: other managers' fields recorded at another version of the kind are
   * compared against the objects converted to it (a custom resource's conversion webhook may be
   * asked). Never fails: a failed conversion stores the object without managedFields, as upstream's
   * UpdateNoErrors does.
   */
  async recordUpdateConverting(ctx: RequestContext, live: KubeObject, next: KubeObject): Promise<KubeObject> {
    return (await this.forSubresource(ctx.subresource).updateConverting(live, next, this.managerOf(ctx))) as KubeObject;
  }
}

/** The versions a kind's storage mapping tells of (custom resources: crd/serving/field-manager-versions.ts). */
function versionsOf(kind: KindDefinition): KindVersions | undefined {
  return (kind.storage as { kindVersions?: KindVersions } | undefined)?.kindVersions;
}

const byKind = new WeakMap<KindDefinition, FieldTracking>();

/** The kind's field tracking, shared by its store and by the creates it answers without storing. */
export function fieldTrackingOf(kind: KindDefinition): FieldTracking {
  let tracking = byKind.get(kind);
  if (!tracking) byKind.set(kind, (tracking = new FieldTracking(kind)));
  return tracking;
}
