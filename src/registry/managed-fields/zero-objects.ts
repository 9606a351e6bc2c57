import type { JsonObject } from './object-meta.ts';

/**
 * What Go's encoding/json makes of a zero value of each kind's type, by schema message: the object
 * kube-apiserver compares a create against (its creater's New()). Value structs are there even when
 * empty, lists and pointers without omitempty are null, scalars without omitempty are their zero;
 * apiVersion and kind are added by the caller. Taken from the struct tags of k8s.io/api and
 * k8s.io/kube-aggregator v0.34.9 (ObjectMeta's creationTimestamp is omitzero there, so metadata is
 * empty). A kind missing here is compared against an object with nothing but its type, which is
 * what upstream does for custom resources.
 */
export const ZERO_OBJECTS: Readonly<Record<string, JsonObject>> = {
  'k8s.io.api.core.v1.Namespace': { metadata: {}, spec: {}, status: {} },
  'k8s.io.api.core.v1.ConfigMap': { metadata: {} },
  'k8s.io.api.core.v1.Secret': { metadata: {} },
  'k8s.io.api.core.v1.ServiceAccount': { metadata: {} },
  'k8s.io.api.core.v1.Event': { metadata: {}, involvedObject: {}, source: {}, firstTimestamp: null, lastTimestamp: null, eventTime: null, reportingComponent: '', reportingInstance: '' },
  'k8s.io.api.events.v1.Event': { metadata: {}, eventTime: null, regarding: {}, deprecatedSource: {}, deprecatedFirstTimestamp: null, deprecatedLastTimestamp: null },
  'k8s.io.api.coordination.v1.Lease': { metadata: {}, spec: {} },
  'k8s.io.api.storage.v1.CSIDriver': { metadata: {}, spec: {} },
  'k8s.io.api.storage.v1.CSINode': { metadata: {}, spec: { drivers: null } },
  'k8s.io.api.storage.v1.CSIStorageCapacity': { metadata: {}, storageClassName: '' },
  'k8s.io.api.networking.v1.IPAddress': { metadata: {}, spec: {} },
  'k8s.io.api.coordination.v1beta1.LeaseCandidate': { metadata: {}, spec: { leaseName: '', binaryVersion: '' } },
  'k8s.io.api.rbac.v1.Role': { metadata: {}, rules: null },
  'k8s.io.api.rbac.v1.RoleBinding': { metadata: {}, roleRef: { apiGroup: '', kind: '', name: '' } },
  'k8s.io.api.rbac.v1.ClusterRole': { metadata: {}, rules: null },
  'k8s.io.api.rbac.v1.ClusterRoleBinding': { metadata: {}, roleRef: { apiGroup: '', kind: '', name: '' } },
  'k8s.io.api.networking.v1.NetworkPolicy': { metadata: {}, spec: { podSelector: {} } },
  'k8s.io.api.networking.v1.ServiceCIDR': { metadata: {}, spec: {}, status: {} },
  'k8s.io.api.policy.v1.PodDisruptionBudget': { metadata: {}, spec: {}, status: { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 } },
  'k8s.io.api.node.v1.RuntimeClass': { metadata: {}, handler: '' },
  'k8s.io.api.core.v1.LimitRange': { metadata: {}, spec: { limits: null } },
  'k8s.io.api.core.v1.ResourceQuota': { metadata: {}, spec: {}, status: {} },
  'k8s.io.kube_aggregator.pkg.apis.apiregistration.v1.APIService': { metadata: {}, spec: { groupPriorityMinimum: 0, versionPriority: 0 }, status: {} },
  'k8s.io.api.storagemigration.v1alpha1.StorageVersionMigration': { metadata: {}, spec: { resource: {} }, status: {} },
  'k8s.io.api.flowcontrol.v1.FlowSchema': { metadata: {}, spec: { priorityLevelConfiguration: { name: '' }, matchingPrecedence: 0 }, status: {} },
  'k8s.io.api.flowcontrol.v1.PriorityLevelConfiguration': { metadata: {}, spec: { type: '' }, status: {} },
  'k8s.io.api.admissionregistration.v1.ValidatingAdmissionPolicy': { metadata: {}, spec: {}, status: {} },
  'k8s.io.api.admissionregistration.v1.ValidatingAdmissionPolicyBinding': { metadata: {}, spec: {} },
  'k8s.io.api.core.v1.PersistentVolume': { metadata: {}, spec: {}, status: {} },
  'k8s.io.api.core.v1.PersistentVolumeClaim': { metadata: {}, spec: { resources: {} }, status: {} },
  'k8s.io.api.storage.v1.VolumeAttachment': { metadata: {}, spec: { attacher: '', source: {}, nodeName: '' }, status: { attached: false } },
  'k8s.io.api.core.v1.Node': { metadata: {}, spec: {}, status: { daemonEndpoints: { kubeletEndpoint: { Port: 0 } }, nodeInfo: { machineID: '', systemUUID: '', bootID: '', kernelVersion: '', osImage: '', containerRuntimeVersion: '', kubeletVersion: '', kubeProxyVersion: '', operatingSystem: '', architecture: '' } } },
  'k8s.io.api.core.v1.Pod': { metadata: {}, spec: { containers: null }, status: {} },
  'k8s.io.api.authentication.v1.SelfSubjectReview': { metadata: {}, status: { userInfo: {} } },
  'k8s.io.api.authentication.v1.TokenReview': { metadata: {}, spec: {}, status: { user: {} } },
  'k8s.io.api.authorization.v1.SubjectAccessReview': { metadata: {}, spec: {}, status: { allowed: false } },
  'k8s.io.api.authorization.v1.LocalSubjectAccessReview': { metadata: {}, spec: {}, status: { allowed: false } },
  'k8s.io.api.authorization.v1.SelfSubjectAccessReview': { metadata: {}, spec: {}, status: { allowed: false } },
  'k8s.io.api.authorization.v1.SelfSubjectRulesReview': { metadata: {}, spec: {}, status: { resourceRules: null, nonResourceRules: null, incomplete: false } },
  'k8s.io.api.apps.v1.Deployment': { metadata: {}, spec: { selector: null, template: { metadata: {}, spec: { containers: null } }, strategy: {} }, status: {} },
  'k8s.io.api.apps.v1.ReplicaSet': { metadata: {}, spec: { selector: null, template: { metadata: {}, spec: { containers: null } } }, status: { replicas: 0 } },
  'k8s.io.api.apps.v1.StatefulSet': { metadata: {}, spec: { selector: null, template: { metadata: {}, spec: { containers: null } }, serviceName: '', updateStrategy: {} }, status: { replicas: 0, availableReplicas: 0 } },
  'k8s.io.api.apps.v1.DaemonSet': { metadata: {}, spec: { selector: null, template: { metadata: {}, spec: { containers: null } }, updateStrategy: {} }, status: { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 } },
};
