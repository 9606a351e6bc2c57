/**
 * The mandatory API priority and fairness objects (`exempt` and `catch-all`, whose specs are in
 * src/flowcontrol/bootstrap/default-objects.ts) are fixed: validation refuses any other spec under
 * their names. Only the exempt priority level's `spec.exempt` may be tuned.
 */
import type { FieldError } from '../api/errors.ts';
import * as field from '../registry/validation/field.ts';
import { mandatoryFlowSchemaSpec, mandatoryPriorityLevelSpec } from '../flowcontrol/bootstrap/default-objects.ts';
import { exemptStruct, flowSchemaSpecStruct, priorityLevelSpecStruct, semanticallyEqual } from './flowcontrol-internal.ts';

/** The error, if any, for a FlowSchema named after a mandatory one whose spec differs. */
export function mandatoryFlowSchemaErrors(name: string, spec: unknown): FieldError[] {
  const fixed = mandatoryFlowSchemaSpec(name);
  if (fixed === undefined) return [];
  const have = flowSchemaSpecStruct(spec);
  if (semanticallyEqual(have, flowSchemaSpecStruct(fixed))) return [];
  return [field.invalid(field.path('spec'), have, `spec of '${name}' must equal the fixed value`)];
}

/** The error, if any, for a PriorityLevelConfiguration named after a mandatory one whose spec differs. */
export function mandatoryPriorityLevelErrors(name: string, spec: unknown): FieldError[] {
  const fixed = mandatoryPriorityLevelSpec(name);
  if (fixed === undefined) return [];
  const have = priorityLevelSpecStruct(spec);
  const want = priorityLevelSpecStruct(fixed);
  if (name === 'exempt') {
    // Everything but spec.exempt is compared: the exempt level's shares and lendable percent are the admin's.
    if (semanticallyEqual(want, { ...have, Exempt: exemptStruct((fixed as { exempt: unknown }).exempt) })) return [];
    return [field.invalid(field.path('spec'), have, "spec of 'exempt' except the 'spec.exempt' field must equal the fixed value")];
  }
  if (semanticallyEqual(have, want)) return [];
  return [field.invalid(field.path('spec'), have, `spec of '${name}' must equal the fixed value`)];
}
