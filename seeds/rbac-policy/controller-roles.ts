/**
 * The roles of the controllers kube-controller-manager runs, one service account each in kube-system
 * (upstream's bootstrappolicy/controller_policy.go, as testdata/controller-roles.yaml and
 * controller-role-bindings.yaml show it for Kubernetes 1.34): roles in name order, rules in upstream's
 * order, one a line.
 *
 * With 1.34's default feature gates: DynamicResourceAllocation, MultiCIDRServiceAllocator,
 * VolumeAttributesClass and SELinuxChangePolicy are on, so their controllers' roles are here; the
 * roles of device-taint-eviction-controller, podcertificaterequestcleaner,
 * kube-apiserver-serving-clustertrustbundle-publisher, storage-version-garbage-collector and
 * storage-version-migrator-controller (features off by default) are not.
 */
import type { PolicyRule } from '../../src/kinds/rbac-rules.ts';
import { type BootstrapBinding, type BootstrapClusterRole, clusterBinding, sa } from './builders.ts';

const PREFIX = 'system:controller:';

const controller = (name: string, rules: PolicyRule[]): BootstrapClusterRole => ({ name: PREFIX + name, rules });

export const CONTROLLER_ROLES: readonly BootstrapClusterRole[] = [
  controller('attachdetach-controller', [
    { apiGroups: [''], resources: ['persistentvolumeclaims', 'persistentvolumes'], verbs: ['list', 'watch'] },
    { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: [''], resources: ['nodes/status'], verbs: ['patch', 'update'] },
    { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
    { apiGroups: ['storage.k8s.io'], resources: ['volumeattachments'], verbs: ['create', 'delete', 'get', 'list', 'watch'] },
    { apiGroups: ['storage.k8s.io'], resources: ['csidrivers'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['storage.k8s.io'], resources: ['csinodes'], verbs: ['get', 'list', 'watch'] },
  ]),
  controller('certificate-controller', [
    { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests'], verbs: ['delete', 'get', 'list', 'watch'] },
    { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests/approval', 'certificatesigningrequests/status'], verbs: ['update'] },
    { apiGroups: ['certificates.k8s.io'], resourceNames: ['kubernetes.io/kube-apiserver-client-kubelet'], resources: ['signers'], verbs: ['approve'] },
    { apiGroups: ['certificates.k8s.io'], resourceNames: ['kubernetes.io/kube-apiserver-client', 'kubernetes.io/kube-apiserver-client-kubelet', 'kubernetes.io/kubelet-serving', 'kubernetes.io/legacy-unknown'], resources: ['signers'], verbs: ['sign'] },
    { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
  ]),
  controller('clusterrole-aggregation-controller', [
    { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['escalate', 'get', 'list', 'patch', 'update', 'watch'] },
  ]),
  controller('cronjob-controller', [
    { apiGroups: ['batch'], resources: ['cronjobs'], verbs: ['get', 'list', 'update', 'watch'] },
    { apiGroups: ['batch'], resources: ['jobs'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
    { apiGroups: ['batch'], resources: ['cronjobs/status'], verbs: ['update'] },
    { apiGroups: ['batch'], resources: ['cronjobs/finalizers'], verbs: ['update'] },
    { apiGroups: [''], resources: ['pods'], verbs: ['delete', 'list', 'watch'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
  ]),
  controller('daemon-set-controller', [
    { apiGroups: ['apps', 'extensions'], resources: ['daemonsets'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['apps', 'extensions'], resources: ['daemonsets/status'], verbs: ['update'] },
    { apiGroups: ['apps', 'extensions'], resources: ['daemonsets/finalizers'], verbs: ['update'] },
    { apiGroups: [''], resources: ['nodes'], verbs: ['list', 'watch'] },
    { apiGroups: [''], resources: ['pods'], verbs: ['create', 'delete', 'list', 'patch', 'watch'] },
    { apiGroups: [''], resources: ['pods/binding'], verbs: ['create'] },
    { apiGroups: ['apps'], resources: ['controllerrevisions'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
  ]),
  controller('deployment-controller', [
    { apiGroups: ['apps', 'extensions'], resources: ['deployments'], verbs: ['get', 'list', 'update', 'watch'] },
    { apiGroups: ['apps', 'extensions'], resources: ['deployments/status'], verbs: ['update'] },
    { apiGroups: ['apps', 'extensions'], resources: ['deployments/finalizers'], verbs: ['update'] },
    { apiGroups: ['apps', 'extensions'], resources: ['replicasets'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
    { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'update', 'watch'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
  ]),
  controller('disruption-controller', [
    { apiGroups: ['apps', 'extensions'], resources: ['deployments'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['apps', 'extensions'], resources: ['replicasets'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: [''], resources: ['replicationcontrollers'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['apps'], resources: ['statefulsets'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['policy'], resources: ['poddisruptionbudgets/status'], verbs: ['update'] },
    { apiGroups: [''], resources: ['pods/status'], verbs: ['patch', 'update'] },
    { apiGroups: ['*'], resources: ['*/scale'], verbs: ['get'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
  ]),
  controller('endpoint-controller', [
    { apiGroups: [''], resources: ['pods', 'services'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: [''], resources: ['endpoints'], verbs: ['create', 'delete', 'get', 'list', 'update', 'watch'] },
    { apiGroups: [''], resources: ['endpoints/restricted'], verbs: ['create'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
  ]),
  controller('endpointslice-controller', [
    { apiGroups: [''], resources: ['nodes', 'pods', 'services'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: [''], resources: ['services/finalizers'], verbs: ['update'] },
    { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['create', 'delete', 'get', 'list', 'update', 'watch'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
  ]),
  controller('endpointslicemirroring-controller', [
    { apiGroups: [''], resources: ['endpoints', 'services'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: [''], resources: ['services/finalizers'], verbs: ['update'] },
    { apiGroups: [''], resources: ['endpoints/finalizers'], verbs: ['update'] },
    { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['create', 'delete', 'get', 'list', 'update', 'watch'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
  ]),
  controller('ephemeral-volume-controller', [
    { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: [''], resources: ['pods/finalizers'], verbs: ['update'] },
    { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: ['create', 'get', 'list', 'watch'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
  ]),
  controller('expand-controller', [
    { apiGroups: [''], resources: ['persistentvolumes'], verbs: ['get', 'list', 'patch', 'update', 'watch'] },
    { apiGroups: [''], resources: ['persistentvolumeclaims/status'], verbs: ['patch', 'update'] },
    { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
    { apiGroups: [''], resources: ['services'], verbs: ['get'] },
  ]),
  controller('generic-garbage-collector', [
    { apiGroups: ['*'], resources: ['*'], verbs: ['delete', 'get', 'list', 'patch', 'update', 'watch'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
  ]),
  controller('horizontal-pod-autoscaler', [
    { apiGroups: ['autoscaling'], resources: ['horizontalpodautoscalers'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['autoscaling'], resources: ['horizontalpodautoscalers/status'], verbs: ['update'] },
    { apiGroups: ['*'], resources: ['*/scale'], verbs: ['get', 'update'] },
    { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch'] },
    { apiGroups: ['metrics.k8s.io'], resources: ['pods'], verbs: ['list', 'watch'] },
    { apiGroups: ['custom.metrics.k8s.io'], resources: ['*'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['external.metrics.k8s.io'], resources: ['*'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
  ]),
  controller('job-controller', [
    { apiGroups: ['batch'], resources: ['jobs'], verbs: ['get', 'list', 'patch', 'update', 'watch'] },
    { apiGroups: ['batch'], resources: ['jobs/status'], verbs: ['update'] },
    { apiGroups: ['batch'], resources: ['jobs/finalizers'], verbs: ['update'] },
    { apiGroups: [''], resources: ['pods'], verbs: ['create', 'delete', 'list', 'patch', 'watch'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
  ]),
  controller('legacy-service-account-token-cleaner', [
    { apiGroups: [''], resourceNames: ['kube-apiserver-legacy-service-account-token-tracking'], resources: ['configmaps'], verbs: ['get'] },
    { apiGroups: [''], resources: ['secrets'], verbs: ['delete', 'patch'] },
  ]),
  controller('namespace-controller', [
    { apiGroups: [''], resources: ['namespaces'], verbs: ['delete', 'get', 'list', 'watch'] },
    { apiGroups: [''], resources: ['namespaces/finalize', 'namespaces/status'], verbs: ['update'] },
    { apiGroups: ['*'], resources: ['*'], verbs: ['delete', 'deletecollection', 'get', 'list', 'watch'] },
  ]),
  controller('node-controller', [
    { apiGroups: [''], resources: ['nodes'], verbs: ['delete', 'get', 'list', 'patch', 'update', 'watch'] },
    { apiGroups: [''], resources: ['nodes/status'], verbs: ['patch', 'update'] },
    { apiGroups: [''], resources: ['pods/status'], verbs: ['patch', 'update'] },
    { apiGroups: [''], resources: ['pods'], verbs: ['delete', 'get', 'list', 'watch'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
  ]),
  controller('persistent-volume-binder', [
    { apiGroups: [''], resources: ['persistentvolumes'], verbs: ['create', 'delete', 'get', 'list', 'update', 'watch'] },
    { apiGroups: [''], resources: ['persistentvolumes/status'], verbs: ['update'] },
    { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: ['get', 'list', 'update', 'watch'] },
    { apiGroups: [''], resources: ['persistentvolumeclaims/status'], verbs: ['update'] },
    { apiGroups: [''], resources: ['pods'], verbs: ['create', 'delete', 'get', 'list', 'watch'] },
    { apiGroups: ['storage.k8s.io'], resources: ['storageclasses'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: [''], resources: ['nodes'], verbs: ['list', 'watch'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
    { apiGroups: [''], resources: ['events'], verbs: ['watch'] },
    { apiGroups: [''], resources: ['services'], verbs: ['get'] },
  ]),
  controller('pod-garbage-collector', [
    { apiGroups: [''], resources: ['pods'], verbs: ['delete', 'list', 'watch'] },
    { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: [''], resources: ['pods/status'], verbs: ['patch'] },
  ]),
  controller('pv-protection-controller', [
    { apiGroups: [''], resources: ['persistentvolumes'], verbs: ['get', 'list', 'update', 'watch'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
  ]),
  controller('pvc-protection-controller', [
    { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: ['get', 'list', 'update', 'watch'] },
    { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
  ]),
  controller('replicaset-controller', [
    { apiGroups: ['apps', 'extensions'], resources: ['replicasets'], verbs: ['get', 'list', 'update', 'watch'] },
    { apiGroups: ['apps', 'extensions'], resources: ['replicasets/status'], verbs: ['update'] },
    { apiGroups: ['apps', 'extensions'], resources: ['replicasets/finalizers'], verbs: ['update'] },
    { apiGroups: [''], resources: ['pods'], verbs: ['create', 'delete', 'list', 'patch', 'watch'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
  ]),
  controller('replication-controller', [
    { apiGroups: [''], resources: ['replicationcontrollers'], verbs: ['get', 'list', 'update', 'watch'] },
    { apiGroups: [''], resources: ['replicationcontrollers/status'], verbs: ['update'] },
    { apiGroups: [''], resources: ['replicationcontrollers/finalizers'], verbs: ['update'] },
    { apiGroups: [''], resources: ['pods'], verbs: ['create', 'delete', 'list', 'patch', 'watch'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
  ]),
  controller('resource-claim-controller', [
    { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: [''], resources: ['pods/finalizers'], verbs: ['update'] },
    { apiGroups: ['resource.k8s.io'], resources: ['resourceclaims'], verbs: ['create', 'delete', 'get', 'list', 'watch'] },
    { apiGroups: ['resource.k8s.io'], resources: ['resourceclaims', 'resourceclaims/status'], verbs: ['patch', 'update'] },
    { apiGroups: [''], resources: ['pods/status'], verbs: ['patch', 'update'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
  ]),
  controller('resourcequota-controller', [
    { apiGroups: ['*'], resources: ['*'], verbs: ['list', 'watch'] },
    { apiGroups: [''], resources: ['resourcequotas/status'], verbs: ['update'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
  ]),
  controller('root-ca-cert-publisher', [
    { apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'update'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
  ]),
  controller('route-controller', [
    { apiGroups: [''], resources: ['nodes'], verbs: ['list', 'watch'] },
    { apiGroups: [''], resources: ['nodes/status'], verbs: ['patch'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
  ]),
  controller('selinux-warning-controller', [
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
    { apiGroups: [''], resources: ['persistentvolumes'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['storage.k8s.io'], resources: ['csidrivers'], verbs: ['get', 'list', 'watch'] },
  ]),
  controller('service-account-controller', [
    { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['create'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
  ]),
  controller('service-cidrs-controller', [
    { apiGroups: ['networking.k8s.io'], resources: ['servicecidrs'], verbs: ['get', 'list', 'patch', 'update', 'watch'] },
    { apiGroups: ['networking.k8s.io'], resources: ['servicecidrs/finalizers'], verbs: ['patch', 'update'] },
    { apiGroups: ['networking.k8s.io'], resources: ['servicecidrs/status'], verbs: ['patch', 'update'] },
    { apiGroups: ['networking.k8s.io'], resources: ['ipaddresses'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
  ]),
  controller('service-controller', [
    { apiGroups: [''], resources: ['services'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: [''], resources: ['services/status'], verbs: ['patch', 'update'] },
    { apiGroups: [''], resources: ['nodes'], verbs: ['list', 'watch'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
  ]),
  controller('statefulset-controller', [
    { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch'] },
    { apiGroups: ['apps'], resources: ['statefulsets'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['apps'], resources: ['statefulsets/status'], verbs: ['update'] },
    { apiGroups: ['apps'], resources: ['statefulsets/finalizers'], verbs: ['update'] },
    { apiGroups: [''], resources: ['pods'], verbs: ['create', 'delete', 'get', 'patch', 'update'] },
    { apiGroups: ['apps'], resources: ['controllerrevisions'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
    { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: ['create', 'get', 'list', 'watch'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
    { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: ['delete', 'update'] },
    { apiGroups: [''], resources: ['pods/finalizers'], verbs: ['update'] },
  ]),
  controller('ttl-after-finished-controller', [
    { apiGroups: ['batch'], resources: ['jobs'], verbs: ['delete', 'get', 'list', 'watch'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
  ]),
  controller('ttl-controller', [
    { apiGroups: [''], resources: ['nodes'], verbs: ['list', 'patch', 'update', 'watch'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
  ]),
  controller('validatingadmissionpolicy-status-controller', [
    { apiGroups: ['admissionregistration.k8s.io'], resources: ['validatingadmissionpolicies'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['admissionregistration.k8s.io'], resources: ['validatingadmissionpolicies/status'], verbs: ['get', 'patch', 'update'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
  ]),
  controller('volumeattributesclass-protection-controller', [
    { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: [''], resources: ['persistentvolumes'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['storage.k8s.io'], resources: ['volumeattributesclasses'], verbs: ['get', 'list', 'update', 'watch'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
  ]),
];

/** system:controller:NAME is bound to the service account kube-system/NAME. */
export const CONTROLLER_ROLE_BINDINGS: readonly BootstrapBinding[] = CONTROLLER_ROLES.map((r) =>
  clusterBinding(r.name, [sa('kube-system', r.name.slice(PREFIX.length))]),
);
