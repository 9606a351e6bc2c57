import type { KubeObject } from '../api/types.ts';
import { defineKind } from '../registry/kind.ts';
import { policyRuleErrors, type PolicyRule } from './rbac-rules.ts';
import { authorizeRoleWrite } from '../auth/rbac/escalation.ts';

const rulesOf = (obj: KubeObject) => obj.rules as PolicyRule[] | undefined;

/** rbac.authorization.k8s.io/v1 Role: permissions within one namespace (stored and validated; authorization reads them later). */
export const roles = defineKind({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'Role',
  plural: 'roles',
  namespaced: true,
  schemaMessage: 'k8s.io.api.rbac.v1.Role',
  nameRule: 'path-segment',
  strategy: {
    // RBAC escalation prevention: 403 unless the user holds (or may escalate / bind) what is granted.
    authorizeWrite: authorizeRoleWrite,
    validate: (_ctx, obj) => policyRuleErrors(rulesOf(obj), true),
    validateUpdate: (_ctx, obj) => policyRuleErrors(rulesOf(obj), true),
  },
});
