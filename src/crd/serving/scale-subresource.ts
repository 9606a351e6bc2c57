/**
 * The scale subresource of a custom resource version: an autoscaling/v1 Scale read from the object
 * at the CRD's paths and written back to its spec replicas path (src/crd/scale.ts), through the
 * main resource's strategy and validation, as upstream's ScaleREST updates through the CR store.
 */
import type { KubeObject } from '../../api/types.ts';
import { defineKind, type KindDefinition, type KindStrategy, type SubresourceDefinition } from '../../registry/kind.ts';
import { applyScale, getScale, oldScaleForUpdate, type Scale } from '../scale.ts';
import type { CustomResourceDefinition, ScaleSubresource } from '../validation/types.ts';
import { replicasPath, ScaleFieldsHandler, type ReplicasPathMappings } from '../../registry/managed-fields/scale-handler.ts';
import type { Path } from '../../ssa/fieldpath/index.ts';

/** autoscaling/v1 Scale, the body of every custom resource's scale subresource. */
function scaleKind(namespaced: boolean): KindDefinition {
  return defineKind({ group: 'autoscaling', version: 'v1', kind: 'Scale', plural: 'scale', namespaced, schemaMessage: 'k8s.io.api.autoscaling.v1.Scale', verbs: ['get', 'update', 'patch'] });
}

const SCALE_KINDS = { namespaced: scaleKind(true), cluster: scaleKind(false) };

/**
 * The replicas path of every version of the CRD, by apiVersion (null for a version without scale),
 * as upstream's replicasPathInCustomResource: the scale's managedFields are mapped with it.
 */
function replicasPathMappings(crd: CustomResourceDefinition): ReplicasPathMappings {
  const group = crd.spec?.group ?? '';
  const out = new Map<string, Path | null>();
  for (const v of crd.spec?.versions ?? []) {
    const scale = v.subresources?.scale;
    out.set(`${group}/${v.name ?? ''}`, scale ? replicasPath(scale.specReplicasPath ?? '') : null);
  }
  return out;
}

/**
 * `fields`: the CRD and the version served, for the scale's managedFields (without it, the
 * subresource's writes are tracked on the parent as its own and apply is not served).
 */
export function scaleSubresource(paths: ScaleSubresource, namespaced: boolean, main: KindStrategy, fields?: { crd: CustomResourceDefinition; version: string }): SubresourceDefinition {
  const mappings = fields ? replicasPathMappings(fields.crd) : undefined;
  const groupVersion = fields ? `${fields.crd.spec?.group ?? ''}/${fields.version}` : '';
  return {
    name: 'scale',
    verbs: ['get', 'update', 'patch'],
    kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
    schemaMessage: 'k8s.io.api.autoscaling.v1.Scale',
    strategy: {
      // The write is an update of the custom resource as the main resource's (status kept, generation bumped).
      prepareForUpdate(ctx, obj, old) {
        main.prepareForUpdate?.(ctx, obj, old);
        return obj;
      },
      ...(main.validateUpdate ? { validateUpdate: main.validateUpdate } : {}),
    },
    mapping: {
      kind: namespaced ? SCALE_KINDS.namespaced : SCALE_KINDS.cluster,
      toSubresource: (parent) => getScale(parent, paths) as unknown as KubeObject,
      forUpdate: (parent) => oldScaleForUpdate(parent, paths) as unknown as KubeObject,
      fromSubresource: (body, parent) => applyScale(parent, body as unknown as Partial<Scale>, paths),
      ...(mappings
        ? {
            managedFields: {
              toSubresource: (parent: KubeObject) => new ScaleFieldsHandler(parent.metadata?.managedFields, groupVersion, mappings).toSubresource(),
              toParent: (parent: KubeObject, entries: unknown) => new ScaleFieldsHandler(parent.metadata?.managedFields, groupVersion, mappings).toParent(entries),
            },
          }
        : {}),
    },
  };
}
