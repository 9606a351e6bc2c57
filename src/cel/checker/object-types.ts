/**
 * The object types upstream declares for admission expressions (BuildRequestType and
 * BuildNamespaceType in k8s.io/apiserver's plugin/cel): `request` is a kubernetes.AdmissionRequest
 * and `namespaceObject` a kubernetes.Namespace, so selecting a field they lack does not compile.
 * At runtime both are plain maps.
 */

/** A declared object type: its name and fields (cel-js type notation), nested types first. */
export interface ObjectTypeDecl {
  readonly name: string;
  readonly fields: Readonly<Record<string, string>>;
}

/** kubernetes.UserInfo: the admission request's userInfo, and `user` of authentication's userValidationRules. */
export const USER_INFO_TYPE: ObjectTypeDecl = { name: 'kubernetes.UserInfo', fields: { username: 'string', uid: 'string', groups: 'list<string>', extra: 'map<string, list<string>>' } };

export const ADMISSION_REQUEST_TYPES: readonly ObjectTypeDecl[] = [
  { name: 'kubernetes.GroupVersionKind', fields: { group: 'string', version: 'string', kind: 'string' } },
  { name: 'kubernetes.GroupVersionResource', fields: { group: 'string', version: 'string', resource: 'string' } },
  USER_INFO_TYPE,
  {
    name: 'kubernetes.AdmissionRequest',
    fields: {
      kind: 'kubernetes.GroupVersionKind',
      resource: 'kubernetes.GroupVersionResource',
      subResource: 'string',
      requestKind: 'kubernetes.GroupVersionKind',
      requestResource: 'kubernetes.GroupVersionResource',
      requestSubResource: 'string',
      name: 'string',
      namespace: 'string',
      operation: 'string',
      userInfo: 'kubernetes.UserInfo',
      dryRun: 'bool',
      options: 'dyn',
    },
  },
];

export const NAMESPACE_TYPES: readonly ObjectTypeDecl[] = [
  { name: 'kubernetes.NamespaceSpec', fields: { finalizers: 'list<string>' } },
  {
    name: 'kubernetes.NamespaceCondition',
    fields: { status: 'string', type: 'string', lastTransitionTime: 'google.protobuf.Timestamp', message: 'string', reason: 'string' },
  },
  { name: 'kubernetes.NamespaceStatus', fields: { conditions: 'list<kubernetes.NamespaceCondition>', phase: 'string' } },
  {
    name: 'kubernetes.NamespaceMetadata',
    fields: {
      name: 'string',
      generateName: 'string',
      namespace: 'string',
      labels: 'map<string, string>',
      annotations: 'map<string, string>',
      UID: 'string',
      creationTimestamp: 'google.protobuf.Timestamp',
      deletionGracePeriodSeconds: 'int',
      deletionTimestamp: 'google.protobuf.Timestamp',
      generation: 'int',
      resourceVersion: 'string',
      finalizers: 'list<string>',
    },
  },
  { name: 'kubernetes.Namespace', fields: { metadata: 'kubernetes.NamespaceMetadata', spec: 'kubernetes.NamespaceSpec', status: 'kubernetes.NamespaceStatus' } },
];

/** The type of `variables`, whose fields are the policy's variables (composition.go's kubernetes.variables). */
export const VARIABLES_TYPE = 'kubernetes.variables';
