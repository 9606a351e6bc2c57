/**
 * Upstream's pkg/api/persistentvolume DropDisabledSpecFields (Kubernetes 1.34): while
 * VolumeAttributesClass is off, a volume may not start naming an attributes class; an update keeps
 * a class the stored volume already names. (The status rule of that file, for
 * PersistentVolumeLastPhaseTransitionTime, went with its gate: the time is always kept in 1.34.)
 */
import type { RequestContext } from '../api/request-context.ts';

type Obj = Record<string, any>;

export function dropDisabledVolumeSpecFields(ctx: RequestContext, spec: Obj, oldSpec?: Obj): void {
  if (ctx.featureGates.enabled('VolumeAttributesClass')) return;
  if (oldSpec?.volumeAttributesClassName === undefined || oldSpec.volumeAttributesClassName === null) delete spec.volumeAttributesClassName;
}
