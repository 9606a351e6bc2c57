import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { dns1123SubdomainErrors, pathSegmentNameErrors } from '../api/validation/names.ts';
import { defineKind } from '../registry/kind.ts';
import * as field from '../registry/validation/field.ts';
import { labelSelectorErrors, type LabelSelectorValue } from '../registry/validation/label-selector.ts';
import { defaultMatchResources, matchResourcesErrors, type MatchResources } from './admission-rules.ts';

type ParamRef = { name?: string; namespace?: string; selector?: LabelSelectorValue | null; parameterNotFoundAction?: string };
type Spec = { policyName?: string; paramRef?: ParamRef | null; matchResources?: MatchResources | null; validationActions?: string[] };

const specOf = (obj: KubeObject) => (obj.spec ?? {}) as Spec;
const ACTIONS = ['Audit', 'Deny', 'Warn'];

function paramRefErrors(pr: ParamRef | null | undefined, at: field.FieldPath): FieldError[] {
  if (!pr) return [];
  const errs: FieldError[] = [];
  if (pr.name) {
    for (const msg of pathSegmentNameErrors(pr.name)) errs.push(field.invalid(at.child('name'), pr.name, msg));
    if (pr.selector) errs.push(field.forbidden(at.child('name'), 'name and selector are mutually exclusive'));
  }
  if (pr.selector) {
    errs.push(...labelSelectorErrors(pr.selector, at.child('selector')));
    if (pr.name) errs.push(field.forbidden(at.child('selector'), 'name and selector are mutually exclusive'));
  }
  if (!pr.name && !pr.selector) errs.push(field.required(at, 'one of name or selector must be specified'));
  if (!pr.parameterNotFoundAction) errs.push(field.required(at.child('parameterNotFoundAction')));
  else if (!['Deny', 'Allow'].includes(pr.parameterNotFoundAction)) errs.push(field.notSupported(at.child('parameterNotFoundAction'), pr.parameterNotFoundAction, ['Deny', 'Allow']));
  return errs;
}

function actionsErrors(actions: string[] | undefined, at: field.FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  (actions ?? []).forEach((a, i) => {
    if (!ACTIONS.includes(a)) errs.push(field.notSupported(at.index(i), a, ACTIONS));
    if (seen.has(a)) errs.push(field.duplicate(at.index(i), a));
    seen.add(a);
  });
  if (seen.has('Deny') && seen.has('Warn')) errs.push(field.invalid(at, actions, 'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'));
  if (seen.size === 0) errs.push(field.required(at, 'at least one validation action is required'));
  return errs;
}

function validate(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const at = field.path('spec');
  const errs: FieldError[] = [];
  if (!spec.policyName) errs.push(field.required(at.child('policyName')));
  else for (const msg of dns1123SubdomainErrors(spec.policyName)) errs.push(field.invalid(at.child('policyName'), spec.policyName, msg));
  errs.push(...paramRefErrors(spec.paramRef, at.child('paramRef')));
  // Upstream spells this path "matchResouces".
  errs.push(...matchResourcesErrors(spec.matchResources, at.child('matchResouces')));
  errs.push(...actionsErrors(spec.validationActions, at.child('validationActions')));
  return errs;
}

/** metav1.LabelSelector's generated String() (values printed with %v), as the binding table shows a param selector. */
function selectorString(s: LabelSelectorValue): string {
  const labels = Object.keys(s.matchLabels ?? {}).sort().map((k) => `${k}: ${s.matchLabels![k]},`).join('');
  const exprs = (s.matchExpressions ?? []).map((e) => `LabelSelectorRequirement{Key:${e.key ?? ''},Operator:${e.operator ?? ''},Values:[${(e.values ?? []).join(' ')}],},`).join('');
  return `&LabelSelector{MatchLabels:map[string]string{${labels}},MatchExpressions:[]LabelSelectorRequirement{${exprs}},}`;
}

function paramColumn(o: KubeObject): string {
  const pr = specOf(o).paramRef;
  if (!pr) return '<unset>';
  if (pr.name) return pr.namespace ? `${pr.namespace}/${pr.name}` : `*/${pr.name}`;
  if (pr.selector) return selectorString(pr.selector);
  return '<unset>';
}

/** admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding: applies a policy, with parameters and actions. */
export const validatingAdmissionPolicyBindings = defineKind({
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  kind: 'ValidatingAdmissionPolicyBinding',
  plural: 'validatingadmissionpolicybindings',
  namespaced: false,
  categories: ['api-extensions'],
  schemaMessage: 'k8s.io.api.admissionregistration.v1.ValidatingAdmissionPolicyBinding',
  tracksGeneration: true,
  allowUnconditionalUpdate: false,
  tableColumns: [
    { name: 'PolicyName', type: 'string', description: 'The policy the binding applies.', cell: (o) => specOf(o).policyName ?? '' },
    { name: 'ParamRef', type: 'string', description: 'The parameter objects the policy runs with.', cell: (o) => paramColumn(o) },
  ],
  strategy: {
    default: (_ctx, obj) => defaultMatchResources(specOf(obj).matchResources),
    validate: (_ctx, obj) => validate(obj),
    validateUpdate: (_ctx, obj) => validate(obj),
  },
});
