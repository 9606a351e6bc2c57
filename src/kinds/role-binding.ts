import { defineKind } from '../registry/kind.ts';
import { BINDING_COLUMNS, bindingErrors, defaultBinding, roleRefUpdateErrors } from './rbac-rules.ts';
import { authorizeBindingWrite } from '../auth/rbac/escalation.ts';

const ROLE_KINDS = ['Role', 'ClusterRole'];

/** rbac.authorization.k8s.io/v1 RoleBinding: grants a Role's or ClusterRole's permissions within a namespace. */
export const roleBindings = defineKind({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'RoleBinding',
  plural: 'rolebindings',
  namespaced: true,
  schemaMessage: 'k8s.io.api.rbac.v1.RoleBinding',
  nameRule: 'path-segment',
  tableColumns: BINDING_COLUMNS,
  strategy: {
    // RBAC escalation prevention: 403 unless the user holds (or may escalate / bind) what is granted.
    authorizeWrite: authorizeBindingWrite,
    default: (_ctx, obj) => defaultBinding(obj),
    validate: (_ctx, obj) => bindingErrors(obj, ROLE_KINDS, true),
    validateUpdate: (_ctx, obj, old) => [...bindingErrors(obj, ROLE_KINDS, true), ...roleRefUpdateErrors(obj, old)],
  },
});
