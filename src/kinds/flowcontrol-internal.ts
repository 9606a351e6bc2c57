/**
 * FlowSchema and PriorityLevelConfiguration specs in the shape of upstream's internal Go structs.
 * Upstream compares the mandatory objects' specs with semantic equality (a missing list equals an
 * empty one, a missing scalar its zero value, a missing pointer is nil) and prints the whole spec in
 * the error as json.Marshal prints an internal struct (Go field names, declaration order, no omitempty).
 */
import { goStruct } from '../api/go/values.ts';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const ptr = (v: unknown): number | null => (typeof v === 'number' ? v : null);
/** A Go slice: nil when absent, else its members. */
const list = <T>(v: unknown, each: (x: unknown) => T): T[] | null => (Array.isArray(v) ? v.map(each) : null);
const strings = (v: unknown) => list(v, str);

function subject(v: unknown) {
  const s = obj(v) ?? {};
  const named = (x: unknown) => (obj(x) ? goStruct({ Name: str(obj(x)!.name) }) : null);
  const sa = obj(s.serviceAccount);
  return goStruct({
    Kind: str(s.kind),
    User: named(s.user),
    Group: named(s.group),
    ServiceAccount: sa ? goStruct({ Namespace: str(sa.namespace), Name: str(sa.name) }) : null,
  });
}

function rule(v: unknown) {
  const r = obj(v) ?? {};
  return goStruct({
    Subjects: list(r.subjects, subject),
    ResourceRules: list(r.resourceRules, (x) => {
      const rr = obj(x) ?? {};
      return goStruct({ Verbs: strings(rr.verbs), APIGroups: strings(rr.apiGroups), Resources: strings(rr.resources), ClusterScope: rr.clusterScope === true, Namespaces: strings(rr.namespaces) });
    }),
    NonResourceRules: list(r.nonResourceRules, (x) => {
      const nr = obj(x) ?? {};
      return goStruct({ Verbs: strings(nr.verbs), NonResourceURLs: strings(nr.nonResourceURLs) });
    }),
  });
}

/** flowcontrol.FlowSchemaSpec of a (defaulted) v1 spec. */
export function flowSchemaSpecStruct(v: unknown) {
  const s = obj(v) ?? {};
  const dm = obj(s.distinguisherMethod);
  return goStruct({
    PriorityLevelConfiguration: goStruct({ Name: str(obj(s.priorityLevelConfiguration)?.name) }),
    MatchingPrecedence: num(s.matchingPrecedence),
    DistinguisherMethod: dm ? goStruct({ Type: str(dm.type) }) : null,
    Rules: list(s.rules, rule),
  });
}

function limited(v: unknown) {
  const l = obj(v);
  if (!l) return null;
  const response = obj(l.limitResponse) ?? {};
  const q = obj(response.queuing);
  return goStruct({
    NominalConcurrencyShares: num(l.nominalConcurrencyShares),
    LimitResponse: goStruct({
      Type: str(response.type),
      Queuing: q ? goStruct({ Queues: num(q.queues), HandSize: num(q.handSize), QueueLengthLimit: num(q.queueLengthLimit) }) : null,
    }),
    LendablePercent: ptr(l.lendablePercent),
    BorrowingLimitPercent: ptr(l.borrowingLimitPercent),
  });
}

/** flowcontrol.ExemptPriorityLevelConfiguration, or nil. */
export function exemptStruct(v: unknown) {
  const e = obj(v);
  return e ? goStruct({ NominalConcurrencyShares: ptr(e.nominalConcurrencyShares), LendablePercent: ptr(e.lendablePercent) }) : null;
}

/** flowcontrol.PriorityLevelConfigurationSpec of a (defaulted) v1 spec. */
export function priorityLevelSpecStruct(v: unknown) {
  const s = obj(v) ?? {};
  return goStruct({ Type: str(s.type), Limited: limited(s.limited), Exempt: exemptStruct(s.exempt) });
}

/** apiequality.Semantic.DeepEqual of two structs built above: nil and empty slices are equal. */
export function semanticallyEqual(a: unknown, b: unknown): boolean {
  const key = (v: unknown) => JSON.stringify(v, (_k, x: unknown) => (Array.isArray(x) && x.length === 0 ? null : x));
  return key(a) === key(b);
}
