/**
 * The API groups and versions kube-apiserver 1.34 registers in its schemes (legacyscheme, the
 * apiextensions and the aggregator schemes), served or not: --runtime-config names are checked
 * against these, as upstream checks them against its schemes. A group missing here is an "unknown
 * api group"; a version missing from a known group "has not been registered". Versions kept only
 * for conversion (extensions/v1beta1, flowcontrol v1beta1–v1beta3, …) are registered although no
 * release since their removal serves them, so naming them is accepted and serves nothing.
 *
 * Facts from k8s.io/api v0.34.0 and the install packages kube-apiserver imports.
 */
export const REGISTERED_GROUP_VERSIONS: ReadonlyMap<string, readonly string[]> = new Map([
  ['', ['v1']],
  ['admission.k8s.io', ['v1', 'v1beta1']],
  ['admissionregistration.k8s.io', ['v1', 'v1beta1', 'v1alpha1']],
  ['apiextensions.k8s.io', ['v1', 'v1beta1']],
  ['apiregistration.k8s.io', ['v1', 'v1beta1']],
  ['apps', ['v1', 'v1beta2', 'v1beta1']],
  ['authentication.k8s.io', ['v1', 'v1beta1', 'v1alpha1']],
  ['authorization.k8s.io', ['v1', 'v1beta1']],
  ['autoscaling', ['v1', 'v2', 'v2beta2', 'v2beta1']],
  ['batch', ['v1', 'v1beta1']],
  ['certificates.k8s.io', ['v1', 'v1beta1', 'v1alpha1']],
  ['coordination.k8s.io', ['v1', 'v1beta1', 'v1alpha2']],
  ['discovery.k8s.io', ['v1', 'v1beta1']],
  ['events.k8s.io', ['v1', 'v1beta1']],
  ['extensions', ['v1beta1']],
  ['flowcontrol.apiserver.k8s.io', ['v1', 'v1beta3', 'v1beta2', 'v1beta1']],
  ['imagepolicy.k8s.io', ['v1alpha1']],
  ['internal.apiserver.k8s.io', ['v1alpha1']],
  ['networking.k8s.io', ['v1', 'v1beta1', 'v1alpha1']],
  ['node.k8s.io', ['v1', 'v1beta1', 'v1alpha1']],
  ['policy', ['v1', 'v1beta1']],
  ['rbac.authorization.k8s.io', ['v1', 'v1beta1', 'v1alpha1']],
  ['resource.k8s.io', ['v1', 'v1beta2', 'v1beta1', 'v1alpha3']],
  ['scheduling.k8s.io', ['v1', 'v1beta1', 'v1alpha1']],
  ['storage.k8s.io', ['v1', 'v1beta1', 'v1alpha1']],
  ['storagemigration.k8s.io', ['v1alpha1']],
]);
