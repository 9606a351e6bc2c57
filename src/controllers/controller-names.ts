/**
 * `--controllers`, read the way kube-controller-manager reads it: `*` turns on every controller that
 * is on by default, `name` turns one on, `-name` turns one off (the first mention of a name wins, as
 * upstream checks the name before the star). Names are the canonical `…-controller` ones or their
 * short aliases. A name upstream does not know at all is an error at start; one upstream knows but
 * this server does not run is accepted and ignored.
 */

/** The controllers this server runs, by canonical name. */
export const NAMESPACE = 'namespace-controller';
export const BOOTSTRAP_SIGNER = 'bootstrap-signer-controller';
export const TOKEN_CLEANER = 'token-cleaner-controller';
export const CLUSTER_ROLE_AGGREGATION = 'clusterrole-aggregation-controller';
export const SERVICE_ACCOUNT = 'serviceaccount-controller';
export const RESOURCE_QUOTA = 'resourcequota-controller';
export const GARBAGE_COLLECTOR = 'garbage-collector-controller';

/** Upstream's short (pre-1.28) names for the canonical ones. */
const ALIASES: Readonly<Record<string, string>> = {
  namespace: NAMESPACE,
  bootstrapsigner: BOOTSTRAP_SIGNER,
  tokencleaner: TOKEN_CLEANER,
  'clusterrole-aggregation': CLUSTER_ROLE_AGGREGATION,
  attachdetach: 'persistentvolume-attach-detach-controller',
  cloudnodelifecycle: 'cloud-node-lifecycle-controller',
  clusterroleaggregation: CLUSTER_ROLE_AGGREGATION,
  cronjob: 'cronjob-controller',
  csrapproving: 'certificatesigningrequest-approving-controller',
  csrcleaner: 'certificatesigningrequest-cleaner-controller',
  csrsigning: 'certificatesigningrequest-signing-controller',
  daemonset: 'daemonset-controller',
  deployment: 'deployment-controller',
  disruption: 'disruption-controller',
  endpoint: 'endpoints-controller',
  endpointslice: 'endpointslice-controller',
  endpointslicemirroring: 'endpointslice-mirroring-controller',
  ephemeralvolume: 'ephemeral-volume-controller',
  'ephemeral-volume': 'ephemeral-volume-controller',
  garbagecollector: GARBAGE_COLLECTOR,
  horizontalpodautoscaling: 'horizontal-pod-autoscaler-controller',
  job: 'job-controller',
  'legacy-service-account-token-cleaner': 'legacy-serviceaccount-token-cleaner-controller',
  nodeipam: 'node-ipam-controller',
  nodelifecycle: 'node-lifecycle-controller',
  'persistentvolume-binder': 'persistentvolume-binder-controller',
  'persistentvolume-expander': 'persistentvolume-expander-controller',
  podgc: 'pod-garbage-collector-controller',
  'pv-protection': 'persistentvolume-protection-controller',
  'pvc-protection': 'persistentvolumeclaim-protection-controller',
  replicaset: 'replicaset-controller',
  replicationcontroller: 'replicationcontroller-controller',
  resourceclaim: 'resourceclaim-controller',
  resourcequota: RESOURCE_QUOTA,
  root_ca_cert_publisher: 'root-ca-certificate-publisher-controller',
  'root-ca-cert-publisher': 'root-ca-certificate-publisher-controller',
  route: 'node-route-controller',
  service: 'service-lb-controller',
  serviceaccount: SERVICE_ACCOUNT,
  serviceaccount_token: 'serviceaccount-token-controller',
  'serviceaccount-token': 'serviceaccount-token-controller',
  statefulset: 'statefulset-controller',
  'storage-version-gc': 'storageversion-garbage-collector-controller',
  'storageversion-garbage-collector': 'storageversion-garbage-collector-controller',
  'service-cidr-controller': 'service-cidr-controller',
  'csrapproving-controller': 'certificatesigningrequest-approving-controller',
  ttl: 'ttl-controller',
  'ttl-after-finished': 'ttl-after-finished-controller',
  'validatingadmissionpolicy-status': 'validatingadmissionpolicy-status-controller',
};

/** Every canonical name upstream (1.34) knows; only those named above are run here. */
const UPSTREAM_CANONICAL: ReadonlySet<string> = new Set([
  ...new Set(Object.values(ALIASES)),
  'service-account-token-controller',
  'taint-eviction-controller',
  'selinux-warning-controller',
  'volumeattributesclass-protection-controller',
  'kube-apiserver-serving-clustertrustbundle-publisher-controller',
  'storage-version-migrator-controller',
  'device-taint-eviction-controller',
  'podcertificaterequest-cleaner-controller',
  'cloud-node-controller',
  'node-route-controller',
  'service-lb-controller',
]);

/** Upstream turns these on only when named. */
const OFF_BY_DEFAULT: ReadonlySet<string> = new Set([BOOTSTRAP_SIGNER, TOKEN_CLEANER, 'selinux-warning-controller', 'storage-version-migrator-controller', 'kube-apiserver-serving-clustertrustbundle-publisher-controller', 'device-taint-eviction-controller']);

function canonical(name: string): string {
  return ALIASES[name] ?? name;
}

/** Throws upstream's message for every unknown name (the `-` stripped), or returns a decider. */
export function parseControllers(selectors: readonly string[]): (name: string) => boolean {
  const errors: string[] = [];
  for (const selector of selectors) {
    if (selector === '*') continue;
    const bare = selector.replace(/^-/, '');
    if (!UPSTREAM_CANONICAL.has(canonical(bare))) errors.push(`${JSON.stringify(bare)} is not in the list of known controllers`);
  }
  if (errors.length > 0) throw new Error(`validation failed for '--controllers': [${errors.join(', ')}]`);
  return (name: string) => enabled(selectors, canonical(name));
}

function enabled(selectors: readonly string[], name: string): boolean {
  let star = false;
  for (const selector of selectors) {
    if (selector === '*') star = true;
    else if (canonical(selector) === name) return true;
    else if (selector.startsWith('-') && canonical(selector.slice(1)) === name) return false;
  }
  return star && !OFF_BY_DEFAULT.has(name);
}
