/** Tolerations and taint effects as core validation judges them (Pod, RuntimeClass). */
import type { FieldError } from '../api/errors.ts';
import { goStruct } from '../api/go/values.ts';
import { labelValueErrors, qualifiedNameErrors } from '../api/validation/names.ts';
import * as field from '../registry/validation/field.ts';

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

export const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** validateTaintEffect: one of the three effects (empty only where allowed). */
export function taintEffectErrors(effect: string | undefined, allowEmpty: boolean, at: field.FieldPath): FieldError[] {
  if (!effect) return allowEmpty ? [] : [field.required(at)];
  return TAINT_EFFECTS.includes(effect) ? [] : [field.notSupported(at, effect, TAINT_EFFECTS)];
}

/** ValidateTolerations. */
export function tolerationsErrors(tolerations: readonly Toleration[] | null | undefined, at: field.FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  (tolerations ?? []).forEach((t, i) => {
    const p = at.index(i);
    const key = t.key ?? '';
    const operator = t.operator ?? '';
    if (key) for (const msg of qualifiedNameErrors(key)) errs.push(field.invalid(p.child('key'), key, msg));
    if (!key && operator !== 'Exists') errs.push(field.invalid(p.child('operator'), operator, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    if (t.tolerationSeconds !== undefined && t.effect !== 'NoExecute') errs.push(field.invalid(p.child('effect'), t.effect ?? '', "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    if (operator === 'Equal' || operator === '') {
      const problems = labelValueErrors(t.value ?? '');
      if (problems.length > 0) errs.push(field.invalid(p.child('operator'), t.value ?? '', problems.join(';')));
    } else if (operator === 'Exists') {
      if (t.value) errs.push(field.invalid(p.child('operator'), tolerationStruct(t), "value must be empty when `operator` is 'Exists'"));
    } else {
      errs.push(field.notSupported(p.child('operator'), operator, ['Equal', 'Exists']));
    }
    if (t.effect) errs.push(...taintEffectErrors(t.effect, true, p.child('effect')));
  });
  return errs;
}

/** A toleration as upstream prints its internal struct in errors. */
export function tolerationStruct(t: Toleration): Record<string, unknown> {
  return goStruct({ Key: t.key ?? '', Operator: t.operator ?? '', Value: t.value ?? '', Effect: t.effect ?? '', TolerationSeconds: t.tolerationSeconds ?? null });
}
