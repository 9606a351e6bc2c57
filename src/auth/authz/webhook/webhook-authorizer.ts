/**
 * An authorizer that asks a remote service by POSTing a SubjectAccessReview, as upstream's webhook
 * authorizer: answers are cached by the whole review spec (allowed ones for authorizedTTL, others for
 * unauthorizedTTL); failed calls are retried with backoff, then decided by the failure policy, so a
 * webhook problem is never a server error.
 */
import type { Logger } from 'pino';
import type { Attributes, AuthorizationResult, Authorizer, Decision } from '../authorizer.ts';
import type { SubjectRules } from '../rules.ts';
import type { MatchOutcome } from './match-conditions.ts';
import { parseReviewAnswer, reviewBody, reviewSpec, type ReviewStatus, type ReviewVersion } from './subject-access-review.ts';
import type { WebhookClient } from './webhook-client.ts';

export interface WebhookAuthorizerOptions {
  readonly name: string;
  readonly client: WebhookClient;
  readonly version: ReviewVersion;
  readonly authorizedTtlMs: number;
  readonly unauthorizedTtlMs: number;
  readonly timeoutMs: number;
  /** Deny or NoOpinion: the decision when the call fails, the answer is malformed or a matchCondition errs. */
  readonly failurePolicy: 'Deny' | 'NoOpinion';
  readonly matcher?: (request: Record<string, unknown>) => MatchOutcome;
  /** Waits between attempts (upstream's default backoff: 0.5s growing by 1.5, five attempts in all). */
  readonly retryDelaysMs?: readonly number[];
  readonly logger?: Logger;
}

const DEFAULT_RETRY_DELAYS_MS = [500, 750, 1125, 1688];
/** Bounds memory when many distinct requests are seen; the oldest entries go first. */
const MAX_CACHE_ENTRIES = 8192;

/** Errors worth another attempt: the connection failed or the service said it is overloaded or broken. */
class RetryableError extends Error {}

export class WebhookAuthorizer implements Authorizer {
  readonly name: string;
  readonly #options: WebhookAuthorizerOptions;
  readonly #cache = new Map<string, { status: ReviewStatus; expires: number }>();

  constructor(options: WebhookAuthorizerOptions) {
    this.name = options.name;
    this.#options = options;
  }

  /** A webhook cannot list what it would allow: the rules review is marked incomplete, as upstream. */
  rulesFor(): SubjectRules {
    return { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'webhook authorizer does not support user rule resolution' };
  }

  async authorize(attrs: Attributes): Promise<AuthorizationResult> {
    const o = this.#options;
    const spec = reviewSpec(attrs);
    if (o.matcher) {
      const outcome = o.matcher(spec);
      // Upstream passes the evaluation error on as it is.
      if ('error' in outcome) return this.#onError(outcome.error);
      if (!outcome.match) return { decision: 'noOpinion' };
    }
    const key = JSON.stringify(spec);
    const cached = this.#cache.get(key);
    let status: ReviewStatus;
    if (cached && cached.expires > Date.now()) {
      status = cached.status;
    } else {
      try {
        status = await this.#call(JSON.stringify(reviewBody(spec, o.version)));
      } catch (err) {
        return this.#onError(`Post "${o.name}": ${(err as Error).message}`);
      }
      this.#remember(key, status);
    }
    return decide(status);
  }

  close(): void {
    this.#options.client.close();
  }

  #onError(message: string): AuthorizationResult {
    this.#options.logger?.warn({ authorizer: this.#options.name }, `webhook authorization failed: ${message}`);
    const decision: Decision = this.#options.failurePolicy === 'Deny' ? 'deny' : 'noOpinion';
    return { decision, evaluationError: message };
  }

  #remember(key: string, status: ReviewStatus): void {
    const ttl = status.allowed ? this.#options.authorizedTtlMs : this.#options.unauthorizedTtlMs;
    if (ttl <= 0) return;
    this.#cache.delete(key);
    if (this.#cache.size >= MAX_CACHE_ENTRIES) this.#cache.delete(this.#cache.keys().next().value!);
    this.#cache.set(key, { status, expires: Date.now() + ttl });
  }

  async #call(body: string): Promise<ReviewStatus> {
    const o = this.#options;
    const delays = o.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#once(body);
      } catch (err) {
        if (!(err instanceof RetryableError) || attempt >= delays.length) throw err;
        await new Promise((r) => setTimeout(r, delays[attempt]));
      }
    }
  }

  async #once(body: string): Promise<ReviewStatus> {
    const o = this.#options;
    let answer: { status: number; text: string };
    try {
      answer = await o.client.post(body, o.timeoutMs);
    } catch (err) {
      throw new RetryableError((err as Error).message);
    }
    if (answer.status === 429 || answer.status >= 500) throw new RetryableError(`the webhook answered with status ${answer.status}`);
    if (answer.status < 200 || answer.status > 299) throw new Error(`the webhook answered with status ${answer.status}`);
    return parseReviewAnswer(answer.text, o.version);
  }
}

/** Upstream's mapping: both allowed and denied is a deny with an error; denied denies; allowed allows. */
function decide(status: ReviewStatus): AuthorizationResult {
  const reason = status.reason ? { reason: status.reason } : {};
  const evaluationError = status.evaluationError ? { evaluationError: status.evaluationError } : {};
  if (status.allowed && status.denied) {
    return { decision: 'deny', ...reason, evaluationError: 'webhook subject access review returned both allow and deny response' };
  }
  if (status.denied) return { decision: 'deny', ...reason, ...evaluationError };
  if (status.allowed) return { decision: 'allow', ...reason, ...evaluationError };
  return { decision: 'noOpinion', ...reason, ...evaluationError };
}
