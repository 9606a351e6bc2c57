import { defineKind } from '../registry/kind.ts';
import { BINDING_COLUMNS, bindingErrors, defaultBinding, roleRefUpdateErrors } from './rbac-rules.ts';
import { authorizeBindingWrite } from '../auth/rbac/escalation.ts';

const ROLE_KINDS = ['ClusterRole'];

/** rbac.authorization.k8s.io/v1 ClusterRoleBinding: grants a ClusterRole's permissions across the cluster. */
export const clusterRoleBindings = defineKind({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'ClusterRoleBinding',
  plural: 'clusterrolebindings',
  namespaced: false,
  schemaMessage: 'k8s.io.api.rbac.v1.ClusterRoleBinding',
  nameRule: 'path-segment',
  tableColumns: BINDING_COLUMNS,
  strategy: {
    // RBAC escalation prevention: 403 unless the user holds (or may escalate / bind) what is granted.
    authorizeWrite: authorizeBindingWrite,
    default: (_ctx, obj) => defaultBinding(obj),
    validate: (_ctx, obj) => bindingErrors(obj, ROLE_KINDS, false),
    validateUpdate: (_ctx, obj, old) => [...bindingErrors(obj, ROLE_KINDS, false), ...roleRefUpdateErrors(obj, old)],
  },
});
