/**
 * The FlowSchema and PriorityLevelConfiguration objects (flowcontrol.apiserver.k8s.io/v1, as stored
 * and defaulted) read into the plain shapes the classifier and the priority levels work with. The
 * objects passed validation, but they are read defensively: a missing field reads as Go's zero value.
 */
import type { KubeObject } from '../api/types.ts';

export interface SubjectSpec {
  readonly kind: string;
  readonly user?: { readonly name: string };
  readonly group?: { readonly name: string };
  readonly serviceAccount?: { readonly namespace: string; readonly name: string };
}

export interface ResourceRuleSpec {
  readonly verbs: readonly string[];
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly clusterScope: boolean;
  readonly namespaces: readonly string[];
}

export interface NonResourceRuleSpec {
  readonly verbs: readonly string[];
  readonly nonResourceURLs: readonly string[];
}

export interface PolicyRulesSpec {
  readonly subjects: readonly SubjectSpec[];
  readonly resourceRules: readonly ResourceRuleSpec[];
  readonly nonResourceRules: readonly NonResourceRuleSpec[];
}

export type Distinguisher = 'ByUser' | 'ByNamespace' | '';

export interface FlowSchemaConfig {
  readonly name: string;
  readonly uid: string;
  readonly matchingPrecedence: number;
  readonly priorityLevelName: string;
  /** '' when the schema has no distinguisherMethod: all its requests are one flow. */
  readonly distinguisher: Distinguisher;
  readonly rules: readonly PolicyRulesSpec[];
}

export interface QueuingSpec {
  readonly queues: number;
  readonly handSize: number;
  readonly queueLengthLimit: number;
}

export interface LimitedSpec {
  readonly nominalConcurrencyShares: number;
  readonly lendablePercent?: number;
  readonly borrowingLimitPercent?: number;
  readonly limitResponse: { readonly type: string; readonly queuing?: QueuingSpec };
}

export interface ExemptSpec {
  readonly nominalConcurrencyShares?: number;
  readonly lendablePercent?: number;
}

export interface PriorityLevelConfig {
  readonly name: string;
  readonly uid: string;
  readonly type: string;
  readonly limited?: LimitedSpec;
  readonly exempt?: ExemptSpec;
}

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const optNum = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(str) : []);
const list = <T>(v: unknown, each: (x: Obj) => T): T[] => (Array.isArray(v) ? v.map((x) => each(asObj(x) ?? {})) : []);

function subject(s: Obj): SubjectSpec {
  const user = asObj(s.user);
  const group = asObj(s.group);
  const sa = asObj(s.serviceAccount);
  return {
    kind: str(s.kind),
    ...(user ? { user: { name: str(user.name) } } : {}),
    ...(group ? { group: { name: str(group.name) } } : {}),
    ...(sa ? { serviceAccount: { namespace: str(sa.namespace), name: str(sa.name) } } : {}),
  };
}

function rules(r: Obj): PolicyRulesSpec {
  return {
    subjects: list(r.subjects, subject),
    resourceRules: list(r.resourceRules, (rr) => ({
      verbs: strings(rr.verbs),
      apiGroups: strings(rr.apiGroups),
      resources: strings(rr.resources),
      clusterScope: rr.clusterScope === true,
      namespaces: strings(rr.namespaces),
    })),
    nonResourceRules: list(r.nonResourceRules, (nr) => ({ verbs: strings(nr.verbs), nonResourceURLs: strings(nr.nonResourceURLs) })),
  };
}

export function readFlowSchema(obj: KubeObject): FlowSchemaConfig {
  const spec = asObj(obj.spec) ?? {};
  const method = str(asObj(spec.distinguisherMethod)?.type);
  return {
    name: obj.metadata?.name ?? '',
    uid: obj.metadata?.uid ?? '',
    matchingPrecedence: num(spec.matchingPrecedence),
    priorityLevelName: str(asObj(spec.priorityLevelConfiguration)?.name),
    distinguisher: method === 'ByUser' || method === 'ByNamespace' ? method : '',
    rules: list(spec.rules, rules),
  };
}

export function readPriorityLevel(obj: KubeObject): PriorityLevelConfig {
  const spec = asObj(obj.spec) ?? {};
  const limited = asObj(spec.limited);
  const exempt = asObj(spec.exempt);
  const response = asObj(limited?.limitResponse) ?? {};
  const queuing = asObj(response.queuing);
  return {
    name: obj.metadata?.name ?? '',
    uid: obj.metadata?.uid ?? '',
    type: str(spec.type),
    ...(limited
      ? {
          limited: {
            nominalConcurrencyShares: num(limited.nominalConcurrencyShares),
            ...optional('lendablePercent', optNum(limited.lendablePercent)),
            ...optional('borrowingLimitPercent', optNum(limited.borrowingLimitPercent)),
            limitResponse: {
              type: str(response.type),
              ...(queuing ? { queuing: { queues: num(queuing.queues), handSize: num(queuing.handSize), queueLengthLimit: num(queuing.queueLengthLimit) } } : {}),
            },
          },
        }
      : {}),
    ...(exempt
      ? {
          exempt: {
            ...optional('nominalConcurrencyShares', optNum(exempt.nominalConcurrencyShares)),
            ...optional('lendablePercent', optNum(exempt.lendablePercent)),
          },
        }
      : {}),
  };
}

function optional<K extends string>(key: K, value: number | undefined): { [P in K]?: number } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]?: number });
}

/**
 * The shares, lendable percent and borrowing limit percent of a level (upstream's plSpecCommons):
 * the exempt level's shares default to 0 and it has no borrowing limit.
 */
export function levelCommons(pl: PriorityLevelConfig): { shares: number; lendablePercent?: number; borrowingLimitPercent?: number } {
  if (pl.limited) {
    return {
      shares: pl.limited.nominalConcurrencyShares,
      ...optional('lendablePercent', pl.limited.lendablePercent),
      ...optional('borrowingLimitPercent', pl.limited.borrowingLimitPercent),
    };
  }
  return { shares: pl.exempt?.nominalConcurrencyShares ?? 0, ...optional('lendablePercent', pl.exempt?.lendablePercent) };
}
