/**
 * metav1.Condition lists as apimachinery's ValidateConditions judges them (the `conditions` of
 * newer kinds' status): unique types that are qualified names, a known status, a set transition
 * time, a reason of the condition-reason form, bounded reason and message lengths.
 */
import type { FieldError } from '../../api/errors.ts';
import { qualifiedNameErrors, regexError } from '../../api/validation/names.ts';
import * as field from './field.ts';

export interface ConditionValue {
  type?: string;
  status?: string;
  observedGeneration?: number;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

const STATUSES = ['False', 'True', 'Unknown'];
const REASON_FMT = '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?';
const REASON_RE = new RegExp(`^${REASON_FMT}$`);
const REASON_MSG = "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'";
const MAX_REASON = 1024;
const MAX_MESSAGE = 32 * 1024;

export function conditionErrors(condition: ConditionValue, at: field.FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const type = condition.type ?? '';
  for (const msg of qualifiedNameErrors(type)) errs.push(field.invalid(at.child('type'), type, msg));
  if (!STATUSES.includes(condition.status ?? '')) errs.push(field.notSupported(at.child('status'), condition.status ?? '', STATUSES));
  if ((condition.observedGeneration ?? 0) < 0) errs.push(field.invalid(at.child('observedGeneration'), condition.observedGeneration, 'must be greater than or equal to zero'));
  if (!condition.lastTransitionTime) errs.push(field.required(at.child('lastTransitionTime'), 'must be set'));
  const reason = condition.reason ?? '';
  if (reason === '') {
    errs.push(field.required(at.child('reason'), 'must be set'));
  } else {
    if (!REASON_RE.test(reason)) errs.push(field.invalid(at.child('reason'), reason, regexError(REASON_MSG, REASON_FMT, 'my_name', 'MY_NAME', 'MyName', 'ReasonA,ReasonB', 'ReasonA:ReasonB')));
    if (reason.length > MAX_REASON) errs.push(field.tooLong(at.child('reason'), MAX_REASON));
  }
  if ((condition.message ?? '').length > MAX_MESSAGE) errs.push(field.tooLong(at.child('message'), MAX_MESSAGE));
  return errs;
}

export function conditionsErrors(conditions: readonly ConditionValue[] | null | undefined, at: field.FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  (conditions ?? []).forEach((c, i) => {
    const type = c.type ?? '';
    if (seen.has(type)) errs.push(field.duplicate(at.index(i).child('type'), type));
    else seen.add(type);
    errs.push(...conditionErrors(c, at.index(i)));
  });
  return errs;
}
