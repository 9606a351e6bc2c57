import type { FieldError } from '../../api/errors.ts';
import { labelValueErrors, qualifiedNameErrors } from '../../api/validation/names.ts';
import * as field from './field.ts';

/** A metav1.LabelSelector as JSON carries it. */
export interface LabelSelectorValue {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: { key?: string; operator?: string; values?: string[] | null }[] | null;
}

/** Label keys and values of a map (upstream's ValidateLabels): every error names the map. */
export function labelMapErrors(labels: Record<string, string> | null | undefined, at: field.PathLike): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(labels ?? {})) {
    for (const msg of qualifiedNameErrors(k)) errs.push(field.invalid(at, k, msg));
    for (const msg of labelValueErrors(v)) errs.push(field.invalid(at, v, msg));
  }
  return errs;
}

/**
 * A label selector, as apimachinery's ValidateLabelSelector judges it: its matchLabels, and each
 * expression's operator (In and NotIn need values, Exists and DoesNotExist may have none), key and values.
 */
export function labelSelectorErrors(selector: LabelSelectorValue | null | undefined, at: field.FieldPath): FieldError[] {
  if (!selector) return [];
  const errs = labelMapErrors(selector.matchLabels, at.child('matchLabels'));
  (selector.matchExpressions ?? []).forEach((expr, i) => {
    const p = at.child('matchExpressions').index(i);
    const values = expr.values ?? [];
    switch (expr.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) errs.push(field.required(p.child('values'), "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) errs.push(field.forbidden(p.child('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errs.push(field.invalid(p.child('operator'), expr.operator ?? '', 'not a valid selector operator'));
    }
    for (const msg of qualifiedNameErrors(expr.key ?? '')) errs.push(field.invalid(p.child('key'), expr.key ?? '', msg));
    values.forEach((v, j) => {
      for (const msg of labelValueErrors(v)) errs.push(field.invalid(p.child('values').index(j), v, msg));
    });
  });
  return errs;
}

/**
 * A selector as `kubectl get` columns show it (metav1.FormatLabelSelector): its requirements sorted by
 * key, `k=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`, joined by commas; `<none>` when it selects
 * everything or is unset.
 */
export function formatLabelSelector(selector: LabelSelectorValue | null | undefined): string {
  if (!selector) return '<none>';
  const reqs: { key: string; text: string }[] = [];
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) reqs.push({ key: k, text: `${k}=${v}` });
  for (const e of selector.matchExpressions ?? []) {
    const key = e.key ?? '';
    const values = [...(e.values ?? [])].sort().join(',');
    if (e.operator === 'In') reqs.push({ key, text: `${key} in (${values})` });
    else if (e.operator === 'NotIn') reqs.push({ key, text: `${key} notin (${values})` });
    else if (e.operator === 'Exists') reqs.push({ key, text: key });
    else if (e.operator === 'DoesNotExist') reqs.push({ key, text: `!${key}` });
    else return '<error>';
  }
  reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return reqs.map((r) => r.text).join(',') || '<none>';
}
