/**
 * The cluster-wide roles and bindings of Kubernetes 1.34's bootstrap policy (upstream's
 * bootstrappolicy/policy.go, as its golden file testdata/cluster-roles.yaml and
 * cluster-role-bindings.yaml show it): roles in name order, rules in upstream's order, one a line, so
 * a compacted golden file diffs line for line against this one.
 *
 * Upstream builds some of it only when a feature gate is on; this is the policy with 1.34's default
 * gates. Left out, as upstream leaves them out by default: ClusterTrustBundle (the
 * system:cluster-trust-bundle-discovery role and binding, the kubelet's reads), PodCertificateRequest
 * (the kubelet's), DRAExtendedResource and DRADeviceTaints (the scheduler's), and ComponentFlagz and
 * ComponentStatusz (/flagz and /statusz in system:monitoring).
 *
 * admin, edit and view have no rules of their own: the ClusterRole aggregation controller fills them
 * from the roles their selectors pick (system:aggregate-to-*, and edit and view themselves).
 */
import { aggregateTo, type BootstrapBinding, type BootstrapClusterRole, clusterBinding, group, sa, user } from './builders.ts';

export const CLUSTER_ROLES: readonly BootstrapClusterRole[] = [
  { name: 'admin', aggregateFrom: ['rbac.authorization.k8s.io/aggregate-to-admin'], rules: [] },
  {
    name: 'cluster-admin',
    rules: [
      { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
      { nonResourceURLs: ['*'], verbs: ['*'] },
    ],
  },
  { name: 'edit', labels: aggregateTo('admin'), aggregateFrom: ['rbac.authorization.k8s.io/aggregate-to-edit'], rules: [] },
  {
    name: 'system:aggregate-to-admin',
    labels: aggregateTo('admin'),
    rules: [
      { apiGroups: ['authorization.k8s.io'], resources: ['localsubjectaccessreviews'], verbs: ['create'] },
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['rolebindings', 'roles'], verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] },
    ],
  },
  {
    name: 'system:aggregate-to-edit',
    labels: aggregateTo('edit'),
    rules: [
      { apiGroups: [''], resources: ['pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'secrets', 'services/proxy'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['impersonate'] },
      { apiGroups: [''], resources: ['pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy'], verbs: ['create', 'delete', 'deletecollection', 'patch', 'update'] },
      { apiGroups: [''], resources: ['pods/eviction'], verbs: ['create'] },
      { apiGroups: [''], resources: ['configmaps', 'events', 'persistentvolumeclaims', 'replicationcontrollers', 'replicationcontrollers/scale', 'secrets', 'serviceaccounts', 'services', 'services/proxy'], verbs: ['create', 'delete', 'deletecollection', 'patch', 'update'] },
      { apiGroups: [''], resources: ['serviceaccounts/token'], verbs: ['create'] },
      { apiGroups: ['apps'], resources: ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'replicasets', 'replicasets/scale', 'statefulsets', 'statefulsets/scale'], verbs: ['create', 'delete', 'deletecollection', 'patch', 'update'] },
      { apiGroups: ['autoscaling'], resources: ['horizontalpodautoscalers'], verbs: ['create', 'delete', 'deletecollection', 'patch', 'update'] },
      { apiGroups: ['batch'], resources: ['cronjobs', 'jobs'], verbs: ['create', 'delete', 'deletecollection', 'patch', 'update'] },
      { apiGroups: ['extensions'], resources: ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'ingresses', 'networkpolicies', 'replicasets', 'replicasets/scale', 'replicationcontrollers/scale'], verbs: ['create', 'delete', 'deletecollection', 'patch', 'update'] },
      { apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: ['create', 'delete', 'deletecollection', 'patch', 'update'] },
      { apiGroups: ['networking.k8s.io'], resources: ['ingresses', 'networkpolicies'], verbs: ['create', 'delete', 'deletecollection', 'patch', 'update'] },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] },
      { apiGroups: ['resource.k8s.io'], resources: ['resourceclaims', 'resourceclaimtemplates'], verbs: ['create', 'delete', 'deletecollection', 'patch', 'update'] },
    ],
  },
  {
    name: 'system:aggregate-to-view',
    labels: aggregateTo('view'),
    rules: [
      { apiGroups: [''], resources: ['configmaps', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['bindings', 'events', 'limitranges', 'namespaces/status', 'pods/log', 'pods/status', 'replicationcontrollers/status', 'resourcequotas', 'resourcequotas/status'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['apps'], resources: ['controllerrevisions', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'statefulsets', 'statefulsets/scale', 'statefulsets/status'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['autoscaling'], resources: ['horizontalpodautoscalers', 'horizontalpodautoscalers/status'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['batch'], resources: ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['extensions'], resources: ['daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'ingresses', 'ingresses/status', 'networkpolicies', 'replicasets', 'replicasets/scale', 'replicasets/status', 'replicationcontrollers/scale'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['policy'], resources: ['poddisruptionbudgets', 'poddisruptionbudgets/status'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['networking.k8s.io'], resources: ['ingresses', 'ingresses/status', 'networkpolicies'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['resource.k8s.io'], resources: ['resourceclaims', 'resourceclaims/status', 'resourceclaimtemplates'], verbs: ['get', 'list', 'watch'] },
    ],
  },
  {
    name: 'system:auth-delegator',
    rules: [
      { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
      { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
    ],
  },
  {
    name: 'system:basic-user',
    rules: [
      { apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'], verbs: ['create'] },
      { apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], verbs: ['create'] },
    ],
  },
  {
    name: 'system:certificates.k8s.io:certificatesigningrequests:nodeclient',
    rules: [
      { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests/nodeclient'], verbs: ['create'] },
    ],
  },
  {
    name: 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient',
    rules: [
      { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests/selfnodeclient'], verbs: ['create'] },
    ],
  },
  {
    name: 'system:certificates.k8s.io:kube-apiserver-client-approver',
    rules: [
      { apiGroups: ['certificates.k8s.io'], resourceNames: ['kubernetes.io/kube-apiserver-client'], resources: ['signers'], verbs: ['approve'] },
    ],
  },
  {
    name: 'system:certificates.k8s.io:kube-apiserver-client-kubelet-approver',
    rules: [
      { apiGroups: ['certificates.k8s.io'], resourceNames: ['kubernetes.io/kube-apiserver-client-kubelet'], resources: ['signers'], verbs: ['approve'] },
    ],
  },
  {
    name: 'system:certificates.k8s.io:kubelet-serving-approver',
    rules: [
      { apiGroups: ['certificates.k8s.io'], resourceNames: ['kubernetes.io/kubelet-serving'], resources: ['signers'], verbs: ['approve'] },
    ],
  },
  {
    name: 'system:certificates.k8s.io:legacy-unknown-approver',
    rules: [
      { apiGroups: ['certificates.k8s.io'], resourceNames: ['kubernetes.io/legacy-unknown'], resources: ['signers'], verbs: ['approve'] },
    ],
  },
  {
    name: 'system:discovery',
    rules: [
      { nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'], verbs: ['get'] },
    ],
  },
  {
    name: 'system:heapster',
    rules: [
      { apiGroups: [''], resources: ['events', 'namespaces', 'nodes', 'pods'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['extensions'], resources: ['deployments'], verbs: ['get', 'list', 'watch'] },
    ],
  },
  {
    name: 'system:kube-aggregator',
    rules: [
      { apiGroups: [''], resources: ['endpoints', 'services'], verbs: ['get', 'list', 'watch'] },
    ],
  },
  {
    name: 'system:kube-controller-manager',
    rules: [
      { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
      { apiGroups: ['coordination.k8s.io'], resourceNames: ['kube-controller-manager'], resources: ['leases'], verbs: ['get', 'update'] },
      { apiGroups: [''], resources: ['secrets', 'serviceaccounts'], verbs: ['create'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['delete'] },
      { apiGroups: [''], resources: ['configmaps', 'namespaces', 'secrets', 'serviceaccounts'], verbs: ['get'] },
      { apiGroups: [''], resources: ['secrets', 'serviceaccounts'], verbs: ['update'] },
      { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
      { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
      { apiGroups: ['*'], resources: ['*'], verbs: ['list', 'watch'] },
      { apiGroups: [''], resources: ['serviceaccounts/token'], verbs: ['create'] },
    ],
  },
  {
    name: 'system:kube-dns',
    rules: [
      { apiGroups: [''], resources: ['endpoints', 'services'], verbs: ['list', 'watch'] },
    ],
  },
  {
    name: 'system:kube-scheduler',
    rules: [
      { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
      { apiGroups: ['coordination.k8s.io'], resourceNames: ['kube-scheduler'], resources: ['leases'], verbs: ['get', 'list', 'update', 'watch'] },
      { apiGroups: ['coordination.k8s.io'], resources: ['leasecandidates'], verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] },
      { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['delete', 'get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['bindings', 'pods/binding'], verbs: ['create'] },
      { apiGroups: [''], resources: ['pods/status'], verbs: ['patch', 'update'] },
      { apiGroups: [''], resources: ['replicationcontrollers', 'services'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['apps', 'extensions'], resources: ['replicasets'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['apps'], resources: ['statefulsets'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['persistentvolumeclaims', 'persistentvolumes'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
      { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
      { apiGroups: ['storage.k8s.io'], resources: ['csinodes'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['storage.k8s.io'], resources: ['volumeattachments'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['storage.k8s.io'], resources: ['csidrivers'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['storage.k8s.io'], resources: ['csistoragecapacities'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['resource.k8s.io'], resources: ['deviceclasses'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['resource.k8s.io'], resources: ['resourceclaims'], verbs: ['get', 'list', 'patch', 'update', 'watch'] },
      { apiGroups: ['resource.k8s.io'], resources: ['resourceclaims/status'], verbs: ['get', 'list', 'patch', 'update', 'watch'] },
      { apiGroups: [''], resources: ['pods/finalizers'], verbs: ['update'] },
      { apiGroups: ['resource.k8s.io'], resources: ['resourceslices'], verbs: ['get', 'list', 'watch'] },
    ],
  },
  {
    name: 'system:kubelet-api-admin',
    rules: [
      { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['nodes'], verbs: ['proxy'] },
      { apiGroups: [''], resources: ['nodes/log', 'nodes/metrics', 'nodes/proxy', 'nodes/stats'], verbs: ['*'] },
      { apiGroups: [''], resources: ['nodes/configz', 'nodes/healthz', 'nodes/pods'], verbs: ['*'] },
    ],
  },
  {
    name: 'system:monitoring',
    rules: [
      { nonResourceURLs: ['/healthz', '/healthz/*', '/livez', '/livez/*', '/metrics', '/metrics/slis', '/readyz', '/readyz/*'], verbs: ['get'] },
      { apiGroups: [''], resources: ['nodes/metrics'], verbs: ['get'] },
    ],
  },
  {
    name: 'system:node',
    rules: [
      { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
      { apiGroups: ['authorization.k8s.io'], resources: ['localsubjectaccessreviews', 'subjectaccessreviews'], verbs: ['create'] },
      { apiGroups: [''], resources: ['services'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['nodes'], verbs: ['create', 'get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['nodes/status'], verbs: ['patch', 'update'] },
      { apiGroups: [''], resources: ['nodes'], verbs: ['patch', 'update'] },
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch', 'update'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['create', 'delete'] },
      { apiGroups: [''], resources: ['pods/status'], verbs: ['patch', 'update'] },
      { apiGroups: [''], resources: ['pods/eviction'], verbs: ['create'] },
      { apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['persistentvolumeclaims', 'persistentvolumes'], verbs: ['get'] },
      { apiGroups: [''], resources: ['endpoints'], verbs: ['get'] },
      { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests'], verbs: ['create', 'get', 'list', 'watch'] },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create', 'delete', 'get', 'patch', 'update'] },
      { apiGroups: ['storage.k8s.io'], resources: ['volumeattachments'], verbs: ['get'] },
      { apiGroups: [''], resources: ['serviceaccounts/token'], verbs: ['create'] },
      { apiGroups: [''], resources: ['persistentvolumeclaims/status'], verbs: ['get', 'patch', 'update'] },
      { apiGroups: ['storage.k8s.io'], resources: ['csidrivers'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['storage.k8s.io'], resources: ['csinodes'], verbs: ['create', 'delete', 'get', 'patch', 'update'] },
      { apiGroups: ['node.k8s.io'], resources: ['runtimeclasses'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['resource.k8s.io'], resources: ['resourceclaims'], verbs: ['get'] },
      { apiGroups: ['resource.k8s.io'], resources: ['resourceslices'], verbs: ['deletecollection'] },
      { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['get'] },
    ],
  },
  {
    name: 'system:node-bootstrapper',
    rules: [
      { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests'], verbs: ['create', 'get', 'list', 'watch'] },
    ],
  },
  {
    name: 'system:node-problem-detector',
    rules: [
      { apiGroups: [''], resources: ['nodes'], verbs: ['get'] },
      { apiGroups: [''], resources: ['nodes/status'], verbs: ['patch'] },
      { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
    ],
  },
  {
    name: 'system:node-proxier',
    rules: [
      { apiGroups: [''], resources: ['endpoints', 'services'], verbs: ['list', 'watch'] },
      { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
      { apiGroups: ['networking.k8s.io'], resources: ['servicecidrs'], verbs: ['list', 'watch'] },
      { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'watch'] },
    ],
  },
  {
    name: 'system:persistent-volume-provisioner',
    rules: [
      { apiGroups: [''], resources: ['persistentvolumes'], verbs: ['create', 'delete', 'get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: ['get', 'list', 'update', 'watch'] },
      { apiGroups: ['storage.k8s.io'], resources: ['storageclasses'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['events'], verbs: ['watch'] },
      { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
    ],
  },
  {
    name: 'system:public-info-viewer',
    rules: [
      { nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'], verbs: ['get'] },
    ],
  },
  {
    name: 'system:service-account-issuer-discovery',
    rules: [
      { nonResourceURLs: ['/.well-known/openid-configuration', '/.well-known/openid-configuration/', '/openid/v1/jwks', '/openid/v1/jwks/'], verbs: ['get'] },
    ],
  },
  {
    name: 'system:volume-scheduler',
    rules: [
      { apiGroups: [''], resources: ['persistentvolumes'], verbs: ['get', 'list', 'patch', 'update', 'watch'] },
      { apiGroups: ['storage.k8s.io'], resources: ['storageclasses'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: ['get', 'list', 'patch', 'update', 'watch'] },
    ],
  },
  { name: 'view', labels: aggregateTo('edit'), aggregateFrom: ['rbac.authorization.k8s.io/aggregate-to-view'], rules: [] },
];

/** Every one binds the ClusterRole of its own name. system:node keeps no subjects: the Node authorizer grants kubelets. */
export const CLUSTER_ROLE_BINDINGS: readonly BootstrapBinding[] = [
  clusterBinding('cluster-admin', [group('system:masters')]),
  clusterBinding('system:basic-user', [group('system:authenticated')]),
  clusterBinding('system:discovery', [group('system:authenticated')]),
  clusterBinding('system:kube-controller-manager', [user('system:kube-controller-manager')]),
  clusterBinding('system:kube-dns', [sa('kube-system', 'kube-dns')]),
  clusterBinding('system:kube-scheduler', [user('system:kube-scheduler')]),
  clusterBinding('system:monitoring', [group('system:monitoring')]),
  clusterBinding('system:node', []),
  clusterBinding('system:node-proxier', [user('system:kube-proxy')]),
  clusterBinding('system:public-info-viewer', [group('system:authenticated'), group('system:unauthenticated')]),
  clusterBinding('system:service-account-issuer-discovery', [group('system:serviceaccounts')]),
  clusterBinding('system:volume-scheduler', [user('system:kube-scheduler')]),
];
