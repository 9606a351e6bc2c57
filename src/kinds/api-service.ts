import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { dns1035LabelErrors, dns1123SubdomainErrors, portNumberErrors } from '../api/validation/names.ts';
import { defineKind } from '../registry/kind.ts';
import * as field from '../registry/validation/field.ts';
import { statusResettingMetadata } from './status-reset-metadata.ts';

type Service = { namespace?: string; name?: string; port?: number };
type Spec = { service?: Service | null; group?: string; version?: string; insecureSkipTLSVerify?: boolean; caBundle?: string; groupPriorityMinimum?: number; versionPriority?: number };
type Condition = { type?: string; status?: string; lastTransitionTime?: string; reason?: string; message?: string };

const specOf = (obj: KubeObject) => (obj.spec ?? {}) as Spec;
const conditionsOf = (obj: KubeObject) => ((obj.status as { conditions?: Condition[] } | undefined)?.conditions ?? []) as Condition[];
const CONDITION_STATUSES = ['True', 'False', 'Unknown'];
const at = field.path('spec');

/** Whether the name is a valid path segment (the metadata rules report it otherwise). */
const isPathSegment = (name: string) => name !== '.' && name !== '..' && !name.includes('/') && !name.includes('%');

/** Upstream's ValidateAPIService (kube-aggregator). */
function validate(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const group = spec.group ?? '';
  const version = spec.version ?? '';
  const errs: FieldError[] = [];
  // The name is the group version it registers; a generated name can never be, so generateName fails too.
  const required = `${version}.${group}`;
  const nameRule = `must be \`spec.version+"."+spec.group\`: "${required}"`;
  const generateName = obj.metadata?.generateName ?? '';
  if (generateName && isPathSegment(generateName) && generateName !== required) errs.push(field.invalid(field.path('metadata', 'generateName'), generateName, nameRule));
  const name = obj.metadata?.name ?? '';
  if (name && isPathSegment(name) && name !== required) errs.push(field.invalid(field.path('metadata', 'name'), name, nameRule));
  if (group === '' && version !== 'v1') errs.push(field.required(at.child('group'), 'only v1 may have an empty group and it better be legacy kube'));
  if (group !== '') for (const msg of dns1123SubdomainErrors(group)) errs.push(field.invalid(at.child('group'), group, msg));
  for (const msg of dns1035LabelErrors(version)) errs.push(field.invalid(at.child('version'), version, msg));
  const groupPriority = spec.groupPriorityMinimum ?? 0;
  if (groupPriority <= 0 || groupPriority > 20000) errs.push(field.invalid(at.child('groupPriorityMinimum'), groupPriority, 'must be positive and less than 20000'));
  const versionPriority = spec.versionPriority ?? 0;
  if (versionPriority <= 0 || versionPriority > 1000) errs.push(field.invalid(at.child('versionPriority'), versionPriority, 'must be positive and less than 1000'));
  // Go measures the decoded bundle.
  const caBytes = spec.caBundle ? Buffer.from(spec.caBundle, 'base64').length : 0;
  if (!spec.service) {
    if (caBytes > 0) errs.push(field.invalid(at.child('caBundle'), `${caBytes} bytes`, 'local APIServices may not have a caBundle'));
    if (spec.insecureSkipTLSVerify) errs.push(field.invalid(at.child('insecureSkipTLSVerify'), true, 'local APIServices may not have insecureSkipTLSVerify'));
    return errs;
  }
  const service = spec.service;
  if (!service.namespace) errs.push(field.required(at.child('service', 'namespace')));
  if (!service.name) errs.push(field.required(at.child('service', 'name')));
  const port = service.port ?? 0;
  const portProblems = portNumberErrors(port);
  if (portProblems.length > 0) errs.push(field.invalid(at.child('service', 'port'), port, `port is not valid: ${portProblems.join(', ')}`));
  if (spec.insecureSkipTLSVerify && caBytes > 0) errs.push(field.invalid(at.child('insecureSkipTLSVerify'), true, 'may not be true if caBundle is present'));
  return errs;
}

function validateStatus(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  conditionsOf(obj).forEach((c, i) => {
    if (!CONDITION_STATUSES.includes(c.status ?? '')) errs.push(field.notSupported(field.path('status', 'conditions').index(i).child('status'), c.status ?? '', CONDITION_STATUSES));
  });
  return errs;
}

/** `True`, or the status with its reason (`False (MissingEndpoints)`), of the Available condition. */
function available(obj: KubeObject): string {
  const c = conditionsOf(obj).find((x) => x.type === 'Available');
  if (!c) return 'Unknown';
  if (c.status === 'True' || !c.reason) return c.status ?? '';
  return `${c.status ?? ''} (${c.reason})`;
}

const rfc3339Now = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

/** apiregistration.k8s.io/v1 APIService: an API group version and who serves it (named `<version>.<group>`). */
export const apiServices = defineKind({
  group: 'apiregistration.k8s.io',
  version: 'v1',
  kind: 'APIService',
  plural: 'apiservices',
  namespaced: false,
  categories: ['api-extensions'],
  schemaMessage: 'k8s.io.kube_aggregator.pkg.apis.apiregistration.v1.APIService',
  nameRule: 'path-segment',
  allowUnconditionalUpdate: false,
  subresources: [statusResettingMetadata({ validateUpdate: (_ctx, obj) => validateStatus(obj) })],
  tableColumns: [
    { name: 'Service', type: 'string', description: 'The service that serves the API, or Local.', cell: (o) => (specOf(o).service ? `${specOf(o).service!.namespace ?? ''}/${specOf(o).service!.name ?? ''}` : 'Local') },
    { name: 'Available', type: 'string', description: 'Whether the API is available.', cell: (o) => available(o) },
  ],
  strategy: {
    default: (_ctx, obj) => {
      const service = specOf(obj).service;
      if (service) service.port ??= 443;
    },
    // Status is the availability controller's; an API this server serves itself is available at once.
    prepareForCreate: (_ctx, obj) => {
      obj.status = specOf(obj).service
        ? {}
        : { conditions: [{ type: 'Available', status: 'True', lastTransitionTime: rfc3339Now(), reason: 'Local', message: 'Local APIServices are always available' }] };
    },
    validate: (_ctx, obj) => validate(obj),
    validateUpdate: (_ctx, obj) => validate(obj),
  },
});
