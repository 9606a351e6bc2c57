/**
 * The errors of webhook admission, with upstream's texts: a failure to talk to a webhook (which the
 * failure policy may ignore), a webhook's refusal, dry run refused, and the 500 a failure becomes.
 */
import { ApiError } from '../../api/errors.ts';
import { goQuote } from '../../api/go/quote.ts';
import type { StatusCause, StatusDetails } from '../../api/types.ts';

/**
 * The webhook could not be asked, or its answer could not be used (ErrCallingWebhook): the failure
 * policy decides whether the request goes on. `reason` is what went wrong.
 */
export class CallingWebhookError extends Error {
  readonly webhookName: string;
  readonly reason: string;

  constructor(webhookName: string, reason: string) {
    super(`failed calling webhook ${goQuote(webhookName)}: ${reason}`);
    this.name = 'CallingWebhookError';
    this.webhookName = webhookName;
    this.reason = reason;
  }
}

/** 500 InternalError in upstream's shape (`Internal error occurred: <text>`, the text as the one cause). */
export function internalErrorOf(text: string): ApiError {
  return new ApiError(500, 'InternalError', `Internal error occurred: ${text}`, { causes: [{ message: text }] });
}

/** 403 as admission.NewForbidden words it for a resource (`configmaps "x" is forbidden: …`). */
export function forbiddenOf(group: string, resource: string, name: string, text: string): ApiError {
  const qualified = group ? `${resource}.${group}` : resource;
  const subject = name ? `${qualified} "${name}"` : qualified;
  return new ApiError(403, 'Forbidden', `${subject} is forbidden: ${text}`, { name, group, kind: resource });
}

/** 400 `admission webhook "x" does not support dry run`. */
export function dryRunUnsupported(webhookName: string): ApiError {
  return new ApiError(400, 'BadRequest', `admission webhook ${goQuote(webhookName)} does not support dry run`);
}

/** The Status a webhook's response carries (`response.status`), as decoded. */
export interface WebhookStatus {
  code?: number;
  status?: string;
  message?: string;
  reason?: string;
  details?: StatusDetails;
}

/**
 * A webhook's refusal (ToStatusErr): its Status, with a code of at least 400 and the message
 * prefixed `admission webhook "x" denied the request`.
 */
export function webhookDenied(webhookName: string, result: WebhookStatus | null | undefined): ApiError {
  const deniedBy = `admission webhook ${goQuote(webhookName)} denied the request`;
  const r = result ?? {};
  const code = typeof r.code === 'number' && r.code >= 400 ? r.code : 400;
  const message = r.message ? `${deniedBy}: ${r.message}` : r.reason ? `${deniedBy}: ${r.reason}` : `${deniedBy} without explanation`;
  const err = new ApiError(code, r.reason ?? '', message, cleanDetails(r.details));
  if (!r.reason) delete err.status.reason;
  return err;
}

function cleanDetails(details: StatusDetails | undefined): StatusDetails | undefined {
  if (!details || typeof details !== 'object') return undefined;
  const out: StatusDetails = {};
  if (typeof details.name === 'string') out.name = details.name;
  if (typeof details.group === 'string') out.group = details.group;
  if (typeof details.kind === 'string') out.kind = details.kind;
  if (typeof details.uid === 'string') out.uid = details.uid;
  if (typeof details.retryAfterSeconds === 'number') out.retryAfterSeconds = details.retryAfterSeconds;
  if (Array.isArray(details.causes)) {
    out.causes = details.causes
      .filter((c): c is StatusCause => !!c && typeof c === 'object')
      .map((c) => ({ ...(typeof c.reason === 'string' ? { reason: c.reason } : {}), ...(typeof c.message === 'string' ? { message: c.message } : {}), ...(typeof c.field === 'string' ? { field: c.field } : {}) }));
  }
  return out;
}

/** utilerrors.NewAggregate(…).Error(): one message alone, several deduplicated in brackets. */
export function aggregateText(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}
