/**
 * The state of one evaluation: the activation's values, the comprehension variables, the cost
 * spent against the limit, and the authorization answers known so far. Compiled programs are
 * shared; everything an evaluation changes lives here.
 */
import { CelInterrupt, CostLimitExceeded } from '../errors.ts';
import type { CelValue } from '../values.ts';

/** An authorization answer, as the `authorizer` library's Decision shows it. */
export interface AuthorizationDecision {
  readonly decision: 'allow' | 'deny' | 'noOpinion';
  readonly reason: string;
  /** The authorizer's error, when it failed (Decision.errored()). */
  readonly error?: string;
}

/**
 * Raised when an expression needs an authorization answer it does not have yet: the evaluation
 * stops, the caller obtains the answer and evaluates again from the start (CEL is pure, so the
 * rerun reaches the same point and now finds the answer).
 */
export class NeedsAuthorization extends CelInterrupt {
  constructor(
    readonly key: string,
    readonly ask: () => Promise<AuthorizationDecision>,
  ) {
    super('authorization pending');
  }
}

export class EvalState {
  cost = 0;
  constructor(
    /** The most this evaluation may cost. */
    readonly limit: number,
    /** Declared variables by name. */
    readonly vars: Readonly<Record<string, CelValue | undefined>>,
    /** Comprehension variables, by the slot the compiler gave each. */
    readonly slots: CelValue[],
    /** Authorization answers by check (shared by the reruns of one evaluation). */
    readonly decisions: Map<string, AuthorizationDecision>,
  ) {}

  /** Adds to the cost; past the limit the evaluation stops as cel-go's does. */
  charge(n: number): void {
    this.cost += n;
    if (this.cost > this.limit) throw new CostLimitExceeded();
  }
}
