import { systemContext, type RequestContext } from '../api/request-context.ts';

/** Who the in-process controllers act as, as kube-controller-manager authenticates. */
const CONTROLLER_MANAGER = Object.freeze({ name: 'system:kube-controller-manager', groups: Object.freeze(['system:authenticated']) });

/** A fresh context for one controller write (its own warnings list), aimed at a subresource or not. */
export function controllerContext(subresource = ''): RequestContext {
  return systemContext({ user: CONTROLLER_MANAGER, subresource });
}
