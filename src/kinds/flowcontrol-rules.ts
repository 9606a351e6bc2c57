/** Rules FlowSchema and PriorityLevelConfiguration share. */
import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import * as field from '../registry/validation/field.ts';

/** Status conditions: each type set and given once. */
export function flowcontrolConditionErrors(obj: KubeObject): FieldError[] {
  const conditions = ((obj.status as { conditions?: { type?: string }[] } | undefined)?.conditions ?? []);
  const at = field.path('status', 'conditions');
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  conditions.forEach((c, i) => {
    const type = c.type ?? '';
    if (seen.has(type)) errs.push(field.duplicate(at.index(i).child('type'), type));
    seen.add(type);
    if (!type) errs.push(field.required(at.index(i).child('type'), 'must not be empty'));
  });
  return errs;
}
