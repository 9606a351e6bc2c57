/**
 * What to do with zero values found on the wire.
 *
 * Go's protobuf marshaller writes every non-pointer field, even at its zero value (`""`, `0`,
 * `false`, empty structs), while pointer fields appear only when set. The schema cannot tell the
 * two apart (both are proto2 `optional`), yet the JSON form differs: Go's JSON encoder drops a
 * zero non-pointer field tagged `omitempty` but keeps a pointer set to zero (`replicas: 0`,
 * `gracePeriodSeconds: 0`, `automountServiceAccountToken: false` all mean something).
 *
 * The rules, in order of safety:
 * - empty strings and empty bytes are dropped unless the field is `+required` or listed in
 *   `KEEP_EMPTY_STRING` (pointer strings where `""` is meaningful);
 * - zero numbers, `false` and zero IntOrStrings are kept (keeping a zero is harmless for a value
 *   field, dropping one is wrong for a pointer), except for the value fields listed in
 *   `DROP_ZERO`, which a Go client always sends and whose zero means "unset".
 *
 * Keys are `<group>.<Message>.<field>`, where the group is the API package (`core`, `apps`, `meta`, `apiextensions`)
 * and the rule applies to every version of the message.
 */

const DROP_ZERO_FIELDS: Readonly<Record<string, readonly string[]>> = {
  'meta.ObjectMeta': ['generation'],
  'meta.Status': ['code'],
  'meta.StatusDetails': ['retryAfterSeconds'],
  'meta.Condition': ['observedGeneration'],
  'meta.ListOptions': ['watch', 'allowWatchBookmarks', 'limit'],
  'core.Container': ['stdin', 'stdinOnce', 'tty'],
  'core.EphemeralContainerCommon': ['stdin', 'stdinOnce', 'tty'],
  'core.ContainerPort': ['hostPort'],
  'core.Probe': ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold'],
  'core.PodSpec': ['hostNetwork', 'hostPID', 'hostIPC'],
  'core.PodStatus': ['observedGeneration'],
  'core.PodCondition': ['observedGeneration'],
  'core.VolumeMount': ['readOnly'],
  'core.PersistentVolumeClaimVolumeSource': ['readOnly'],
  'core.NFSVolumeSource': ['readOnly'],
  'core.ServicePort': ['nodePort', 'targetPort'],
  'core.ServiceSpec': ['publishNotReadyAddresses', 'healthCheckNodePort'],
  'core.NodeSpec': ['unschedulable'],
  'core.Event': ['count'],
  'core.EventSeries': ['count'],
  'core.ContainerStateTerminated': ['signal'],
  'core.ReplicationControllerSpec': ['minReadySeconds'],
  'core.ReplicationControllerStatus': ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration'],
  'apps.DeploymentSpec': ['minReadySeconds', 'paused'],
  'apps.DeploymentStatus': ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas'],
  'apps.ReplicaSetSpec': ['minReadySeconds'],
  'apps.ReplicaSetStatus': ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration'],
  'apps.StatefulSetSpec': ['minReadySeconds'],
  'apps.StatefulSetStatus': ['observedGeneration', 'readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas'],
  'apps.DaemonSetSpec': ['minReadySeconds'],
  'apps.DaemonSetStatus': ['observedGeneration', 'updatedNumberScheduled', 'numberAvailable', 'numberUnavailable'],
  'batch.JobStatus': ['active', 'succeeded', 'failed'],
  'events.Event': ['deprecatedCount'],
  'policy.PodDisruptionBudgetStatus': ['observedGeneration'],
  'scheduling.PriorityClass': ['globalDefault'],
  'networking.ServiceBackendPort': ['number'],
  // CustomResourceDefinition's non-pointer omitempty fields (JSONSchemaProps keyed by JSON name).
  'apiextensions.CustomResourceDefinitionSpec': ['preserveUnknownFields'],
  'apiextensions.CustomResourceDefinitionVersion': ['deprecated'],
  'apiextensions.CustomResourceColumnDefinition': ['priority'],
  'apiextensions.JSONSchemaProps': ['exclusiveMaximum', 'exclusiveMinimum', 'uniqueItems', 'nullable', 'x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string'],
};

/** `extensions/v1beta1` carries old copies of the apps workload types. */
const ALIASES: Readonly<Record<string, string>> = { extensions: 'apps' };

const KEEP_EMPTY_STRING_FIELDS: Readonly<Record<string, readonly string[]>> = {
  // `storageClassName: ""` asks for no storage class; absent means the default class.
  'core.PersistentVolumeClaimSpec': ['storageClassName', 'volumeAttributesClassName'],
  // Names are a value struct without omitempty: status.acceptedNames is `{plural: "", kind: ""}` at first.
  'apiextensions.CustomResourceDefinitionNames': ['plural', 'kind'],
  // Pointer strings.
  'apiextensions.JSONSchemaProps': ['$ref', 'x-kubernetes-list-type', 'x-kubernetes-map-type'],
};

function toSet(table: Readonly<Record<string, readonly string[]>>): ReadonlySet<string> {
  const out = new Set<string>();
  for (const [message, fields] of Object.entries(table)) for (const f of fields) out.add(`${message}.${f}`);
  return out;
}

const DROP_ZERO = toSet(DROP_ZERO_FIELDS);
const KEEP_EMPTY_STRING = toSet(KEEP_EMPTY_STRING_FIELDS);

const API_PREFIX = 'k8s.io.api.';
const META_PREFIX = 'k8s.io.apimachinery.pkg.apis.meta.';
const APIEXTENSIONS_PREFIX = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.';

/** `k8s.io.api.apps.v1beta2.DeploymentSpec` → `apps.DeploymentSpec`; undefined for other packages. */
function shortName(message: string): string | undefined {
  let rest: string;
  let group: string;
  if (message.startsWith(API_PREFIX)) {
    rest = message.slice(API_PREFIX.length);
    const dot = rest.indexOf('.');
    group = rest.slice(0, dot);
    rest = rest.slice(dot + 1);
  } else if (message.startsWith(META_PREFIX)) {
    group = 'meta';
    rest = message.slice(META_PREFIX.length);
  } else if (message.startsWith(APIEXTENSIONS_PREFIX)) {
    group = 'apiextensions';
    rest = message.slice(APIEXTENSIONS_PREFIX.length);
  } else {
    return undefined;
  }
  const dot = rest.indexOf('.'); // skip the version
  return `${ALIASES[group] ?? group}.${rest.slice(dot + 1)}`;
}

/** Whether a zero number, `false` or zero IntOrString of this field is dropped when decoding. */
export function dropsZero(message: string, field: string): boolean {
  const short = shortName(message);
  return short !== undefined && DROP_ZERO.has(`${short}.${field}`);
}

/** Whether an empty string of this field is kept when decoding (it is dropped otherwise). */
export function keepsEmptyString(message: string, field: string): boolean {
  const short = shortName(message);
  return short !== undefined && KEEP_EMPTY_STRING.has(`${short}.${field}`);
}
