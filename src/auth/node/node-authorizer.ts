/**
 * The Node authorizer (upstream's plugin/pkg/auth/authorizer/node): a kubelet, user
 * `system:node:<name>` in group `system:nodes`, may read the secrets, config maps, PVCs, PVs,
 * resource claims and service accounts that pods bound to its node need, as the node graph relates
 * them; it may touch its own Node, Lease and CSINode; and for what this authorizer does not subdivide
 * it has the static node rules. Everything it refuses is a noOpinion with upstream's reason, so a
 * later authorizer could still allow it. Writes it allows by kind (mirror pods, pod and node status,
 * lease and CSINode creates) are narrowed by NodeRestriction admission upstream.
 */
import type { RequestInfo } from '../../api/request-info.ts';
import { ruleAllows } from '../rbac/rule-matching.ts';
import type { Attributes, AuthorizationResult, Authorizer } from '../authz/authorizer.ts';
import type { UserInfo } from '../user.ts';
import type { SubjectRules } from '../authz/rules.ts';
import { fieldSelectorRequires } from './field-selector.ts';
import type { VertexType } from './node-graph.ts';
import { NODE_RULES } from './node-rules.ts';

const NODE_USER_PREFIX = 'system:node:';
const NODES_GROUP = 'system:nodes';
const NODE_LEASE_NAMESPACE = 'kube-node-lease';

/** What the authorizer asks of the graph. */
export interface NodeRelationships {
  hasPath(nodeName: string, type: VertexType, namespace: string, name: string): boolean;
}

/**
 * The node a user speaks for: undefined for users that are not nodes (wrong name or not in
 * system:nodes), '' for a node user whose name names no node (`system:node:`).
 */
export function nodeNameOf(user: UserInfo): string | undefined {
  if (!user.name.startsWith(NODE_USER_PREFIX) || !user.groups.includes(NODES_GROUP)) return undefined;
  return user.name.slice(NODE_USER_PREFIX.length);
}

const NO_OPINION: AuthorizationResult = Object.freeze({ decision: 'noOpinion' });
const ALLOW: AuthorizationResult = Object.freeze({ decision: 'allow' });
const noOpinion = (reason: string): AuthorizationResult => ({ decision: 'noOpinion', reason });
const EDIT_VERBS = new Set(['get', 'create', 'update', 'patch', 'delete']);
const READ_VERBS = new Set(['get', 'list', 'watch']);

export class NodeAuthorizer implements Authorizer {
  readonly name = 'Node';
  readonly #graph: NodeRelationships;

  constructor(graph: NodeRelationships) {
    this.#graph = graph;
  }

  /** A node's permissions are not enumerated (they follow the graph): incomplete for nodes, nothing for others. */
  rulesFor(user: UserInfo): SubjectRules {
    if (nodeNameOf(user) === undefined) return { resourceRules: [], nonResourceRules: [], incomplete: false };
    return { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'node authorizer does not support user rule resolution' };
  }

  authorize({ user, request: r }: Attributes): AuthorizationResult {
    const node = nodeNameOf(user);
    if (node === undefined) return NO_OPINION;
    if (node === '') return noOpinion(`unknown node for user ${JSON.stringify(user.name)}`);
    if (r.isResourceRequest) {
      switch (`${r.apiGroup}/${r.resource}`) {
        case '/secrets':
          return this.#readNamespaced(node, 'secret', r);
        case '/configmaps':
          return this.#readNamespaced(node, 'configmap', r);
        case '/persistentvolumeclaims':
          return r.subresource === 'status' ? this.#statusUpdate(node, 'pvc', r) : this.#get(node, 'pvc', r);
        case '/persistentvolumes':
          return this.#get(node, 'pv', r);
        case 'resource.k8s.io/resourceclaims':
          return this.#get(node, 'resourceclaim', r);
        case 'storage.k8s.io/volumeattachments':
          return this.#get(node, 'volumeattachment', r);
        case '/serviceaccounts':
          return this.#serviceAccount(node, r);
        case 'coordination.k8s.io/leases':
          return lease(node, r);
        case 'storage.k8s.io/csinodes':
          return csiNode(node, r);
        case 'resource.k8s.io/resourceslices':
          return this.#resourceSlice(node, r);
        case '/nodes':
          return nodeObject(node, r);
        case '/pods':
          return this.#pod(node, r);
      }
    }
    // Not subdivided: every node has the node rules.
    return NODE_RULES.some((rule) => ruleAllows(rule, r)) ? ALLOW : NO_OPINION;
  }

  /** Allowed when the graph relates the named object to the node. */
  #related(node: string, type: VertexType, r: RequestInfo): AuthorizationResult {
    if (r.name === '') return noOpinion('No Object name found');
    if (this.#graph.hasPath(node, type, r.namespace, r.name)) return ALLOW;
    return noOpinion(`no relationship found between node '${node}' and this object`);
  }

  /** get, or a list/watch of one object by name (a metadata.name field selector). */
  #readNamespaced(node: string, type: VertexType, r: RequestInfo): AuthorizationResult {
    if (!READ_VERBS.has(r.verb)) return noOpinion('can only read resources of this type');
    if (r.subresource !== '') return noOpinion('cannot read subresource');
    if (r.namespace === '') return noOpinion('can only read namespaced object of this type');
    return this.#related(node, type, r);
  }

  #get(node: string, type: VertexType, r: RequestInfo): AuthorizationResult {
    if (r.verb !== 'get') return noOpinion('can only get individual resources of this type');
    if (r.subresource !== '') return noOpinion('cannot get subresource');
    return this.#related(node, type, r);
  }

  #statusUpdate(node: string, type: VertexType, r: RequestInfo): AuthorizationResult {
    if (r.verb !== 'update' && r.verb !== 'patch') return noOpinion('can only get/update/patch this type');
    if (r.subresource !== 'status') return noOpinion('can only update status subresource');
    return this.#related(node, type, r);
  }

  /**
   * A service account a pod on the node runs as: get (the kubelet's credential providers, on by
   * default since 1.34), and TokenRequests. The request body (the pod the token is bound to) is
   * not visible here; NodeRestriction admission checks it upstream.
   */
  #serviceAccount(node: string, r: RequestInfo): AuthorizationResult {
    if (r.verb === 'get' && r.subresource === '') return this.#readNamespaced(node, 'serviceaccount', r);
    if (r.verb !== 'create' || r.name === '') return noOpinion('can only create tokens for individual service accounts');
    if (r.subresource !== 'token') return noOpinion('can only create token subresource of serviceaccount');
    if (this.#graph.hasPath(node, 'serviceaccount', r.namespace, r.name)) return ALLOW;
    return noOpinion(`no relationship found between node '${node}' and this object`);
  }

  #resourceSlice(node: string, r: RequestInfo): AuthorizationResult {
    if (r.subresource !== '') return noOpinion('cannot authorize ResourceSlice subresources');
    switch (r.verb) {
      case 'create':
        // The new slice's node is in the body; NodeRestriction admission checks it upstream.
        return ALLOW;
      case 'get':
      case 'update':
      case 'patch':
      case 'delete':
        return this.#related(node, 'resourceslice', r);
      case 'list':
      case 'watch':
      case 'deletecollection':
        if (fieldSelectorRequires(r.fieldSelector, 'spec.nodeName', node)) return ALLOW;
        return noOpinion('can only list/watch/deletecollection resourceslices with nodeName field selector');
      default:
        return noOpinion('only the following verbs are allowed for a ResourceSlice: get, watch, list, create, update, patch, delete, deletecollection');
    }
  }

  #pod(node: string, r: RequestInfo): AuthorizationResult {
    if (r.subresource === '') {
      switch (r.verb) {
        case 'get':
          return this.#get(node, 'pod', r);
        case 'list':
        case 'watch':
          if (fieldSelectorRequires(r.fieldSelector, 'spec.nodeName', node)) return ALLOW;
          if (r.name !== '') return this.#related(node, 'pod', r);
          return noOpinion('can only list/watch pods with spec.nodeName field selector');
        case 'create':
        case 'delete':
          // Mirror pods; NodeRestriction admission keeps them to this node.
          return ALLOW;
      }
    } else if (r.subresource === 'status') {
      if (r.verb === 'update' || r.verb === 'patch') return ALLOW;
    } else if (r.subresource === 'eviction') {
      if (r.verb === 'create') return ALLOW;
    }
    return NO_OPINION;
  }
}

/** Leases in kube-node-lease named after the node (a create's name is in its body: admission checks it). */
function lease(node: string, r: RequestInfo): AuthorizationResult {
  if (!EDIT_VERBS.has(r.verb)) return noOpinion('can only get, create, update, patch, or delete a node lease');
  if (r.namespace !== NODE_LEASE_NAMESPACE) return noOpinion(`can only access leases in the "${NODE_LEASE_NAMESPACE}" system namespace`);
  if (r.verb !== 'create' && r.name !== node) return noOpinion('can only access node lease with the same name as the requesting node');
  return ALLOW;
}

/** The node's own CSINode (a create's name is in its body: admission checks it). */
function csiNode(node: string, r: RequestInfo): AuthorizationResult {
  if (!EDIT_VERBS.has(r.verb)) return noOpinion('can only get, create, update, patch, or delete a CSINode');
  if (r.subresource !== '') return noOpinion('cannot authorize CSINode subresources');
  if (r.verb !== 'create' && r.name !== node) return noOpinion('can only access CSINode with the same name as the requesting node');
  return ALLOW;
}

/**
 * The node's own Node object, by name rather than by the graph, so a kubelet can look for its
 * Node before registering it; writes are allowed (NodeRestriction admission narrows them).
 */
function nodeObject(node: string, r: RequestInfo): AuthorizationResult {
  if (r.subresource === '') {
    if (r.verb === 'create' || r.verb === 'update' || r.verb === 'patch') return ALLOW;
    if (READ_VERBS.has(r.verb)) {
      if (r.name === node) return ALLOW;
      if (r.name === '') return noOpinion(`node '${node}' cannot read all nodes, only its own Node object`);
      return noOpinion(`node '${node}' cannot read '${r.name}', only its own Node object`);
    }
  } else if (r.subresource === 'status' && (r.verb === 'update' || r.verb === 'patch')) {
    return ALLOW;
  }
  return NO_OPINION;
}
