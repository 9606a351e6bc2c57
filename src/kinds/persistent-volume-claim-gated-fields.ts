/**
 * Upstream's pkg/api/persistentvolumeclaim DropDisabledFields and DropDisabledFieldsFromStatus
 * (Kubernetes 1.34): while a gate is off, a claim may not start using the fields it guards; an
 * update keeps what the stored claim already used. AnyVolumeDataSource and
 * RecoverVolumeExpansionFailure are GA and locked on in 1.34, so dataSourceRef and the allocated
 * resources of the status are always kept.
 */
import type { RequestContext } from '../api/request-context.ts';
import type { KubeObject } from '../api/types.ts';

type Obj = Record<string, any>;

const isSet = (v: unknown) => v !== undefined && v !== null;
const statusOf = (obj: KubeObject | undefined): Obj | undefined => (obj ? ((obj.status ?? {}) as Obj) : undefined);

/**
 * The claim spec's gated fields (also a claim template's): volumeAttributesClassName
 * (VolumeAttributesClass) and a cross-namespace dataSourceRef (CrossNamespaceVolumeDataSource, which
 * drops the whole reference, as upstream does). `oldSpec` is the stored claim's spec on an update.
 */
export function dropDisabledClaimSpecFields(ctx: RequestContext, spec: Obj, oldSpec?: Obj): void {
  if (!ctx.featureGates.enabled('VolumeAttributesClass') && !isSet(oldSpec?.volumeAttributesClassName)) delete spec.volumeAttributesClassName;
  const namespace = spec.dataSourceRef?.namespace;
  if (!ctx.featureGates.enabled('CrossNamespaceVolumeDataSource') && typeof namespace === 'string' && namespace !== '' && !isSet(oldSpec?.dataSourceRef)) {
    delete spec.dataSourceRef;
  }
}

/** The claim status's gated fields: the current attributes class and the modify status (VolumeAttributesClass). */
export function dropDisabledClaimStatusFields(ctx: RequestContext, claim: KubeObject, old?: KubeObject): void {
  if (ctx.featureGates.enabled('VolumeAttributesClass')) return;
  const status = statusOf(claim)!;
  const before = statusOf(old);
  if (!isSet(before?.currentVolumeAttributesClassName)) delete status.currentVolumeAttributesClassName;
  if (!isSet(before?.modifyVolumeStatus)) delete status.modifyVolumeStatus;
}
