import type { Level } from '../audit/policy.ts';
import type { AuthServices } from '../auth/services.ts';
import type { UserInfo } from '../auth/user.ts';
import { defaultFeatureGates } from '../features/feature-gates.ts';

/** Feature gates as a request sees them (`--feature-gates`, with each gate's default). */
export interface FeatureGates {
  enabled(name: string): boolean;
}

/**
 * Everything a store method and a kind's hooks may need to know about the request they serve. HTTP
 * builds one per request; controllers and start-up code build a system one (`systemContext`).
 * Storage never sees it: it stops at the registry.
 */
export interface RequestContext {
  readonly user: UserInfo;
  /** dryRun=All: every step runs, nothing is written. */
  readonly dryRun: boolean;
  /** The fieldManager query parameter, when given. */
  readonly fieldManager?: string;
  readonly userAgent: string;
  /** '' for the main resource, or the subresource addressed (status, finalize, …). */
  readonly subresource: string;
  /** Warnings for the client (sent as `Warning` headers by HTTP; logged or dropped by controllers). */
  readonly warnings: string[];
  readonly featureGates: FeatureGates;
  /**
   * The server's authentication and authorization services (reviews, TokenRequest, RBAC escalation
   * checks); absent in work the server does itself, which no one authorizes.
   */
  readonly auth?: AuthServices;
  /**
   * Annotations for the request's audit event (admission policies and webhooks add theirs), when
   * the request is audited; absent otherwise. `addAuditAnnotation` (src/audit/annotations.ts) adds
   * one with its level.
   */
  readonly auditAnnotations?: Record<string, string>;
  /**
   * The level of the request's audit events, alongside `auditAnnotations`: an annotation that
   * belongs only in events of a higher level (src/audit/annotations.ts) is not added below it.
   */
  readonly auditLevel?: Level;
}

/** A feature-gate view over a map of gate → enabled; unknown gates are off. */
export function featureGateSet(gates: ReadonlyMap<string, boolean>): FeatureGates {
  return { enabled: (name) => gates.get(name) === true };
}

/**
 * The server's own writes see each gate at its 1.34 default: what they write never carries a field
 * of a gate that is off by default, and never loses one of a gate that is on.
 */
const DEFAULT_GATES: FeatureGates = defaultFeatureGates();

/**
 * The context of work the server does itself (controllers, seeding): the user is the component
 * (`system:apiserver` unless named), no dry run, warnings collected but unread.
 */
export function systemContext(options: { user?: UserInfo; subresource?: string; featureGates?: FeatureGates; dryRun?: boolean } = {}): RequestContext {
  return {
    user: options.user ?? { name: 'system:apiserver', groups: ['system:masters', 'system:authenticated'] },
    dryRun: options.dryRun ?? false,
    userAgent: 'pgkube-apiserver',
    subresource: options.subresource ?? '',
    warnings: [],
    featureGates: options.featureGates ?? DEFAULT_GATES,
  };
}
