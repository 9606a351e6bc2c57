import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { goStruct } from '../api/go/values.ts';
import { percentErrors } from '../api/validation/names.ts';
import { defineKind } from '../registry/kind.ts';
import { statusSubresource } from '../registry/subresources.ts';
import { conditionsErrors, type ConditionValue } from '../registry/validation/conditions.ts';
import * as field from '../registry/validation/field.ts';
import { labelSelectorErrors, type LabelSelectorValue } from '../registry/validation/label-selector.ts';

type IntOrPercent = number | string;
type Spec = { minAvailable?: IntOrPercent; selector?: LabelSelectorValue | null; maxUnavailable?: IntOrPercent; unhealthyPodEvictionPolicy?: string };
type Status = { disruptionsAllowed?: number; currentHealthy?: number; desiredHealthy?: number; expectedPods?: number; conditions?: ConditionValue[]; observedGeneration?: number };

const specOf = (obj: KubeObject) => (obj.spec ?? {}) as Spec;
const statusOf = (obj: KubeObject) => (obj.status ?? {}) as Status;
const EVICTION_POLICIES = ['AlwaysAllow', 'IfHealthyBudget'];

/** apps' ValidatePositiveIntOrPercent and IsNotMoreThan100Percent. */
function intOrPercentErrors(value: IntOrPercent, at: field.FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (typeof value === 'string') {
    for (const msg of percentErrors(value)) errs.push(field.invalid(at, value, msg));
    const percent = /^[0-9]+%$/.test(value) ? Number(value.slice(0, -1)) : undefined;
    if (percent !== undefined && percent > 100) errs.push(field.invalid(at, value, 'must not be greater than 100%'));
  } else if (value < 0) {
    errs.push(field.invalid(at, value, 'must be greater than or equal to 0'));
  }
  return errs;
}

function validateSpec(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const at = field.path('spec');
  const errs: FieldError[] = [];
  if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined) {
    // Upstream shows its internal spec struct.
    const shown = goStruct({ MinAvailable: spec.minAvailable, Selector: spec.selector ?? null, MaxUnavailable: spec.maxUnavailable, UnhealthyPodEvictionPolicy: spec.unhealthyPodEvictionPolicy ?? null });
    errs.push(field.invalid(at, shown, 'minAvailable and maxUnavailable cannot be both set'));
  }
  if (spec.minAvailable !== undefined) errs.push(...intOrPercentErrors(spec.minAvailable, at.child('minAvailable')));
  if (spec.maxUnavailable !== undefined) errs.push(...intOrPercentErrors(spec.maxUnavailable, at.child('maxUnavailable')));
  errs.push(...labelSelectorErrors(spec.selector, at.child('selector')));
  const policy = spec.unhealthyPodEvictionPolicy;
  if (policy !== undefined && !EVICTION_POLICIES.includes(policy)) errs.push(field.notSupported(at.child('unhealthyPodEvictionPolicy'), policy, EVICTION_POLICIES));
  return errs;
}

/** Upstream's ValidatePodDisruptionBudgetStatusUpdate (policy/v1). */
function validateStatus(obj: KubeObject): FieldError[] {
  const status = statusOf(obj);
  const at = field.path('status');
  const errs = conditionsErrors(status.conditions, at.child('conditions'));
  for (const name of ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'] as const) {
    const v = status[name] ?? 0;
    if (v < 0) errs.push(field.invalid(at.child(name), v, 'must be greater than or equal to 0'));
  }
  return errs;
}

const shown = (v: IntOrPercent | undefined) => (v === undefined ? 'N/A' : String(v));

/** policy/v1 PodDisruptionBudget: how many pods of a set voluntary disruptions may take down at once. */
export const podDisruptionBudgets = defineKind({
  group: 'policy',
  version: 'v1',
  kind: 'PodDisruptionBudget',
  plural: 'poddisruptionbudgets',
  shortNames: ['pdb'],
  namespaced: true,
  schemaMessage: 'k8s.io.api.policy.v1.PodDisruptionBudget',
  tracksGeneration: true,
  subresources: [statusSubresource({ validateUpdate: (_ctx, obj) => validateStatus(obj) })],
  tableColumns: [
    { name: 'Min Available', type: 'string', description: 'The number or percentage of pods that must stay available.', cell: (o) => shown(specOf(o).minAvailable) },
    { name: 'Max Unavailable', type: 'string', description: 'The number or percentage of pods that may be unavailable.', cell: (o) => shown(specOf(o).maxUnavailable) },
    { name: 'Allowed Disruptions', type: 'integer', description: 'How many disruptions are allowed now.', cell: (o) => statusOf(o).disruptionsAllowed ?? 0 },
  ],
  strategy: {
    // Status is the disruption controller's: a create starts it from zero.
    prepareForCreate: (_ctx, obj) => {
      obj.status = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
    },
    validate: (_ctx, obj) => validateSpec(obj),
    validateUpdate: (_ctx, obj) => validateSpec(obj),
  },
});
