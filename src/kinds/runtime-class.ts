import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { dns1123LabelErrors } from '../api/validation/names.ts';
import { defineKind } from '../registry/kind.ts';
import * as field from '../registry/validation/field.ts';
import { labelMapErrors } from '../registry/validation/label-selector.ts';
import { resourceRequirementsErrors } from './core-resources.ts';
import { tolerationStruct, tolerationsErrors, type Toleration } from './tolerations.ts';

type RuntimeClass = KubeObject & {
  handler?: string;
  overhead?: { podFixed?: Record<string, string> } | null;
  scheduling?: { nodeSelector?: Record<string, string> | null; tolerations?: Toleration[] } | null;
};

/** Upstream's ValidateRuntimeClass. */
function validate(obj: KubeObject): FieldError[] {
  const rc = obj as RuntimeClass;
  const handler = rc.handler ?? '';
  const errs = dns1123LabelErrors(handler).map((msg) => field.invalid('handler', handler, msg));
  // Overhead is judged as a container's limits (so errors read overhead.limits[…]).
  if (rc.overhead) errs.push(...resourceRequirementsErrors(rc.overhead.podFixed, undefined, field.path('overhead')));
  if (rc.scheduling) {
    const at = field.path('scheduling');
    if (rc.scheduling.nodeSelector) errs.push(...labelMapErrors(rc.scheduling.nodeSelector, at.child('nodeSelector')));
    const tolerations = rc.scheduling.tolerations ?? [];
    errs.push(...tolerationsErrors(tolerations, at.child('tolerations')));
    // Tolerations are a list keyed by key, operator, value and effect: each appears once.
    const seen = new Set<string>();
    tolerations.forEach((t, i) => {
      const key = JSON.stringify([t.key ?? '', t.operator ?? '', t.value ?? '', t.effect ?? '']);
      if (seen.has(key)) errs.push(field.duplicate(at.child('tolerations').index(i), tolerationStruct(t)));
      seen.add(key);
    });
  }
  return errs;
}

/** node.k8s.io/v1 RuntimeClass: a container runtime configuration pods can select by name. */
export const runtimeClasses = defineKind({
  group: 'node.k8s.io',
  version: 'v1',
  kind: 'RuntimeClass',
  plural: 'runtimeclasses',
  namespaced: false,
  schemaMessage: 'k8s.io.api.node.v1.RuntimeClass',
  tableColumns: [{ name: 'Handler', type: 'string', description: 'The container runtime configuration that runs the pods.', cell: (o) => (o as RuntimeClass).handler ?? '' }],
  strategy: {
    validate: (_ctx, obj) => validate(obj),
    validateUpdate: (_ctx, obj, old) => {
      const errs = validate(obj);
      const handler = (obj as RuntimeClass).handler ?? '';
      if (handler !== ((old as RuntimeClass).handler ?? '')) errs.push(field.immutable('handler', handler));
      return errs;
    },
  },
});
