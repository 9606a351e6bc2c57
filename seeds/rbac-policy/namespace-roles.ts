/**
 * The namespaced roles and bindings of Kubernetes 1.34's bootstrap policy, in kube-public and
 * kube-system (upstream's bootstrappolicy/namespace_policy.go, as testdata/namespace-roles.yaml and
 * namespace-role-bindings.yaml show it), in that order. The namespaces exist before the seed runs.
 */
import { type BootstrapBinding, type BootstrapRole, roleBinding, sa, user } from './builders.ts';

export const NAMESPACE_ROLES: readonly BootstrapRole[] = [
  {
    namespace: 'kube-public',
    name: 'system:controller:bootstrap-signer',
    rules: [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resourceNames: ['cluster-info'], resources: ['configmaps'], verbs: ['update'] },
      { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
    ],
  },
  {
    namespace: 'kube-system',
    name: 'extension-apiserver-authentication-reader',
    rules: [
      { apiGroups: [''], resourceNames: ['extension-apiserver-authentication'], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] },
    ],
  },
  {
    namespace: 'kube-system',
    name: 'system::leader-locking-kube-controller-manager',
    rules: [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['watch'] },
      { apiGroups: [''], resourceNames: ['kube-controller-manager'], resources: ['configmaps'], verbs: ['get', 'update'] },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create', 'get', 'list', 'update', 'watch'] },
      { apiGroups: ['coordination.k8s.io'], resources: ['leasecandidates'], verbs: ['create', 'get', 'list', 'update', 'watch'] },
    ],
  },
  {
    namespace: 'kube-system',
    name: 'system::leader-locking-kube-scheduler',
    rules: [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['watch'] },
      { apiGroups: [''], resourceNames: ['kube-scheduler'], resources: ['configmaps'], verbs: ['get', 'update'] },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create', 'get', 'list', 'update', 'watch'] },
      { apiGroups: ['coordination.k8s.io'], resources: ['leasecandidates'], verbs: ['create', 'get', 'list', 'update', 'watch'] },
    ],
  },
  {
    namespace: 'kube-system',
    name: 'system:controller:bootstrap-signer',
    rules: [
      { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch'] },
    ],
  },
  {
    namespace: 'kube-system',
    name: 'system:controller:cloud-provider',
    rules: [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'get', 'list', 'watch'] },
    ],
  },
  {
    namespace: 'kube-system',
    name: 'system:controller:token-cleaner',
    rules: [
      { apiGroups: [''], resources: ['secrets'], verbs: ['delete', 'get', 'list', 'watch'] },
      { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
    ],
  },
];

export const NAMESPACE_ROLE_BINDINGS: readonly BootstrapBinding[] = [
  roleBinding('kube-public', 'system:controller:bootstrap-signer', 'system:controller:bootstrap-signer', [sa('kube-system', 'bootstrap-signer')]),
  roleBinding('kube-system', 'system::extension-apiserver-authentication-reader', 'extension-apiserver-authentication-reader', [user('system:kube-controller-manager'), user('system:kube-scheduler')]),
  roleBinding('kube-system', 'system::leader-locking-kube-controller-manager', 'system::leader-locking-kube-controller-manager', [user('system:kube-controller-manager'), sa('kube-system', 'kube-controller-manager'), sa('kube-system', 'leader-election-controller')]),
  roleBinding('kube-system', 'system::leader-locking-kube-scheduler', 'system::leader-locking-kube-scheduler', [user('system:kube-scheduler'), sa('kube-system', 'kube-scheduler')]),
  roleBinding('kube-system', 'system:controller:bootstrap-signer', 'system:controller:bootstrap-signer', [sa('kube-system', 'bootstrap-signer')]),
  roleBinding('kube-system', 'system:controller:cloud-provider', 'system:controller:cloud-provider', [sa('kube-system', 'cloud-provider')]),
  roleBinding('kube-system', 'system:controller:token-cleaner', 'system:controller:token-cleaner', [sa('kube-system', 'token-cleaner')]),
];
