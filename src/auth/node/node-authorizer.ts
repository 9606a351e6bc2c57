/**
 * The Node authorizer: a kubelet (user `system:node:<name>` in group `system:nodes`) may read the
 * secrets, config maps and PVCs of pods bound to its node, ask tokens for their service accounts,
 * and touch its own Lease and CSINode. Everything it does not scope is left to the next authorizer
 * (RBAC's system:node role), and everything it refuses is a noOpinion with upstream's reason, so a
 * later authorizer could still allow it.
 */
import type { RequestInfo } from '../../api/request-info.ts';
import type { Attributes, AuthorizationResult, Authorizer } from '../authz/authorizer.ts';
import type { UserInfo } from '../user.ts';
import { podReferences, type PodReferences } from './pod-references.ts';

const NODE_USER_PREFIX = 'system:node:';
const NODES_GROUP = 'system:nodes';
const NODE_LEASE_NAMESPACE = 'kube-node-lease';

/** The pods bound to a node, as an informer indexed by spec.nodeName can tell. */
export interface PodsByNode {
  podsOn(nodeName: string): readonly Record<string, any>[];
}

/** The node a user speaks for, or undefined when the user is not a node. */
export function nodeNameOf(user: UserInfo): string | undefined {
  if (!user.groups.includes(NODES_GROUP) || !user.name.startsWith(NODE_USER_PREFIX)) return undefined;
  const name = user.name.slice(NODE_USER_PREFIX.length);
  return name === '' ? undefined : name;
}

const NO_OPINION: AuthorizationResult = { decision: 'noOpinion' };
const ALLOW: AuthorizationResult = { decision: 'allow' };
const noOpinion = (reason: string): AuthorizationResult => ({ decision: 'noOpinion', reason });
const noRelationship = (node: string) => noOpinion(`no relationship found between node '${node}' and this object`);

type Reference = (refs: PodReferences, name: string) => boolean;
const secretRef: Reference = (r, n) => r.secrets.has(n);
const configMapRef: Reference = (r, n) => r.configMaps.has(n);
const pvcRef: Reference = (r, n) => r.pvcs.has(n);
const serviceAccountRef: Reference = (r, n) => r.serviceAccount === n;
const EDITS = new Set(['get', 'create', 'update', 'patch', 'delete']);

export class NodeAuthorizer implements Authorizer {
  readonly name = 'Node';
  readonly #pods: PodsByNode;

  constructor(pods: PodsByNode) {
    this.#pods = pods;
  }

  authorize({ user, request }: Attributes): AuthorizationResult {
    const node = nodeNameOf(user);
    if (node === undefined || !request.isResourceRequest) return NO_OPINION;
    const r = request;
    const key = `${r.apiGroup}/${r.resource}`;
    switch (key) {
      case '/secrets':
        return this.#readNamespaced(node, r, secretRef);
      case '/configmaps':
        return this.#readNamespaced(node, r, configMapRef);
      case '/persistentvolumeclaims':
        if (r.subresource === 'status') {
          if (r.verb !== 'update' && r.verb !== 'patch') return noOpinion('can only get/update/patch this type');
          return this.#related(node, r, pvcRef);
        }
        if (r.verb !== 'get') return noOpinion('can only get individual resources of this type');
        if (r.subresource !== '') return noOpinion('cannot get subresource');
        return this.#related(node, r, pvcRef);
      case '/serviceaccounts':
        if (r.verb !== 'create' || r.name === '') return noOpinion('can only create tokens for individual service accounts');
        if (r.subresource !== 'token') return noOpinion('can only create token subresource of serviceaccount');
        return this.#related(node, r, serviceAccountRef);
      case 'coordination.k8s.io/leases':
        if (!EDITS.has(r.verb)) return noOpinion('can only get, create, update, patch, or delete a node lease');
        if (r.namespace !== NODE_LEASE_NAMESPACE) return noOpinion(`can only access leases in the "${NODE_LEASE_NAMESPACE}" system namespace`);
        // On create the name is in the body, not the path; NodeRestriction admission checks it there.
        if (r.verb !== 'create' && r.name !== node) return noOpinion('can only access node lease with the same name as the requesting node');
        return ALLOW;
      case 'storage.k8s.io/csinodes':
        if (!EDITS.has(r.verb)) return noOpinion('can only get, create, update, patch, or delete a CSINode');
        if (r.subresource !== '') return noOpinion('cannot authorize CSINode subresources');
        if (r.verb !== 'create' && r.name !== node) return noOpinion('can only access CSINode with the same name as the requesting node');
        return ALLOW;
      case '/nodes':
        return nodeObject(node, r);
      case '/pods':
        return this.#pod(node, r);
      default:
        // Not subdivided here: RBAC's system:node role decides.
        return NO_OPINION;
    }
  }

  /** get, or list/watch of one object by name (a metadata.name field selector), of something a pod on the node names. */
  #readNamespaced(node: string, r: RequestInfo, ref: Reference): AuthorizationResult {
    if (r.verb !== 'get' && r.verb !== 'list' && r.verb !== 'watch') return noOpinion('can only read resources of this type');
    if (r.subresource !== '') return noOpinion('cannot read subresource');
    if (r.namespace === '') return noOpinion('can only read namespaced object of this type');
    return this.#related(node, r, ref);
  }

  #pod(node: string, r: RequestInfo): AuthorizationResult {
    if (r.subresource === '') {
      if (r.verb === 'get') return this.#related(node, r, () => true);
      // A list or watch by name of a pod bound here; field selectors on spec.nodeName are left to RBAC.
      if ((r.verb === 'list' || r.verb === 'watch') && r.name !== '') return this.#related(node, r, () => true);
      // Mirror pods; NodeRestriction admission limits them to this node.
      if (r.verb === 'create' || r.verb === 'delete') return ALLOW;
    }
    if (r.subresource === 'status' && (r.verb === 'update' || r.verb === 'patch')) return ALLOW;
    if (r.subresource === 'eviction' && r.verb === 'create') return ALLOW;
    return NO_OPINION;
  }

  /** Allowed when some pod bound to the node, in the request's namespace, is or names the object. */
  #related(node: string, r: RequestInfo, ref: Reference): AuthorizationResult {
    if (r.name === '') return noOpinion('No Object name found');
    for (const pod of this.#pods.podsOn(node)) {
      if ((pod.metadata?.namespace ?? '') !== r.namespace) continue;
      if (r.resource === 'pods' ? pod.metadata?.name === r.name : ref(podReferences(pod), r.name)) return ALLOW;
    }
    return noRelationship(node);
  }
}

/** The node's own Node object: read by name; create, update and patch (NodeRestriction admission narrows them). */
function nodeObject(node: string, r: RequestInfo): AuthorizationResult {
  if (r.subresource === '') {
    if (r.verb === 'create' || r.verb === 'update' || r.verb === 'patch') return ALLOW;
    if (r.verb === 'get' || r.verb === 'list' || r.verb === 'watch') {
      if (r.name === node) return ALLOW;
      if (r.name === '') return noOpinion(`node '${node}' cannot read all nodes, only its own Node object`);
      return noOpinion(`node '${node}' cannot read '${r.name}', only its own Node object`);
    }
  }
  if (r.subresource === 'status' && (r.verb === 'update' || r.verb === 'patch')) return ALLOW;
  return NO_OPINION;
}
