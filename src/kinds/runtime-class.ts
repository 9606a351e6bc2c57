import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { parseQuantity, quantityMilliValue, quantitySign, quantityString, quantityValue, type Quantity } from '../api/go/quantity.ts';
import { dns1123LabelErrors } from '../api/validation/names.ts';
import { defineKind } from '../registry/kind.ts';
import * as field from '../registry/validation/field.ts';
import { labelMapErrors } from '../registry/validation/label-selector.ts';
import { resourceRequirementsErrors } from './core-resources.ts';
import { tolerationStruct, tolerationsErrors, type Toleration } from './tolerations.ts';

type RuntimeClass = KubeObject & {
  handler?: string;
  overhead?: { podFixed?: Record<string, string> | null } | null;
  scheduling?: { nodeSelector?: Record<string, string> | null; tolerations?: Toleration[] } | null;
};

const HUGEPAGES = 'hugepages-';

/** Whether a huge-page quantity is a whole number of pages of the size its name gives. */
function wholePages(name: string, q: Quantity): boolean {
  const page = parseQuantity(name.slice(HUGEPAGES.length));
  // A page size that is not a positive whole number of bytes fits nothing.
  if (!page || quantitySign(page) <= 0 || quantityMilliValue(page) % 1000n !== 0n) return false;
  return quantityValue(q) % quantityValue(page) === 0n;
}

/**
 * Overhead is judged as a container's limits (so errors read overhead.limits[…]), with the huge-page
 * rules the shared resource rules leave out: whole pages, and never huge pages without cpu or memory.
 */
function overheadErrors(podFixed: Record<string, string>, at: field.FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  let cpuOrMemory = false;
  let hugePages = false;
  for (const name of Object.keys(podFixed).sort()) {
    const text = podFixed[name]!;
    errs.push(...resourceRequirementsErrors({ [name]: text }, undefined, at));
    const q = parseQuantity(text);
    if (name.startsWith(HUGEPAGES)) {
      hugePages = true;
      if (q && !wholePages(name, q)) errs.push(field.invalid(at.child('limits').key(name), quantityString(q), `${quantityString(q)} is not positive integer multiple of ${name}`));
    }
    if (name === 'cpu' || name === 'memory') cpuOrMemory = true;
  }
  if (hugePages && !cpuOrMemory) errs.push(field.forbidden(at, 'HugePages require cpu or memory'));
  return errs;
}

/** Upstream's ValidateRuntimeClass. */
function validate(obj: KubeObject): FieldError[] {
  const rc = obj as RuntimeClass;
  const handler = rc.handler ?? '';
  const errs = dns1123LabelErrors(handler).map((msg) => field.invalid('handler', handler, msg));
  if (rc.overhead) errs.push(...overheadErrors(rc.overhead.podFixed ?? {}, field.path('overhead')));
  if (rc.scheduling) {
    const at = field.path('scheduling');
    if (rc.scheduling.nodeSelector) errs.push(...labelMapErrors(rc.scheduling.nodeSelector, at.child('nodeSelector')));
    const tolerations = rc.scheduling.tolerations ?? [];
    errs.push(...tolerationsErrors(tolerations, at.child('tolerations')));
    // Tolerations are a list keyed by key, operator, value and effect: each appears once.
    const seen = new Set<string>();
    tolerations.forEach((t, i) => {
      const key = JSON.stringify([t.key ?? '', t.operator ?? '', t.value ?? '', t.effect ?? '']);
      if (seen.has(key)) errs.push(field.duplicate(at.child('tolerations').index(i), tolerationStruct(t)));
      seen.add(key);
    });
  }
  return errs;
}

/** Node labels that have a newer name (upstream warns when a node selector uses them). */
const DEPRECATED_NODE_LABELS: Record<string, string> = {
  'beta.kubernetes.io/arch': 'deprecated since v1.14; use "kubernetes.io/arch" instead',
  'beta.kubernetes.io/os': 'deprecated since v1.14; use "kubernetes.io/os" instead',
  'failure-domain.beta.kubernetes.io/region': 'deprecated since v1.17; use "topology.kubernetes.io/region" instead',
  'failure-domain.beta.kubernetes.io/zone': 'deprecated since v1.17; use "topology.kubernetes.io/zone" instead',
  'beta.kubernetes.io/instance-type': 'deprecated since v1.17; use "node.kubernetes.io/instance-type" instead',
};

function warnings(obj: KubeObject): string[] {
  const selector = (obj as RuntimeClass).scheduling?.nodeSelector ?? {};
  return Object.keys(selector)
    .filter((key) => key in DEPRECATED_NODE_LABELS)
    .map((key) => `scheduling.nodeSelector: ${DEPRECATED_NODE_LABELS[key]}`);
}

/** node.k8s.io/v1 RuntimeClass: a container runtime configuration pods can select by name. */
export const runtimeClasses = defineKind({
  group: 'node.k8s.io',
  version: 'v1',
  kind: 'RuntimeClass',
  plural: 'runtimeclasses',
  namespaced: false,
  schemaMessage: 'k8s.io.api.node.v1.RuntimeClass',
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: false,
  // Upstream's column takes its (empty) description from ObjectMeta, which has no handler field.
  tableColumns: [{ name: 'Handler', type: 'string', description: '', cell: (o) => (o as RuntimeClass).handler ?? '' }],
  strategy: {
    validate: (_ctx, obj) => validate(obj),
    validateUpdate: (_ctx, obj, old) => {
      const errs = validate(obj);
      const handler = (obj as RuntimeClass).handler ?? '';
      if (handler !== ((old as RuntimeClass).handler ?? '')) errs.push(field.immutable('handler', handler));
      return errs;
    },
    warningsOnCreate: (_ctx, obj) => warnings(obj),
    warningsOnUpdate: (_ctx, obj) => warnings(obj),
  },
});
