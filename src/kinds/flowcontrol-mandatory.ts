/**
 * The mandatory API priority and fairness objects (`exempt` and `catch-all`, from upstream's
 * apiserver bootstrap configuration), whose specs are fixed: validation refuses any other spec under
 * their names. Only the exempt priority level's `spec.exempt` may be tuned.
 */
import type { FieldError } from '../api/errors.ts';
import * as field from '../registry/validation/field.ts';
import { exemptStruct, flowSchemaSpecStruct, priorityLevelSpecStruct, semanticallyEqual } from './flowcontrol-internal.ts';

const EVERYTHING = {
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
};
const group = (name: string) => ({ kind: 'Group', group: { name } });

const FLOW_SCHEMAS: Readonly<Record<string, unknown>> = {
  exempt: {
    priorityLevelConfiguration: { name: 'exempt' },
    matchingPrecedence: 1,
    rules: [{ subjects: [group('system:masters')], ...EVERYTHING }],
  },
  'catch-all': {
    priorityLevelConfiguration: { name: 'catch-all' },
    matchingPrecedence: 10000,
    distinguisherMethod: { type: 'ByUser' },
    rules: [{ subjects: [group('system:unauthenticated'), group('system:authenticated')], ...EVERYTHING }],
  },
};

const PRIORITY_LEVELS: Readonly<Record<string, unknown>> = {
  exempt: { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } },
  'catch-all': { type: 'Limited', limited: { nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: 'Reject' } } },
};

/** The error, if any, for a FlowSchema named after a mandatory one whose spec differs. */
export function mandatoryFlowSchemaErrors(name: string, spec: unknown): FieldError[] {
  const fixed = FLOW_SCHEMAS[name];
  if (fixed === undefined) return [];
  const have = flowSchemaSpecStruct(spec);
  if (semanticallyEqual(have, flowSchemaSpecStruct(fixed))) return [];
  return [field.invalid(field.path('spec'), have, `spec of '${name}' must equal the fixed value`)];
}

/** The error, if any, for a PriorityLevelConfiguration named after a mandatory one whose spec differs. */
export function mandatoryPriorityLevelErrors(name: string, spec: unknown): FieldError[] {
  const fixed = PRIORITY_LEVELS[name];
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
