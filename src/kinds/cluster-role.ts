import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { defineKind } from '../registry/kind.ts';
import * as field from '../registry/validation/field.ts';
import { labelSelectorErrors, type LabelSelectorValue } from '../registry/validation/label-selector.ts';
import { policyRuleErrors, type PolicyRule } from './rbac-rules.ts';
import { authorizeRoleWrite } from '../auth/rbac/escalation.ts';

type ClusterRole = KubeObject & { rules?: PolicyRule[]; aggregationRule?: { clusterRoleSelectors?: LabelSelectorValue[] } | null };

function validate(obj: KubeObject): FieldError[] {
  const role = obj as ClusterRole;
  const errs = policyRuleErrors(role.rules, false);
  if (role.aggregationRule) {
    const selectors = role.aggregationRule.clusterRoleSelectors ?? [];
    const at = field.path('aggregationRule', 'clusterRoleSelectors');
    if (selectors.length === 0) errs.push(field.required(at, 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
    selectors.forEach((s, i) => errs.push(...labelSelectorErrors(s, at.index(i))));
  }
  return errs;
}

/** rbac.authorization.k8s.io/v1 ClusterRole: cluster-wide permissions, possibly aggregated from other cluster roles by label. */
export const clusterRoles = defineKind({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'ClusterRole',
  plural: 'clusterroles',
  namespaced: false,
  schemaMessage: 'k8s.io.api.rbac.v1.ClusterRole',
  nameRule: 'path-segment',
  strategy: {
    // RBAC escalation prevention: 403 unless the user holds (or may escalate / bind) what is granted.
    authorizeWrite: authorizeRoleWrite,
    validate: (_ctx, obj) => validate(obj),
    validateUpdate: (_ctx, obj) => validate(obj),
  },
});
