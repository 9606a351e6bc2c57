/**
 * Builds the RBAC authorizer on four informers (roles, cluster roles and both bindings), so that a
 * decision reads memory, never the database. Resolves once each has its first list.
 */
import type { Logger } from 'pino';
import type { Closers } from '../../closers.ts';
import type { ApiSurface } from '../../registry/api-surface.ts';
import { Informer } from '../../registry/informer.ts';
import { StartupError } from '../../startup-error.ts';
import type { Authorizer } from '../authz/authorizer.ts';
import { bindingIndexKeys, type RbacViews } from './policy-view.ts';
import { DecisionCache } from './decision-cache.ts';
import { rbacAuthorizer } from './rbac-authorizer.ts';
import { RbacRuleResolver } from './rule-resolver.ts';

const GROUP = 'rbac.authorization.k8s.io';

export async function startRbac(deps: { surface: ApiSurface; logger: Logger; closers: Closers }): Promise<{ authorizer: Authorizer; resolver: RbacRuleResolver }> {
  const informer = (resource: string, indexed: boolean) => {
    const store = deps.surface.findStore(GROUP, resource);
    if (!store) throw new StartupError(`--authorization-mode=RBAC needs the ${resource}.${GROUP} API, which --runtime-config turns off`);
    const inf = new Informer(store, { logger: deps.logger, ...(indexed ? { index: bindingIndexKeys } : {}) });
    deps.closers.add(`rbac-${resource}-informer`, () => inf.stop());
    return inf;
  };
  const views = {
    roles: informer('roles', false),
    clusterRoles: informer('clusterroles', false),
    roleBindings: informer('rolebindings', true),
    clusterRoleBindings: informer('clusterrolebindings', true),
  } satisfies RbacViews;
  await Promise.all(Object.values(views).map((v) => v.start()));
  const resolver = new RbacRuleResolver(views);
  const cache = new DecisionCache();
  const forget = () => cache.clear();
  for (const view of Object.values(views)) view.on({ added: forget, updated: forget, deleted: forget });
  return { authorizer: rbacAuthorizer(resolver, cache), resolver };
}
