/**
 * Upstream's RBAC rule resolution (pkg/registry/rbac/validation/rule.go): the rules a user holds in a
 * namespace are those of the ClusterRoleBindings that name them, then of the RoleBindings of that
 * namespace (a RoleBinding to a ClusterRole grants its rules in the binding's namespace only). A
 * binding whose role is missing is an evaluation error, not a failure: the rest still count.
 */
import type { StoredKubeObject } from '../../api/types.ts';
import type { PolicyRule, RoleRef, Subject } from '../../kinds/rbac-rules.ts';
import type { SubjectRules } from '../authz/rules.ts';
import type { RuleResolver } from '../services.ts';
import type { UserInfo } from '../user.ts';
import { groupKey, subjectUserName, userKey, type RbacViews } from './policy-view.ts';

/** Where a rule came from, for the allow reason (`ClusterRoleBinding "x" of ClusterRole "y" to User "z"`). */
export interface RuleSource {
  readonly binding: StoredKubeObject;
  readonly subject: Subject;
}

/** Called per rule (or per error); return false to stop. */
export type RuleVisitor = (source: RuleSource | undefined, rule: PolicyRule | undefined, error: string | undefined) => boolean;

function appliesTo(user: UserInfo, subjects: readonly Subject[], bindingNamespace: string): Subject | undefined {
  for (const s of subjects) {
    if (s.kind === 'Group') {
      if (s.name !== undefined && user.groups.includes(s.name)) return s;
    } else if (s.kind === 'User' || s.kind === 'ServiceAccount') {
      if (subjectUserName(s, bindingNamespace) === user.name) return s;
    }
  }
  return undefined;
}

/** Bindings indexed under the user's name or groups, each once, in a stable order. */
function candidates(view: RbacViews['clusterRoleBindings'], user: UserInfo, namespace?: string): StoredKubeObject[] {
  const keys = [userKey(user.name), ...user.groups.map(groupKey)];
  const seen = new Map<string, StoredKubeObject>();
  for (const key of keys) {
    for (const b of view.byIndex(key)) {
      if (namespace !== undefined && b.metadata.namespace !== namespace) continue;
      seen.set(`${b.metadata.namespace ?? ''}/${b.metadata.name}`, b);
    }
  }
  return [...seen.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, b]) => b);
}

export class RbacRuleResolver implements RuleResolver {
  readonly #views: RbacViews;

  constructor(views: RbacViews) {
    this.#views = views;
  }

  /** The rules a role reference grants, or upstream's not-found error text. */
  roleRefRules(ref: RoleRef, bindingNamespace: string): { rules: PolicyRule[] } | { error: string } {
    const name = ref.name ?? '';
    if (ref.kind === 'Role') {
      const role = this.#views.roles.get(bindingNamespace, name);
      return role ? { rules: (role.rules as PolicyRule[] | undefined) ?? [] } : { error: `role.rbac.authorization.k8s.io "${name}" not found` };
    }
    if (ref.kind === 'ClusterRole') {
      const role = this.#views.clusterRoles.get('', name);
      return role ? { rules: (role.rules as PolicyRule[] | undefined) ?? [] } : { error: `clusterrole.rbac.authorization.k8s.io "${name}" not found` };
    }
    return { error: `unsupported role reference kind: "${ref.kind ?? ''}"` };
  }

  /** Visits every rule that applies to the user in the namespace ('' = cluster-wide only). */
  visitRulesFor(user: UserInfo, namespace: string, visit: RuleVisitor): void {
    for (const binding of candidates(this.#views.clusterRoleBindings, user)) {
      if (!this.#visitBinding(binding, user, '', visit)) return;
    }
    if (!namespace) return;
    for (const binding of candidates(this.#views.roleBindings, user, namespace)) {
      if (!this.#visitBinding(binding, user, namespace, visit)) return;
    }
  }

  #visitBinding(binding: StoredKubeObject, user: UserInfo, namespace: string, visit: RuleVisitor): boolean {
    const subject = appliesTo(user, (binding.subjects as Subject[] | undefined) ?? [], namespace);
    if (!subject) return true;
    const found = this.roleRefRules((binding.roleRef as RoleRef | undefined) ?? {}, namespace);
    if ('error' in found) return visit(undefined, undefined, found.error);
    const source = { binding, subject };
    for (const rule of found.rules) if (!visit(source, rule, undefined)) return false;
    return true;
  }

  /** Every rule the user holds in the namespace, with the errors met (upstream's RulesFor). */
  policyRulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    this.visitRulesFor(user, namespace, (_s, rule, err) => {
      if (rule) rules.push(rule);
      if (err) errors.push(err);
      return true;
    });
    return { rules, errors };
  }

  async rulesFor(user: UserInfo, namespace: string): Promise<SubjectRules> {
    const { rules, errors } = this.policyRulesFor(user, namespace);
    const resourceRules = rules
      .filter((r) => (r.resources?.length ?? 0) > 0)
      .map((r) => ({ verbs: r.verbs ?? [], apiGroups: r.apiGroups ?? [], resources: r.resources ?? [], resourceNames: r.resourceNames ?? [] }));
    const nonResourceRules = rules
      .filter((r) => (r.nonResourceURLs?.length ?? 0) > 0)
      .map((r) => ({ verbs: r.verbs ?? [], nonResourceURLs: r.nonResourceURLs ?? [] }));
    return {
      resourceRules,
      nonResourceRules,
      // RBAC can always list what it grants; errors are reported, not marked incomplete (as upstream).
      incomplete: false,
      ...(errors.length > 0 ? { evaluationError: joinErrors(errors) } : {}),
    };
  }
}

/** Go's utilerrors.NewAggregate(...).Error(): one error as itself, several as `[a, b]`. */
export function joinErrors(errors: readonly string[]): string {
  return errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
}
