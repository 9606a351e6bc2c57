import { randomUUID } from 'node:crypto';
import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { compareQuantities, parseQuantity, quantityMilliValue, quantityString, quantityValue, type Quantity } from '../api/go/quantity.ts';
import { qualifiedNameErrors } from '../api/validation/names.ts';
import { defineKind } from '../registry/kind.ts';
import * as field from '../registry/validation/field.ts';
import { containerResourceNameErrors, isOvercommitAllowed, resourceNameErrors } from './core-resources.ts';

type Quantities = Record<string, string>;
const PARTS = ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio'] as const;
type Part = (typeof PARTS)[number];
type Item = { type?: string } & { [P in Part]?: Quantities };
const itemsOf = (obj: KubeObject) => ((obj.spec as { limits?: Item[] } | undefined)?.limits ?? []) as Item[];
const LIMIT_TYPES = ['Pod', 'Container', 'PersistentVolumeClaim'];
/** resource.MaxMilliValue: the largest value whose milli form fits an int64. */
const MAX_MILLI = (2n ** 63n - 1n) / 1000n;
const ONE = parseQuantity('1')!;
const byKey = ([a]: [string, unknown], [b]: [string, unknown]) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The v1 defaults of a Container item: default from max, defaultRequest from default, then from min.
 * Empty maps are dropped, as Go's omitempty leaves them off the wire.
 */
function defaultItems(obj: KubeObject): void {
  for (const item of itemsOf(obj)) {
    if (item.type === 'Container') {
      const def: Quantities = { ...(item.default ?? {}) };
      const req: Quantities = { ...(item.defaultRequest ?? {}) };
      for (const [k, v] of Object.entries(item.max ?? {})) def[k] ??= v;
      for (const [k, v] of Object.entries(def)) req[k] ??= v;
      for (const [k, v] of Object.entries(item.min ?? {})) req[k] ??= v;
      item.default = def;
      item.defaultRequest = req;
    }
    for (const part of PARTS) if (item[part] && Object.keys(item[part]).length === 0) delete item[part];
  }
}

/** validateLimitRangeTypeName: a qualified name, and a standard type unless it has a domain. */
function typeErrors(type: string, at: field.FieldPath): FieldError[] {
  const errs = qualifiedNameErrors(type).map((msg) => field.invalid(at, type, msg));
  if (errs.length === 0 && !type.includes('/') && !LIMIT_TYPES.includes(type)) errs.push(field.invalid(at, type, 'must be a standard limit type or fully qualified'));
  return errs;
}

/** Go's %f: six decimals, and every integer digit however large (toFixed turns exponential at 1e21). */
function goFloat(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : '-Inf';
  return Math.abs(n) < 1e21 ? n.toFixed(6) : `${BigInt(n)}.000000`;
}

/** max/min as upstream computes it: in thousandths while all three fit, else in whole units. */
function maxOverMin(ratio: Quantity, min: Quantity, max: Quantity): { ratio: number; limit: number } {
  if (quantityValue(ratio) < MAX_MILLI && quantityValue(min) < MAX_MILLI && quantityValue(max) < MAX_MILLI) {
    return { ratio: Number(quantityMilliValue(ratio)) / 1000, limit: Number(quantityMilliValue(max)) / Number(quantityMilliValue(min)) };
  }
  return { ratio: Number(quantityValue(ratio)), limit: Number(quantityValue(max)) / Number(quantityValue(min)) };
}

/** The bounds of one resource of one item, checked against each other (upstream's order). */
function boundErrors(k: string, q: Partial<Record<Part, Quantity>>, at: field.FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const s = quantityString;
  const { min, max, default: def, defaultRequest: req, maxLimitRequestRatio: ratio } = q;
  const gt = (a: Quantity | undefined, b: Quantity | undefined) => a !== undefined && b !== undefined && compareQuantities(a, b) > 0;
  if (gt(min, max)) errs.push(field.invalid(at.child('min').key(k), s(min!), `min value ${s(min!)} is greater than max value ${s(max!)}`));
  if (gt(min, req)) errs.push(field.invalid(at.child('defaultRequest').key(k), s(req!), `min value ${s(min!)} is greater than default request value ${s(req!)}`));
  if (gt(req, max)) errs.push(field.invalid(at.child('defaultRequest').key(k), s(req!), `default request value ${s(req!)} is greater than max value ${s(max!)}`));
  if (gt(req, def)) errs.push(field.invalid(at.child('defaultRequest').key(k), s(req!), `default request value ${s(req!)} is greater than default limit value ${s(def!)}`));
  // Upstream shows the min (and the max) as the bad value of these two, not the default.
  if (gt(min, def)) errs.push(field.invalid(at.child('default').key(k), s(min!), `min value ${s(min!)} is greater than default value ${s(def!)}`));
  if (gt(def, max)) errs.push(field.invalid(at.child('default').key(k), s(max!), `default value ${s(def!)} is greater than max value ${s(max!)}`));
  if (ratio && compareQuantities(ratio, ONE) < 0) errs.push(field.invalid(at.child('maxLimitRequestRatio').key(k), s(ratio), `ratio ${s(ratio)} is less than 1`));
  if (ratio && min && max) {
    const r = maxOverMin(ratio, min, max);
    if (r.ratio > r.limit) errs.push(field.invalid(at.child('maxLimitRequestRatio').key(k), s(ratio), `ratio ${s(ratio)} is greater than max/min = ${goFloat(r.limit)}`));
  }
  // Resources that cannot be overcommitted (huge pages, extended resources) need request == limit.
  if (!isOvercommitAllowed(k) && def && req && compareQuantities(def, req) !== 0) {
    errs.push(field.invalid(at.child('defaultRequest').key(k), s(req), `default value ${s(def)} must equal to defaultRequest value ${s(req)} in ${k}`));
  }
  return errs;
}

/** Upstream's ValidateLimitRange (create and update alike). */
function validate(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const seenTypes = new Set<string>();
  itemsOf(obj).forEach((item, i) => {
    const at = field.path('spec', 'limits').index(i);
    const type = item.type ?? '';
    errs.push(...typeErrors(type, at.child('type')));
    if (seenTypes.has(type)) errs.push(field.duplicate(at.child('type'), type));
    seenTypes.add(type);
    const nameErrors = type === 'Pod' || type === 'Container' ? containerResourceNameErrors : resourceNameErrors;
    const parsed: Record<string, Partial<Record<Part, Quantity>>> = {};
    const read = (part: Part) => {
      for (const [k, v] of Object.entries(item[part] ?? {}).sort(byKey)) {
        errs.push(...nameErrors(k, at.child(part).key(k)));
        const entry = (parsed[k] ??= {});
        const q = parseQuantity(v);
        if (q) entry[part] = q;
      }
    };
    read('max');
    read('min');
    if (type === 'Pod') {
      if (Object.keys(item.default ?? {}).length > 0) errs.push(field.forbidden(at.child('default'), "may not be specified when `type` is 'Pod'"));
      if (Object.keys(item.defaultRequest ?? {}).length > 0) errs.push(field.forbidden(at.child('defaultRequest'), "may not be specified when `type` is 'Pod'"));
    } else {
      read('default');
      read('defaultRequest');
    }
    if (type === 'PersistentVolumeClaim' && item.min?.storage === undefined && item.max?.storage === undefined) {
      errs.push(field.required(at.child('limits'), 'either minimum or maximum storage value is required, but neither was provided'));
    }
    read('maxLimitRequestRatio');
    for (const k of Object.keys(parsed).sort()) errs.push(...boundErrors(k, parsed[k]!, at));
  });
  return errs;
}

/** core v1 LimitRange: per-namespace minimums, maximums and defaults of pod, container and claim resources. */
export const limitRanges = defineKind({
  group: '',
  version: 'v1',
  kind: 'LimitRange',
  plural: 'limitranges',
  shortNames: ['limits'],
  namespaced: true,
  schemaMessage: 'k8s.io.api.core.v1.LimitRange',
  // As upstream's strategy: a PUT to a missing limit range creates it.
  allowCreateOnUpdate: true,
  // No tableColumns: upstream serves the default table (Name, Created At).
  strategy: {
    default: (_ctx, obj) => defaultItems(obj),
    // Upstream names a limit range sent without name or generateName with a fresh UUID.
    prepareForCreate: (_ctx, obj) => {
      const meta = (obj.metadata ??= {});
      if (!meta.name) meta.name = randomUUID();
    },
    validate: (_ctx, obj) => validate(obj),
    validateUpdate: (_ctx, obj) => validate(obj),
  },
});
