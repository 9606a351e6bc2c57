/**
 * What a user may do, as rules: the shape of RBAC PolicyRules and of SelfSubjectRulesReview's
 * status. Authorizers that can list what they allow (RBAC, AlwaysAllow) answer in it.
 */
export interface ResourceRule {
  readonly verbs: readonly string[];
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly resourceNames: readonly string[];
}

export interface NonResourceRule {
  readonly verbs: readonly string[];
  readonly nonResourceURLs: readonly string[];
}

export interface SubjectRules {
  readonly resourceRules: readonly ResourceRule[];
  readonly nonResourceRules: readonly NonResourceRule[];
  /** True when some authorizer could not list its rules (a webhook): the list may be short of the truth. */
  readonly incomplete: boolean;
  /** Why evaluation was incomplete (a role binding naming a missing role, …), joined as upstream does. */
  readonly evaluationError?: string;
}
