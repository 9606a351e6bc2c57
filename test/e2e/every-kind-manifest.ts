/**
 * One valid object of every kind the server serves, as a kubectl manifest. Cluster-scoped names
 * carry a per-run suffix (each kubectl version creates its own set); `n` varies the names that must
 * have a fixed shape (IP addresses, APIService and CustomResourceDefinition names).
 */
export interface ManifestObject {
  readonly resource: string;
  readonly object: Record<string, unknown>;
}

export function everyKindManifest(suffix: string, n: number, namespace: string): ManifestObject[] {
  const name = (base: string) => `${base}-${suffix}`;
  return [
    { resource: 'namespaces', object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: name('scratch') } } },
    { resource: 'configmaps', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { a: '1' }, binaryData: { b: 'AAE=' } } },
    { resource: 'secrets', object: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'secret' }, type: 'Opaque', stringData: { password: 'p' } } },
    { resource: 'serviceaccounts', object: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } } },
    {
      resource: 'events',
      object: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'core-event' }, involvedObject: { kind: 'ConfigMap', name: 'cm', apiVersion: 'v1', namespace }, reason: 'Created', message: 'made', type: 'Normal', source: { component: 'e2e' } },
    },
    {
      resource: 'events.events.k8s.io',
      object: {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: { name: 'new-event' },
        eventTime: '2024-01-02T03:04:05.000000Z',
        action: 'Create',
        reason: 'Created',
        reportingController: 'example.com/e2e',
        reportingInstance: 'e2e-1',
        type: 'Normal',
        regarding: { kind: 'ConfigMap', name: 'cm', apiVersion: 'v1', namespace },
        note: 'made',
      },
    },
    { resource: 'leases', object: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'lock' }, spec: { holderIdentity: 'me', leaseDurationSeconds: 15 } } },
    {
      resource: 'leasecandidates',
      object: { apiVersion: 'coordination.k8s.io/v1beta1', kind: 'LeaseCandidate', metadata: { name: 'candidate' }, spec: { leaseName: 'lock', binaryVersion: '1.34.0', strategy: 'OldestEmulationVersion', emulationVersion: '1.33.0' } },
    },
    { resource: 'csidrivers', object: { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: name('csi.example.com') }, spec: { attachRequired: false, tokenRequests: [{ audience: 'vault' }] } } },
    { resource: 'csinodes', object: { apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', metadata: { name: name('node') }, spec: { drivers: [{ name: 'csi.example.com', nodeID: 'n1', topologyKeys: ['zone'] }] } } },
    {
      resource: 'csistoragecapacities',
      object: { apiVersion: 'storage.k8s.io/v1', kind: 'CSIStorageCapacity', metadata: { name: 'capacity' }, storageClassName: 'fast', capacity: '1024Mi', nodeTopology: { matchLabels: { zone: 'a' } } },
    },
    { resource: 'ipaddresses', object: { apiVersion: 'networking.k8s.io/v1', kind: 'IPAddress', metadata: { name: `192.168.${n}.10` }, spec: { parentRef: { group: '', resource: 'services', namespace: 'default', name: 'web' } } } },
      { resource: 'roles', object: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'reader' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }] } },
    {
      resource: 'rolebindings',
      object: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'read' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' }, subjects: [{ kind: 'User', name: 'alice' }] },
    },
    { resource: 'clusterroles', object: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: name('health') }, rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }] } },
    {
      resource: 'clusterrolebindings',
      object: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: name('health') },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: name('health') },
        subjects: [{ kind: 'ServiceAccount', name: 'robot', namespace }],
      },
    },
    {
      resource: 'networkpolicies',
      object: { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'web' }, spec: { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }], ports: [{ port: 80 }] }] } },
    },
    { resource: 'servicecidrs', object: { apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata: { name: name('extra') }, spec: { cidrs: [`10.${100 + n}.0.0/16`] } } },
    { resource: 'poddisruptionbudgets', object: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'web' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } } } },
    { resource: 'runtimeclasses', object: { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: name('gvisor') }, handler: 'runsc', overhead: { podFixed: { cpu: '250m' } } } },
    { resource: 'limitranges', object: { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'limits' }, spec: { limits: [{ type: 'Container', max: { cpu: '2' }, min: { cpu: '100m' } }] } } },
    { resource: 'resourcequotas', object: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'quota' }, spec: { hard: { pods: '10', 'requests.cpu': '4' } } } },
    {
      resource: 'apiservices',
      object: {
        apiVersion: 'apiregistration.k8s.io/v1',
        kind: 'APIService',
        metadata: { name: `v1.x${suffix}.example.com` },
        spec: { group: `x${suffix}.example.com`, version: 'v1', groupPriorityMinimum: 1000, versionPriority: 15, service: { namespace: 'default', name: 'api' }, insecureSkipTLSVerify: true },
      },
    },
    {
      // Named <plural>.<group>: the group carries the suffix.
      resource: 'customresourcedefinitions',
      object: {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: `gadgets.e2e${suffix}.example.com` },
        spec: {
          group: `e2e${suffix}.example.com`,
          names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', shortNames: ['gdg'] },
          scope: 'Namespaced',
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              subresources: { status: {} },
              additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
              schema: {
                openAPIV3Schema: {
                  type: 'object',
                  properties: {
                    spec: { type: 'object', properties: { size: { type: 'integer', minimum: 1, default: 1 }, color: { type: 'string', enum: ['red', 'blue'] } } },
                    status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                  },
                },
              },
            },
          ],
        },
      },
    },
    { resource: 'storageversionmigrations', object: { apiVersion: 'storagemigration.k8s.io/v1alpha1', kind: 'StorageVersionMigration', metadata: { name: name('configmaps') }, spec: { resource: { group: '', version: 'v1', resource: 'configmaps' } } } },
    {
      resource: 'prioritylevelconfigurations',
      object: { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name: name('batch') }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 5, limitResponse: { type: 'Queue', queuing: { queues: 16, handSize: 4, queueLengthLimit: 20 } } } } },
    },
    {
      resource: 'flowschemas',
      object: {
        apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
        kind: 'FlowSchema',
        metadata: { name: name('batch') },
        spec: {
          priorityLevelConfiguration: { name: name('batch') },
          matchingPrecedence: 2000,
          distinguisherMethod: { type: 'ByUser' },
          rules: [{ subjects: [{ kind: 'ServiceAccount', serviceAccount: { name: 'robot', namespace } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'] }] }],
        },
      },
    },
    {
      resource: 'validatingadmissionpolicies',
      object: {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name: name('replica-limit') },
        spec: { matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] }] }, validations: [{ expression: 'object.spec.replicas <= 5' }] },
      },
    },
    {
      resource: 'validatingadmissionpolicybindings',
      object: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: name('replica-limit') }, spec: { policyName: name('replica-limit'), validationActions: ['Warn'] } },
    },
    ...(['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration'] as const).map((kind) => ({
      resource: `${kind.toLowerCase()}s`,
      // A webhook for a group nobody serves (ignored if it were ever called), so that it affects no other object.
      object: {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind,
        metadata: { name: name('widgets') },
        webhooks: [{ name: 'widgets.example.com', clientConfig: { url: 'https://127.0.0.1:9/check' }, rules: [{ operations: ['CREATE'], apiGroups: ['widgets.example.com'], apiVersions: ['v1'], resources: ['widgets'] }], failurePolicy: 'Ignore', sideEffects: 'None', admissionReviewVersions: ['v1'] }],
      },
    })),
    { resource: 'persistentvolumes', object: { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: name('pv') }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' } } } },
    { resource: 'persistentvolumeclaims', object: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'claim' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } },
    { resource: 'volumeattachments', object: { apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttachment', metadata: { name: name('attach') }, spec: { attacher: 'csi.example.com', nodeName: 'node-1', source: { persistentVolumeName: name('pv') } } } },
    { resource: 'nodes', object: { apiVersion: 'v1', kind: 'Node', metadata: { name: name('node'), labels: { 'node-role.kubernetes.io/worker': '' } }, spec: { taints: [{ key: 'dedicated', value: 'batch', effect: 'NoSchedule' }] } } },
    {
      resource: 'pods',
      object: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'web' },
        spec: {
          containers: [{ name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 80 }], volumeMounts: [{ name: 'token', mountPath: '/var/run/token' }] }],
          volumes: [{ name: 'token', projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3600 } }] } }],
        },
      },
    },
  ];
}
