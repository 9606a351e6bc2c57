/**
 * Privilege escalation prevention for RBAC writes (upstream's pkg/registry/rbac/*\/policybased and
 * validation.ConfirmNoEscalation): a user may only write a Role or ClusterRole whose rules they
 * already hold, unless they may `escalate` it; and only bind a role whose rules they hold, unless
 * they may `bind` it. system:masters and the server's own writes (no ctx.auth) are not checked.
 * Runs before validation, as upstream's storage wrapper does, so the answer is 403, not 422.
 */
import { forbidden, notFound } from '../../api/errors.ts';
import type { RequestContext } from '../../api/request-context.ts';
import type { RequestInfo } from '../../api/request-info.ts';
import type { KubeObject } from '../../api/types.ts';
import type { PolicyRule, RoleRef } from '../../kinds/rbac-rules.ts';
import { SYSTEM_MASTERS, type UserInfo } from '../user.ts';
import { compactRule, covers, quoteList } from './covers.ts';
import { RbacRuleResolver } from './rule-resolver.ts';

const GROUP = 'rbac.authorization.k8s.io';

/** The RBAC resolver when RBAC authorizes this server; without it no RBAC grant can be escalated. */
function rbacResolver(ctx: RequestContext): RbacRuleResolver | undefined {
  return ctx.auth?.rbacRules instanceof RbacRuleResolver ? ctx.auth.rbacRules : undefined;
}

/** Upstream's EscalationAllowed: no user (the server itself) or system:masters. */
function escalationAllowed(ctx: RequestContext): boolean {
  return !ctx.auth || ctx.user.groups.includes(SYSTEM_MASTERS);
}

function resourceRequest(verb: string, resource: string, namespace: string, name: string): RequestInfo {
  return {
    isResourceRequest: true,
    path: '',
    verb,
    apiPrefix: 'apis',
    apiGroup: GROUP,
    apiVersion: 'v1',
    namespace,
    resource,
    subresource: '',
    name,
    inNamespace: namespace !== '',
    parts: [],
  };
}

async function mayDo(ctx: RequestContext, verb: string, resource: string, namespace: string, name: string): Promise<boolean> {
  const result = await ctx.auth!.access.authorize({ user: ctx.user, request: resourceRequest(verb, resource, namespace, name) });
  return result.decision === 'allow';
}

/** The error text of upstream's ConfirmNoEscalation, or undefined when the user holds every rule. */
export function escalationMessage(resolver: RbacRuleResolver, user: UserInfo, namespace: string, rules: readonly PolicyRule[]): string | undefined {
  const owned = resolver.policyRulesFor(user, namespace);
  const { covered, missing } = covers(owned.rules, rules);
  if (covered) return undefined;
  const descriptions = [...new Set(missing.map(compactRule))].sort();
  let msg = `user ${JSON.stringify(user.name)} (groups=${quoteList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${descriptions.join('\n')}`;
  if (owned.errors.length > 0) msg += `; resolution errors: [${[...owned.errors].sort().join(' ')}]`;
  return msg;
}

/** Refuses a Role (namespace set) or ClusterRole write that would grant rules the user lacks. */
export async function confirmRoleWrite(ctx: RequestContext, obj: KubeObject): Promise<void> {
  const resolver = rbacResolver(ctx);
  if (!resolver || escalationAllowed(ctx)) return;
  const namespace = obj.metadata?.namespace ?? '';
  const resource = namespace ? 'roles' : 'clusterroles';
  const name = obj.metadata?.name ?? '';
  if (await mayDo(ctx, 'escalate', resource, namespace, name)) return;
  const msg = escalationMessage(resolver, ctx.user, namespace, (obj.rules as PolicyRule[] | undefined) ?? []);
  if (msg) throw forbidden({ group: GROUP, resource }, name, msg);
}

/** Refuses a RoleBinding (namespace set) or ClusterRoleBinding the user may not make. */
export async function confirmBindingWrite(ctx: RequestContext, obj: KubeObject): Promise<void> {
  const resolver = rbacResolver(ctx);
  if (!resolver || escalationAllowed(ctx)) return;
  const namespace = obj.metadata?.namespace ?? '';
  const resource = namespace ? 'rolebindings' : 'clusterrolebindings';
  const name = obj.metadata?.name ?? '';
  const ref = (obj.roleRef as RoleRef | undefined) ?? {};
  // `bind` is asked of the referenced role in the binding's namespace (none for a ClusterRoleBinding),
  // so that binding a cluster role can be delegated per namespace.
  const roleResource = ref.kind === 'Role' ? 'roles' : 'clusterroles';
  if (await mayDo(ctx, 'bind', roleResource, namespace, ref.name ?? '')) return;
  // A kind other than Role or ClusterRole is left to validation, which refuses it with a 422.
  if (ref.kind !== 'Role' && ref.kind !== 'ClusterRole') return;
  const found = resolver.roleRefRules(ref, namespace);
  // As upstream, a missing role is the lister's NotFound (resource "role" or "clusterrole"), not a 403.
  if ('error' in found) throw notFound({ group: GROUP, resource: ref.kind.toLowerCase() }, ref.name ?? '');
  const msg = escalationMessage(resolver, ctx.user, namespace, found.rules);
  if (msg) throw forbidden({ group: GROUP, resource }, name, msg);
}

const GC_FIELDS = new Set(['ownerReferences', 'finalizers', 'resourceVersion', 'managedFields', 'generation']);

/** Upstream's IsOnlyMutatingGCFields: an update touching only owner references and finalizers is never an escalation. */
export function onlyGcFieldsChanged(obj: KubeObject, old: KubeObject): boolean {
  const strip = (o: KubeObject) => {
    const metadata = Object.fromEntries(Object.entries(o.metadata ?? {}).filter(([k]) => !GC_FIELDS.has(k)));
    return JSON.stringify({ ...o, apiVersion: undefined, kind: undefined, metadata });
  };
  return strip(obj) === strip(old);
}

/** The KindStrategy.authorizeWrite of Role and ClusterRole. */
export async function authorizeRoleWrite(ctx: RequestContext, namespace: string, obj: KubeObject, old?: KubeObject): Promise<void> {
  if (old && onlyGcFieldsChanged(obj, old)) return;
  await confirmRoleWrite(ctx, { ...obj, metadata: { ...obj.metadata, namespace: namespace || undefined } });
}

/** The KindStrategy.authorizeWrite of RoleBinding and ClusterRoleBinding. */
export async function authorizeBindingWrite(ctx: RequestContext, namespace: string, obj: KubeObject, old?: KubeObject): Promise<void> {
  if (old && onlyGcFieldsChanged(obj, old)) return;
  await confirmBindingWrite(ctx, { ...obj, metadata: { ...obj.metadata, namespace: namespace || undefined } });
}
