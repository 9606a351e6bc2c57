/**
 * Resource names and quantities as the core group judges them (upstream's pkg/apis/core/helper and
 * the resource parts of core validation), shared by Pod, LimitRange, ResourceQuota, RuntimeClass,
 * PersistentVolume(Claim) and Node.
 */
import type { FieldError } from '../api/errors.ts';
import { parseQuantity, compareQuantities, quantityMilliValue, quantitySign, quantityString } from '../api/go/quantity.ts';
import { qualifiedNameErrors } from '../api/validation/names.ts';
import * as field from '../registry/validation/field.ts';

const HUGEPAGES = 'hugepages-';
const REQUESTS_HUGEPAGES = 'requests.hugepages-';
const CONTAINER = new Set(['cpu', 'memory', 'ephemeral-storage']);
const QUOTA = new Set([
  'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.storage', 'requests.ephemeral-storage',
  'limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'pods', 'resourcequotas', 'services', 'replicationcontrollers',
  'secrets', 'persistentvolumeclaims', 'configmaps', 'services.nodeports', 'services.loadbalancers',
]);
const STANDARD = new Set([...QUOTA, 'storage']);
const INTEGER = new Set(['pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'configmaps', 'persistentvolumeclaims', 'services.nodeports', 'services.loadbalancers']);

const isHugePages = (name: string) => name.startsWith(HUGEPAGES);
const isQuotaHugePages = (name: string) => name.startsWith(HUGEPAGES) || name.startsWith(REQUESTS_HUGEPAGES);
/** In the kubernetes.io namespace (unprefixed names are). */
export const isNativeResource = (name: string) => !name.includes('/') || name.includes('kubernetes.io/');
export const isStandardQuotaResource = (name: string) => QUOTA.has(name) || isQuotaHugePages(name);
export const isStandardResource = (name: string) => STANDARD.has(name) || isQuotaHugePages(name);
export const isStandardContainerResource = (name: string) => CONTAINER.has(name) || isHugePages(name);

export function isExtendedResource(name: string): boolean {
  if (isNativeResource(name) || name.startsWith('requests.')) return false;
  return qualifiedNameErrors(`requests.${name}`).length === 0;
}

const isIntegerResource = (name: string) => INTEGER.has(name) || isExtendedResource(name);
/** Whether requests may be below limits (native resources but huge pages). */
export const isOvercommitAllowed = (name: string) => isNativeResource(name) && !isHugePages(name);

/** validateResourceName: a qualified name, and a standard one unless it has a domain. */
export function resourceNameErrors(name: string, at: field.PathLike): FieldError[] {
  const errs = qualifiedNameErrors(name).map((msg) => field.invalid(at, name, msg));
  if (errs.length > 0) return errs;
  if (!name.includes('/') && !isStandardResource(name)) return [field.invalid(at, name, 'must be a standard resource type or fully qualified')];
  return [];
}

/** validateContainerResourceName: also a container resource when unprefixed, or an extended resource. */
export function containerResourceNameErrors(name: string, at: field.PathLike): FieldError[] {
  const errs = resourceNameErrors(name, at);
  if (!name.includes('/')) {
    if (!isStandardContainerResource(name)) errs.push(field.invalid(at, name, 'must be a standard resource for containers'));
  } else if (!isNativeResource(name) && !isExtendedResource(name)) {
    errs.push(field.invalid(at, name, "doesn't follow extended resource name standard"));
  }
  return errs;
}

/** ValidateResourceQuantityValue: not negative, and whole for countable resources. */
export function quantityValueErrors(resource: string, text: string, at: field.PathLike): FieldError[] {
  const q = parseQuantity(text);
  if (!q) return [];
  const errs: FieldError[] = [];
  if (quantitySign(q) < 0) errs.push(field.invalid(at, quantityString(q), 'must be greater than or equal to 0'));
  if (isIntegerResource(resource) && quantityMilliValue(q) % 1000n !== 0n) errs.push(field.invalid(at, quantityString(q), 'must be an integer'));
  return errs;
}

type Quantities = Record<string, string> | null | undefined;

/** validateResourceRequirements: names, values, and requests within limits. */
export function resourceRequirementsErrors(limits: Quantities, requests: Quantities, at: field.FieldPath, nameErrors = containerResourceNameErrors): FieldError[] {
  const errs: FieldError[] = [];
  const lim = at.child('limits');
  const req = at.child('requests');
  for (const name of Object.keys(limits ?? {}).sort()) {
    errs.push(...nameErrors(name, lim.key(name)), ...quantityValueErrors(name, limits![name]!, lim.key(name)));
  }
  for (const name of Object.keys(requests ?? {}).sort()) {
    const value = requests![name]!;
    errs.push(...nameErrors(name, req.key(name)), ...quantityValueErrors(name, value, req.key(name)));
    const limitText = limits?.[name];
    const q = parseQuantity(value);
    if (limitText !== undefined) {
      const l = parseQuantity(limitText);
      if (!q || !l) continue;
      const cmp = compareQuantities(q, l);
      if (cmp !== 0 && !isOvercommitAllowed(name)) errs.push(field.invalid(req, quantityString(q), `must be equal to ${name} limit of ${quantityString(l)}`));
      else if (cmp > 0) errs.push(field.invalid(req, quantityString(q), `must be less than or equal to ${name} limit of ${quantityString(l)}`));
    } else if (!isOvercommitAllowed(name)) {
      errs.push(field.required(lim, 'Limit must be set for non overcommitable resources'));
    }
  }
  return errs;
}
