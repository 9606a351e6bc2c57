import type { RequestInfo } from '../../api/request-info.ts';
import type { UserInfo } from '../user.ts';
import type { SubjectRules } from './rules.ts';

export type Decision = 'allow' | 'deny' | 'noOpinion';

/** What authorization looks at: the user and the request's attributes. */
export interface Attributes {
  readonly user: UserInfo;
  readonly request: RequestInfo;
}

/** One authorizer's answer: its decision and, for deny (or an allow's audit), its reason. */
export interface AuthorizationResult {
  readonly decision: Decision;
  readonly reason?: string;
  /** An error met while deciding (a webhook that failed, a binding to a missing role); logged, and shown by reviews. */
  readonly evaluationError?: string;
}

/** One authorization module; the chain asks each in order and the first allow or deny decides. */
export interface Authorizer {
  readonly name: string;
  authorize(attrs: Attributes): Promise<AuthorizationResult> | AuthorizationResult;
  /**
   * What the user may do in a namespace, as rules (upstream's RuleResolver), for
   * SelfSubjectRulesReview. An authorizer that cannot list its rules says so (`incomplete`).
   */
  rulesFor?(user: UserInfo, namespace: string): Promise<SubjectRules> | SubjectRules;
}
