/**
 * The node rules (upstream's bootstrappolicy.NodeRules, 1.34 defaults) the Node authorizer grants
 * every node for requests it does not subdivide itself. Rules for the kinds it subdivides (secrets,
 * configmaps, PVCs and their status, PVs, service accounts and their tokens, leases, CSINodes,
 * volume attachments, resource claims and slices, nodes, pods) are left out: the authorizer decides
 * those by the graph or by name and never reaches the rules for them.
 */
import type { PolicyRule } from '../../kinds/rbac-rules.ts';

const rule = (verbs: string[], apiGroups: string[], resources: string[]): PolicyRule => ({ verbs, apiGroups, resources });

export const NODE_RULES: readonly PolicyRule[] = Object.freeze([
  // Checking access of the kubelet's own API callers (both are non-mutating creates).
  rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
  rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews', 'localsubjectaccessreviews']),
  // Service environment variables for pods.
  rule(['get', 'list', 'watch'], [''], ['services']),
  rule(['create', 'update', 'patch'], [''], ['events']),
  // Glusterfs volumes.
  rule(['get'], [''], ['endpoints']),
  // Client certificate rotation.
  rule(['create', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests']),
  rule(['get', 'watch', 'list'], ['storage.k8s.io'], ['csidrivers']),
  rule(['get', 'list', 'watch'], ['node.k8s.io'], ['runtimeclasses']),
]);
