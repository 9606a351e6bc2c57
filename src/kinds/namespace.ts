import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { ALL_VERBS, defineKind } from '../registry/kind.ts';
import { statusSubresource } from '../registry/subresources.ts';
import { deletionFinalizersForGarbageCollection, namespaceDeletionFinalizers } from '../registry/gc-finalizers.ts';
import { finalizerNameErrors } from '../api/validation/names.ts';
import * as field from '../registry/validation/field.ts';

/** The finalizer the namespace controller removes once the namespace is empty. */
export const KUBERNETES_FINALIZER = 'kubernetes';
const NAME_LABEL = 'kubernetes.io/metadata.name';

type NamespaceLike = KubeObject & { spec?: { finalizers?: string[] }; status?: { phase?: string } };

function specFinalizers(obj: KubeObject): string[] {
  const f = (obj as NamespaceLike).spec?.finalizers;
  return Array.isArray(f) ? f : [];
}

/** Every namespace carries a label with its own name, so selectors can pick namespaces by name. */
function labelWithName(obj: KubeObject): void {
  const meta = (obj.metadata ??= {});
  meta.labels = { ...(meta.labels ?? {}), [NAME_LABEL]: String(meta.name) };
}

function validateNamespace(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  // Upstream names the list, not the item.
  for (const f of specFinalizers(obj)) {
    for (const detail of finalizerNameErrors(f)) errs.push(field.invalid(field.path('spec', 'finalizers'), f, detail));
  }
  return errs;
}

/** status.phase follows deletion: Active while live, Terminating once deleted (the field path is upstream's). */
function validatePhase(obj: KubeObject): FieldError[] {
  const phase = (obj as NamespaceLike).status?.phase || 'Active';
  if (!obj.metadata?.deletionTimestamp && phase !== 'Active') {
    return [field.invalid(field.path('status', 'Phase'), phase, "may only be 'Active' if `deletionTimestamp` is empty")];
  }
  if (obj.metadata?.deletionTimestamp && phase !== 'Terminating') {
    return [field.invalid(field.path('status', 'Phase'), phase, 'may only be in terminating status if `deletionTimestamp` is not empty')];
  }
  return [];
}

export const namespaces = defineKind({
  group: '',
  version: 'v1',
  kind: 'Namespace',
  plural: 'namespaces',
  namespaced: false,
  shortNames: ['ns'],
  schemaMessage: 'k8s.io.api.core.v1.Namespace',
  nameRule: 'dns-label',
  // As upstream: namespaces are deleted one at a time, there is no deletecollection.
  verbs: ALL_VERBS.filter((v) => v !== 'deletecollection'),
  subresources: [
    statusSubresource({ validateUpdate: (_ctx, obj) => [...validateNamespace(obj), ...validatePhase(obj)] }),
    // spec.finalizers changes only here; the rest of the object is taken from the body, except status.
    {
      name: 'finalize',
      verbs: ['update'],
      strategy: {
        prepareForUpdate: (_ctx, obj, old) => ({ ...obj, status: (old as NamespaceLike).status }),
        validateUpdate: (_ctx, obj) => [...validateNamespace(obj), ...validatePhase(obj)],
      },
    },
  ],
  fieldSelectors: { 'status.phase': ['status', 'phase'] },
  tableColumns: [
    { name: 'Status', type: 'string', description: 'The status of the namespace', cell: (o) => (o as NamespaceLike).status?.phase ?? '' },
  ],
  strategy: {
    default: (_ctx, obj) => labelWithName(obj),
    prepareForCreate: (_ctx, obj) => {
      const ns = obj as NamespaceLike;
      ns.status = { phase: 'Active' };
      const finalizers = specFinalizers(ns);
      ns.spec = { ...(ns.spec ?? {}), finalizers: finalizers.includes(KUBERNETES_FINALIZER) ? finalizers : [...finalizers, KUBERNETES_FINALIZER] };
    },
    prepareForUpdate: (_ctx, obj, old) => {
      // spec.finalizers changes only through /finalize.
      (obj as NamespaceLike).spec = { ...((obj as NamespaceLike).spec ?? {}), finalizers: specFinalizers(old) };
    },
    extraFinalizers: specFinalizers,
    validate: (_ctx, obj) => validateNamespace(obj),
    validateUpdate: (_ctx, obj) => [...validateNamespace(obj), ...validatePhase(obj)],
  },
  deleteStrategy: {
    prepareForDelete: (_ctx, obj) => {
      (obj as NamespaceLike).status = { ...((obj as NamespaceLike).status ?? {}), phase: 'Terminating' };
    },
    // As upstream's namespace storage: its own rule on the first delete; later, while spec.finalizers
    // still hold it, a delete changes nothing; after that, the generic rule.
    garbageCollectionFinalizers: (obj, options) => {
      if (!obj.metadata?.deletionTimestamp) return namespaceDeletionFinalizers(obj, options);
      return specFinalizers(obj).length > 0 ? undefined : deletionFinalizersForGarbageCollection(obj, options);
    },
  },
});
