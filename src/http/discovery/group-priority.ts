/**
 * The order groups appear in `/apis` and aggregated discovery. Clients that resolve a bare
 * resource name (`kubectl get events`) take the first group that serves it, so built-in groups
 * keep the real server's relative order; any other group (custom resources) comes after them,
 * ordered by name.
 */
const BUILT_IN_GROUP_PRIORITY: Readonly<Record<string, number>> = {
  'apiregistration.k8s.io': 18100,
  apps: 17800,
  'events.k8s.io': 17750,
  'authentication.k8s.io': 17700,
  'authorization.k8s.io': 17600,
  autoscaling: 17500,
  batch: 17400,
  'certificates.k8s.io': 17300,
  'networking.k8s.io': 17200,
  policy: 17100,
  'rbac.authorization.k8s.io': 17000,
  'storage.k8s.io': 16800,
  'admissionregistration.k8s.io': 16700,
  'apiextensions.k8s.io': 16700,
  'scheduling.k8s.io': 16600,
  'coordination.k8s.io': 16500,
  'node.k8s.io': 16300,
  'discovery.k8s.io': 16200,
  'flowcontrol.apiserver.k8s.io': 16100,
  'internal.apiserver.k8s.io': 16000,
  'resource.k8s.io': 15900,
  'storagemigration.k8s.io': 15800,
};

/** Priority given to groups not in the built-in table (what custom resource groups get upstream). */
export const DEFAULT_GROUP_PRIORITY = 1000;

export function groupPriority(group: string): number {
  return BUILT_IN_GROUP_PRIORITY[group] ?? DEFAULT_GROUP_PRIORITY;
}

/** Sort comparator: higher priority first, then by name. */
export function compareGroups(a: string, b: string): number {
  const d = groupPriority(b) - groupPriority(a);
  if (d !== 0) return d;
  return a < b ? -1 : a > b ? 1 : 0;
}
