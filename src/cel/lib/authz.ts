/**
 * Kubernetes' authorizer library (with the selectors GA in 1.34): building a path or resource
 * check from `authorizer`, asking it with check(verb), and reading the Decision. The asking is the
 * caller's (an async function); an evaluation that reaches a check it has no answer for stops with
 * NeedsAuthorization and is run again once the answer is in (see program.ts).
 */
import { dns1123LabelErrors, dns1123SubdomainErrors } from '../../api/validation/names.ts';
import { evalError } from '../errors.ts';
import { NeedsAuthorization, type AuthorizationDecision, type EvalState } from '../runtime/state.ts';
import { actualSize, CelObject, type CelValue } from '../values.ts';
import { ceilCost, LIST_CREATE, member, STRING_TRAVERSAL, STRUCT_CREATE, type Overload } from './overload.ts';

/** Who asks (the request's user, or a service account named with serviceAccount()). */
export interface AuthzUser {
  readonly name: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** One authorization question, as the library builds an AttributesRecord. */
export interface AuthorizationRequest {
  readonly user: AuthzUser;
  readonly verb: string;
  readonly resourceRequest: boolean;
  readonly path: string;
  readonly group: string;
  /** Always `*`: the library asks about every version. */
  readonly apiVersion: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
  /** The selectors as written; parsing them (and reporting their errors) is the authorizer's. */
  readonly fieldSelector: string;
  readonly labelSelector: string;
}

export type Authorize = (request: AuthorizationRequest) => Promise<AuthorizationDecision>;

abstract class AuthzObject extends CelObject {
  equals(other: CelValue): boolean | undefined {
    return other === this ? true : other instanceof AuthzObject && other.typeName === this.typeName ? false : undefined;
  }
}

export class CelAuthorizer extends AuthzObject {
  readonly typeName = 'kubernetes.authorization.Authorizer';
  constructor(
    readonly user: AuthzUser,
    readonly authorize: Authorize,
  ) {
    super();
  }
}

export class CelPathCheck extends AuthzObject {
  readonly typeName = 'kubernetes.authorization.PathCheck';
  constructor(
    readonly authorizer: CelAuthorizer,
    readonly path: string,
  ) {
    super();
  }
}

export class CelGroupCheck extends AuthzObject {
  readonly typeName = 'kubernetes.authorization.GroupCheck';
  constructor(
    readonly authorizer: CelAuthorizer,
    readonly group: string,
  ) {
    super();
  }
}

export interface ResourceFields {
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
  readonly fieldSelector: string;
  readonly labelSelector: string;
}

export class CelResourceCheck extends AuthzObject {
  readonly typeName = 'kubernetes.authorization.ResourceCheck';
  constructor(
    readonly authorizer: CelAuthorizer,
    readonly group: string,
    readonly resource: string,
    readonly fields: ResourceFields,
  ) {
    super();
  }
  with(change: Partial<ResourceFields>): CelResourceCheck {
    return new CelResourceCheck(this.authorizer, this.group, this.resource, { ...this.fields, ...change });
  }
}

export class CelDecision extends AuthzObject {
  readonly typeName = 'kubernetes.authorization.Decision';
  constructor(readonly answer: AuthorizationDecision) {
    super();
  }
}

const EMPTY_FIELDS: ResourceFields = { subresource: '', namespace: '', name: '', fieldSelector: '', labelSelector: '' };

/** `authorizer.requestResource`: the check for what the admission request itself addresses. */
export function requestResourceCheck(a: CelAuthorizer, r: { group: string; resource: string; subresource?: string; namespace?: string; name?: string }): CelResourceCheck {
  return new CelResourceCheck(a, r.group, r.resource, { ...EMPTY_FIELDS, subresource: r.subresource ?? '', namespace: r.namespace ?? '', name: r.name ?? '' });
}

/** The answer for a request: known from an earlier run of this evaluation, or asked for. */
function ask(s: EvalState, request: AuthorizationRequest, authorize: Authorize): CelDecision {
  const key = JSON.stringify(request);
  const known = s.decisions.get(key);
  if (known) return new CelDecision(known);
  throw new NeedsAuthorization(key, () => authorize(request));
}

function serviceAccount(a: CelAuthorizer, namespace: string, name: string): CelAuthorizer {
  if (dns1123SubdomainErrors(name).length > 0) throw evalError('Invalid service account name');
  if (dns1123LabelErrors(namespace).length > 0) throw evalError('Invalid service account namespace');
  return new CelAuthorizer({ name: `system:serviceaccount:${namespace}:${name}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`] }, a.authorize);
}

const A = 'kubernetes.authorization.Authorizer';
const P = 'kubernetes.authorization.PathCheck';
const G = 'kubernetes.authorization.GroupCheck';
const R = 'kubernetes.authorization.ResourceCheck';
const D = 'kubernetes.authorization.Decision';
const one = { cost: () => 1 };
const r = (v: CelValue | undefined) => v as CelResourceCheck;
const d = (v: CelValue | undefined) => (v as CelDecision).answer;

/** Kubernetes' estimate for a selector: parsing it, and a list and a struct per requirement (one per two characters). */
const selectorCost = (args: readonly CelValue[]) => {
  const len = actualSize(args[1]!);
  return LIST_CREATE + ceilCost(len, STRING_TRAVERSAL) + ceilCost(ceilCost(len, 0.5), LIST_CREATE + STRUCT_CREATE);
};

export const authzOverloads: readonly Overload[] = [
  member('authorizer_path', 'path', [A, 'string'], P, ([a, p]) => {
    if ((p as string).trim() === '') throw evalError('path must not be empty');
    return new CelPathCheck(a as CelAuthorizer, p as string);
  }, one),
  member('authorizer_group', 'group', [A, 'string'], G, ([a, g]) => new CelGroupCheck(a as CelAuthorizer, g as string), one),
  member('authorizer_serviceaccount', 'serviceAccount', [A, 'string', 'string'], A, ([a, ns, n]) => serviceAccount(a as CelAuthorizer, ns as string, n as string), one),
  member('groupcheck_resource', 'resource', [G, 'string'], R, ([g, res]) => {
    if ((res as string).trim() === '') throw evalError('resource must not be empty');
    const gc = g as CelGroupCheck;
    return new CelResourceCheck(gc.authorizer, gc.group, res as string, EMPTY_FIELDS);
  }, one),
  member('resourcecheck_subresource', 'subresource', [R, 'string'], R, ([x, v]) => r(x).with({ subresource: v as string }), one),
  member('resourcecheck_namespace', 'namespace', [R, 'string'], R, ([x, v]) => r(x).with({ namespace: v as string }), one),
  member('resourcecheck_name', 'name', [R, 'string'], R, ([x, v]) => r(x).with({ name: v as string }), one),
  member('authorizer_fieldselector', 'fieldSelector', [R, 'string'], R, ([x, v]) => r(x).with({ fieldSelector: v as string }), { cost: selectorCost }),
  member('authorizer_labelselector', 'labelSelector', [R, 'string'], R, ([x, v]) => r(x).with({ labelSelector: v as string }), { cost: selectorCost }),
  member('pathcheck_check', 'check', [P, 'string'], D, ([x, verb], s) => {
    const p = x as CelPathCheck;
    const req = { user: p.authorizer.user, verb: verb as string, resourceRequest: false, path: p.path, group: '', apiVersion: '', resource: '', ...EMPTY_FIELDS };
    return ask(s, req, p.authorizer.authorize);
  }, { cost: () => 350000 }),
  member('resourcecheck_check', 'check', [R, 'string'], D, ([x, verb], s) => {
    const rc = r(x);
    const req = { user: rc.authorizer.user, verb: verb as string, resourceRequest: true, path: '', group: rc.group, apiVersion: '*', resource: rc.resource, ...rc.fields };
    return ask(s, req, rc.authorizer.authorize);
  }, { cost: () => 350000 }),
  member('decision_errored', 'errored', [D], 'bool', ([x]) => d(x).error !== undefined, one),
  member('decision_error', 'error', [D], 'string', ([x]) => d(x).error ?? '', one),
  member('decision_allowed', 'allowed', [D], 'bool', ([x]) => d(x).decision === 'allow', one),
  member('decision_reason', 'reason', [D], 'string', ([x]) => d(x).reason, one),
];
