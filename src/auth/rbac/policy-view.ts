/**
 * The RBAC objects as the authorizer reads them: in memory, bindings found by subject. Bindings are
 * indexed under every user name and group they grant to (a service account subject as its user name
 * `system:serviceaccount:<ns>:<name>`, its namespace defaulting to the binding's), so a decision
 * looks up the user's name and groups instead of scanning every binding.
 */
import type { StoredKubeObject } from '../../api/types.ts';
import type { Subject } from '../../kinds/rbac-rules.ts';

/** What the authorizer needs from a kind's informer (Informer has exactly this). */
export interface ObjectView {
  get(namespace: string, name: string): StoredKubeObject | undefined;
  byIndex(value: string): StoredKubeObject[];
}

export interface RbacViews {
  readonly roles: ObjectView;
  readonly clusterRoles: ObjectView;
  readonly roleBindings: ObjectView;
  readonly clusterRoleBindings: ObjectView;
}

export const serviceAccountUsername = (namespace: string, name: string) => `system:serviceaccount:${namespace}:${name}`;

export const userKey = (name: string) => `user:${name}`;
export const groupKey = (name: string) => `group:${name}`;

/** The user name a subject names, or undefined (a group, or a service account without a namespace). */
export function subjectUserName(subject: Subject, bindingNamespace: string): string | undefined {
  if (subject.kind === 'User') return subject.name;
  if (subject.kind === 'ServiceAccount') {
    const ns = subject.namespace || bindingNamespace;
    return ns && subject.name !== undefined ? serviceAccountUsername(ns, subject.name) : undefined;
  }
  return undefined;
}

/** The index keys of a binding: one per subject it can apply to. */
export function bindingIndexKeys(obj: StoredKubeObject): string[] {
  const keys = new Set<string>();
  const namespace = obj.metadata.namespace ?? '';
  for (const s of (obj.subjects as Subject[] | undefined) ?? []) {
    if (s.kind === 'Group' && s.name !== undefined) keys.add(groupKey(s.name));
    const user = subjectUserName(s, namespace);
    if (user !== undefined) keys.add(userKey(user));
  }
  return [...keys];
}
