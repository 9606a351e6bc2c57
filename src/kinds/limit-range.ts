import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { compareQuantities, parseQuantity, quantityMilliValue, quantityString, quantityValue, type Quantity } from '../api/go/quantity.ts';
import { qualifiedNameErrors } from '../api/validation/names.ts';
import { defineKind } from '../registry/kind.ts';
import * as field from '../registry/validation/field.ts';
import { containerResourceNameErrors, isOvercommitAllowed, resourceNameErrors } from './core-resources.ts';

type Quantities = Record<string, string>;
type Item = { type?: string; max?: Quantities; min?: Quantities; default?: Quantities; defaultRequest?: Quantities; maxLimitRequestRatio?: Quantities };
const itemsOf = (obj: KubeObject) => ((obj.spec as { limits?: Item[] } | undefined)?.limits ?? []) as Item[];
const LIMIT_TYPES = ['Pod', 'Container', 'PersistentVolumeClaim'];
const MAX_MILLI = 2n ** 63n / 1000n;
const ONE = parseQuantity('1')!;

/** The v1 defaults of a Container item: default from max, defaultRequest from default, then from min. */
function defaultItems(obj: KubeObject): void {
  for (const item of itemsOf(obj)) {
    if (item.type !== 'Container') continue;
    const def: Quantities = { ...(item.default ?? {}) };
    const req: Quantities = { ...(item.defaultRequest ?? {}) };
    for (const [k, v] of Object.entries(item.max ?? {})) def[k] ??= v;
    for (const [k, v] of Object.entries(def)) req[k] ??= v;
    for (const [k, v] of Object.entries(item.min ?? {})) req[k] ??= v;
    if (Object.keys(def).length > 0) item.default = def;
    if (Object.keys(req).length > 0) item.defaultRequest = req;
  }
}

function typeErrors(type: string, at: field.FieldPath): FieldError[] {
  const errs = qualifiedNameErrors(type).map((msg) => field.invalid(at, type, msg));
  if (errs.length === 0 && !type.includes('/') && !LIMIT_TYPES.includes(type)) errs.push(field.invalid(at, type, 'must be a standard limit type or fully qualified'));
  return errs;
}

/** Go's %f: six decimals. */
const goFloat = (n: number) => (Number.isFinite(n) ? n.toFixed(6) : n > 0 ? '+Inf' : n < 0 ? '-Inf' : 'NaN');

/** Upstream's ValidateLimitRange. */
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
    const keys = new Set<string>();
    const parsed: Record<'max' | 'min' | 'default' | 'defaultRequest' | 'maxLimitRequestRatio', Record<string, Quantity>> = { max: {}, min: {}, default: {}, defaultRequest: {}, maxLimitRequestRatio: {} };
    const read = (part: keyof typeof parsed) => {
      for (const [k, v] of Object.entries(item[part] ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        errs.push(...nameErrors(k, at.child(part).key(k)));
        keys.add(k);
        const q = parseQuantity(v);
        if (q) parsed[part][k] = q;
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
    for (const k of [...keys].sort()) {
      const min = parsed.min[k];
      const max = parsed.max[k];
      const def = parsed.default[k];
      const req = parsed.defaultRequest[k];
      const ratio = parsed.maxLimitRequestRatio[k];
      const s = quantityString;
      if (min && max && compareQuantities(min, max) > 0) errs.push(field.invalid(at.child('min').key(k), s(min), `min value ${s(min)} is greater than max value ${s(max)}`));
      if (req && min && compareQuantities(min, req) > 0) errs.push(field.invalid(at.child('defaultRequest').key(k), s(req), `min value ${s(min)} is greater than default request value ${s(req)}`));
      if (req && max && compareQuantities(req, max) > 0) errs.push(field.invalid(at.child('defaultRequest').key(k), s(req), `default request value ${s(req)} is greater than max value ${s(max)}`));
      if (req && def && compareQuantities(req, def) > 0) errs.push(field.invalid(at.child('defaultRequest').key(k), s(req), `default request value ${s(req)} is greater than default limit value ${s(def)}`));
      // Upstream shows the min (and the max) as the value of these two.
      if (def && min && compareQuantities(min, def) > 0) errs.push(field.invalid(at.child('default').key(k), s(min), `min value ${s(min)} is greater than default value ${s(def)}`));
      if (def && max && compareQuantities(def, max) > 0) errs.push(field.invalid(at.child('default').key(k), s(max), `default value ${s(def)} is greater than max value ${s(max)}`));
      if (ratio && compareQuantities(ratio, ONE) < 0) errs.push(field.invalid(at.child('maxLimitRequestRatio').key(k), s(ratio), `ratio ${s(ratio)} is less than 1`));
      if (ratio && min && max) {
        let ratioValue = Number(quantityValue(ratio));
        let minValue = quantityValue(min);
        let maxValue = quantityValue(max);
        if (quantityValue(ratio) < MAX_MILLI && minValue < MAX_MILLI && maxValue < MAX_MILLI) {
          ratioValue = Number(quantityMilliValue(ratio)) / 1000;
          minValue = quantityMilliValue(min);
          maxValue = quantityMilliValue(max);
        }
        const limit = Number(maxValue) / Number(minValue);
        if (ratioValue > limit) errs.push(field.invalid(at.child('maxLimitRequestRatio').key(k), s(ratio), `ratio ${s(ratio)} is greater than max/min = ${goFloat(limit)}`));
      }
      if (!isOvercommitAllowed(k) && def && req && compareQuantities(def, req) !== 0) {
        errs.push(field.invalid(at.child('defaultRequest').key(k), s(req), `default value ${s(def)} must equal to defaultRequest value ${s(req)} in ${k}`));
      }
    }
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
  strategy: {
    default: (_ctx, obj) => defaultItems(obj),
    validate: (_ctx, obj) => validate(obj),
    validateUpdate: (_ctx, obj) => validate(obj),
  },
});
