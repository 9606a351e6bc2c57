/**
 * What the server's authentication and authorization offer the rest of it at run time: the review
 * kinds (SubjectAccessReview, TokenReview, …), the TokenRequest subresource, impersonation and the
 * RBAC escalation checks reach them through the request context (`RequestContext.auth`). Each member
 * is present only when the server was configured with it.
 */
import type { Attributes, AuthorizationResult } from './authz/authorizer.ts';
import type { SubjectRules } from './authz/rules.ts';
import type { UserInfo } from './user.ts';

/** The authorization chain as a whole, as the request path runs it. */
export interface AccessChecker {
  authorize(attrs: Attributes): Promise<AuthorizationResult>;
}

/** Everything a user may do in a namespace (cluster-wide rules included), for rules reviews and escalation checks. */
export interface RuleResolver {
  rulesFor(user: UserInfo, namespace: string): Promise<SubjectRules>;
}

/** The answer to a TokenReview: the user a token names and the audiences it was valid for, or why not. */
export type TokenReviewResult =
  | { readonly authenticated: true; readonly user: UserInfo; readonly audiences: readonly string[] }
  | { readonly authenticated: false; readonly error?: string };

/** Authenticates a bare bearer token for TokenReview, with the audiences the review names (or the server's). */
export interface TokenReviewer {
  review(token: string, audiences: readonly string[]): Promise<TokenReviewResult>;
}

/** A service account token request, as the TokenRequest subresource receives it (already validated). */
export interface ServiceAccountTokenRequest {
  readonly namespace: string;
  readonly serviceAccount: { readonly name: string; readonly uid: string };
  readonly audiences: readonly string[];
  readonly expirationSeconds: number;
  /** The object the token is bound to (a Pod, Secret or Node), with its uid. */
  readonly boundObject?: { readonly kind: string; readonly apiVersion: string; readonly name: string; readonly uid: string };
}

/** Signs service account tokens (the TokenRequest subresource). */
export interface ServiceAccountTokenIssuer {
  issue(request: ServiceAccountTokenRequest): Promise<{ token: string; expirationTimestamp: Date }>;
}

export interface AuthServices {
  readonly access: AccessChecker;
  /** The whole chain's rules (SelfSubjectRulesReview). */
  readonly rules: RuleResolver;
  /** RBAC's own rules, when RBAC authorizes this server (escalation checks). */
  readonly rbacRules?: RuleResolver;
  readonly tokenReviewer?: TokenReviewer;
  readonly tokenIssuer?: ServiceAccountTokenIssuer;
  /** The audiences the server's own tokens carry by default (--api-audiences, else the issuer). */
  readonly apiAudiences: readonly string[];
}
