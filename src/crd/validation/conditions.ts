/**
 * The decisions of apiextensions' status controllers, as pure functions the future CRD controller
 * applies: the naming controller (accepted names and `NamesAccepted`, and `Established` False
 * until names are accepted), the establishing controller (`Established` True), the API approval
 * controller (`KubernetesAPIApprovalPolicyConformant`) and the non-structural schema controller.
 */
import { goQuote } from '../../api/go/quote.ts';
import { deepEqualJson } from '../schema/json.ts';
import { nonStructuralSchemaCondition } from '../schema/index.ts';
import { apiApprovalState, isProtectedCommunityGroup } from './api-approval.ts';
import { caBundleProblem } from './conversion.ts';
import type { CrdCondition, CrdNames, CustomResourceDefinition } from './types.ts';

export interface NamingResult {
  acceptedNames: CrdNames;
  namesAccepted: CrdCondition;
  established: CrdCondition;
}

export function findCondition(crd: CustomResourceDefinition, type: string): CrdCondition | undefined {
  return (crd.status?.conditions ?? []).find((c) => c?.type === type);
}

export const isConditionTrue = (crd: CustomResourceDefinition, type: string) => findCondition(crd, type)?.status === 'True';

/** The names every CRD of a group has been granted (getAcceptedNamesForGroup); `crds` may include `crd` itself. */
function namesInUse(group: string, crds: readonly CustomResourceDefinition[]): { resources: Set<string>; kinds: Set<string> } {
  const resources = new Set<string>();
  const kinds = new Set<string>();
  for (const c of crds) {
    if ((c.spec?.group ?? '') !== group) continue;
    const a = c.status?.acceptedNames ?? {};
    resources.add(a.plural ?? '');
    resources.add(a.singular ?? '');
    for (const s of a.shortNames ?? []) resources.add(s);
    kinds.add(a.kind ?? '');
    kinds.add(a.listKind ?? '');
  }
  return { resources, kinds };
}

/** A name is fine when it is the one already accepted, or nobody in the group has it. */
function conflict(requested: string, accepted: string, used: Set<string>): string | undefined {
  if (requested === accepted || !used.has(requested)) return undefined;
  return `${goQuote(requested)} is already in use`;
}

/**
 * calculateNamesAndConditions: the names `crd` may have given the accepted names of the CRDs of its
 * group (as stored, the latest update of each), the NamesAccepted condition, and Established as
 * the naming controller leaves it (False `NotAccepted` initially, `Installing` once names are
 * accepted and it is not yet True, otherwise unchanged).
 */
export function calculateNamesAndConditions(crd: CustomResourceDefinition, groupCrds: readonly CustomResourceDefinition[]): NamingResult {
  const { resources, kinds } = namesInUse(crd.spec?.group ?? '', groupCrds);
  const requested = crd.spec?.names ?? {};
  const accepted = crd.status?.acceptedNames ?? {};
  const next: CrdNames = { ...accepted };
  let namesAccepted: CrdCondition = { type: 'NamesAccepted', status: 'Unknown' };
  const refuse = (reason: string, message: string) => {
    namesAccepted = { type: 'NamesAccepted', status: 'False', reason, message };
  };

  let c = conflict(requested.plural ?? '', accepted.plural ?? '', resources);
  if (c) refuse('PluralConflict', c);
  else next.plural = requested.plural ?? '';
  c = conflict(requested.singular ?? '', accepted.singular ?? '', resources);
  if (c) refuse('SingularConflict', c);
  else next.singular = requested.singular ?? '';
  if (!deepEqualJson(requested.shortNames ?? null, accepted.shortNames ?? null)) {
    const existing = new Set(accepted.shortNames ?? []);
    const problems: string[] = [];
    for (const s of requested.shortNames ?? []) {
      if (existing.has(s)) continue;
      const p = conflict(s, '', resources);
      if (p) problems.push(p);
    }
    // utilerrors.NewAggregate prints one error bare and several as a list.
    if (problems.length > 0) refuse('ShortNamesConflict', problems.length === 1 ? problems[0]! : `[${problems.join(', ')}]`);
    else if (requested.shortNames === undefined) delete next.shortNames;
    else next.shortNames = requested.shortNames;
  }
  c = conflict(requested.kind ?? '', accepted.kind ?? '', kinds);
  if (c) refuse('KindConflict', c);
  else next.kind = requested.kind ?? '';
  c = conflict(requested.listKind ?? '', accepted.listKind ?? '', kinds);
  if (c) refuse('ListKindConflict', c);
  else next.listKind = requested.listKind ?? '';
  if (requested.categories === undefined) delete next.categories;
  else next.categories = requested.categories;

  if (namesAccepted.status === 'Unknown') namesAccepted = { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' };

  let established: CrdCondition = { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' };
  const old = findCondition(crd, 'Established');
  if (old) established = { ...old };
  if (established.status !== 'True' && namesAccepted.status === 'True') {
    established = { type: 'Established', status: 'False', reason: 'Installing', message: 'the initial names have been accepted' };
  }
  return { acceptedNames: next, namesAccepted, established };
}

/** The naming controller skips a CRD whose accepted names already equal its requested ones. */
export function namesUpToDate(crd: CustomResourceDefinition): boolean {
  return deepEqualJson(normalizeNames(crd.spec?.names ?? {}), normalizeNames(crd.status?.acceptedNames ?? {}));
}

function normalizeNames(n: CrdNames): CrdNames {
  const out: CrdNames = { plural: n.plural ?? '', singular: n.singular ?? '', kind: n.kind ?? '', listKind: n.listKind ?? '' };
  if (n.shortNames?.length) out.shortNames = n.shortNames;
  if (n.categories?.length) out.categories = n.categories;
  return out;
}

/**
 * The establishing controller: once NamesAccepted is True and Established is not, Established
 * becomes True (`InitialNamesAccepted`), or False `InvalidCABundle` when the conversion webhook's
 * CA bundle cannot be used. Undefined when there is nothing to do.
 */
export function establishedCondition(crd: CustomResourceDefinition): CrdCondition | undefined {
  if (!isConditionTrue(crd, 'NamesAccepted') || isConditionTrue(crd, 'Established')) return undefined;
  const caBundle = crd.spec?.conversion?.webhook?.clientConfig ? (crd.spec.conversion.webhook.clientConfig.caBundle ?? '') : undefined;
  if (caBundle !== undefined && caBundle !== '' && caBundleProblem(caBundle)) {
    return { type: 'Established', status: 'False', reason: 'InvalidCABundle', message: 'The conversion webhook CABundle is invalid' };
  }
  return { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' };
}

/** The API approval controller's condition; undefined outside the protected groups. */
export function apiApprovalCondition(crd: CustomResourceDefinition): CrdCondition | undefined {
  if (!isProtectedCommunityGroup(crd.spec?.group ?? '')) return undefined;
  const { state, reason } = apiApprovalState(crd.metadata?.annotations);
  const type = 'KubernetesAPIApprovalPolicyConformant';
  switch (state) {
    case 'Invalid':
      return { type, status: 'False', reason: 'InvalidAnnotation', message: reason };
    case 'Missing':
      return { type, status: 'False', reason: 'MissingAnnotation', message: reason };
    case 'Approved':
      return { type, status: 'True', reason: 'ApprovedAnnotation', message: reason };
    case 'Bypassed':
      return { type, status: 'False', reason: 'UnapprovedAnnotation', message: reason };
  }
}

/** The NonStructuralSchema condition (undefined: remove it). */
export function nonStructuralCondition(crd: CustomResourceDefinition): CrdCondition | undefined {
  const versions = (crd.spec?.versions ?? []).map((v) => ({ name: v?.name ?? '', ...(v?.schema ? { schema: v.schema } : {}) }));
  return nonStructuralSchemaCondition({ preserveUnknownFields: crd.spec?.preserveUnknownFields === true, versions });
}

/**
 * SetCRDCondition: replaces the condition of the same type (keeping its lastTransitionTime unless
 * the status changed or it had none) or appends it. Returns the new list.
 */
export function setCondition(conditions: readonly CrdCondition[] | undefined, next: CrdCondition, now: string): CrdCondition[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === next.type);
  if (i < 0) return [...list, { ...next, lastTransitionTime: now }];
  const old = list[i]!;
  const time = old.status !== next.status || !old.lastTransitionTime ? now : old.lastTransitionTime;
  list[i] = { type: next.type, status: next.status, lastTransitionTime: time, reason: next.reason ?? '', message: next.message ?? '' };
  return list;
}

/** IsCRDConditionEquivalent: same type, status, reason and message. */
export function conditionEquivalent(a: CrdCondition | undefined, b: CrdCondition | undefined): boolean {
  if (!a || !b) return a === b;
  return a.type === b.type && a.status === b.status && (a.reason ?? '') === (b.reason ?? '') && (a.message ?? '') === (b.message ?? '');
}
