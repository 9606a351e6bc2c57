import { goQuote } from './go/quote.ts';
import { goJson } from './go/values.ts';
import type { Status, StatusCause, StatusDetails, SuccessStatus } from './types.ts';

/**
 * The one error type of the API layer: it carries the `Status` a client sees.
 * Every failure on the request path becomes one of these before it is encoded.
 */
export class ApiError extends Error {
  readonly status: Status;

  constructor(code: number, reason: string, message: string, details?: StatusDetails) {
    super(message);
    this.name = 'ApiError';
    this.status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason,
      ...(details ? { details: compactDetails(details) } : {}),
      code,
    };
  }

  get code(): number {
    return this.status.code;
  }

  get reason(): string {
    return this.status.reason ?? '';
  }
}

function compactDetails(details: StatusDetails): StatusDetails {
  const out: StatusDetails = {};
  if (details.name) out.name = details.name;
  if (details.group) out.group = details.group;
  if (details.kind) out.kind = details.kind;
  if (details.uid) out.uid = details.uid;
  if (details.causes && details.causes.length > 0) out.causes = details.causes;
  if (details.retryAfterSeconds !== undefined) out.retryAfterSeconds = details.retryAfterSeconds;
  return out;
}

/** A resource as errors name it: `configmaps` or `leases.coordination.k8s.io`. */
export interface QualifiedResource {
  group: string;
  resource: string;
}

function qualified(r: QualifiedResource): string {
  return r.group ? `${r.resource}.${r.group}` : r.resource;
}

export function notFound(r: QualifiedResource, name: string): ApiError {
  return new ApiError(404, 'NotFound', `${qualified(r)} "${name}" not found`, {
    name,
    group: r.group,
    kind: r.resource,
  });
}

export function alreadyExists(r: QualifiedResource, name: string): ApiError {
  return new ApiError(409, 'AlreadyExists', `${qualified(r)} "${name}" already exists`, {
    name,
    group: r.group,
    kind: r.resource,
  });
}

export const CONFLICT_MODIFIED =
  'the object has been modified; please apply your changes to the latest version and try again';

export function conflict(r: QualifiedResource, name: string, why: string = CONFLICT_MODIFIED): ApiError {
  return new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${qualified(r)} "${name}": ${why}`, {
    name,
    group: r.group,
    kind: r.resource,
  });
}

/** A field error, as validation returns them; `type` is the cause reason (FieldValueInvalid …). */
export interface FieldError {
  type:
    | 'FieldValueInvalid'
    | 'FieldValueRequired'
    | 'FieldValueNotSupported'
    | 'FieldValueForbidden'
    | 'FieldValueTooLong'
    | 'FieldValueTooShort'
    | 'FieldValueTooMany'
    | 'FieldValueTooFew'
    | 'FieldValueDuplicate'
    | 'FieldValueNotFound'
    | 'FieldValueTypeInvalid'
    | 'InternalError';
  field: string;
  /**
   * The offending value, shown in the message of the types that show one (Invalid, TypeInvalid,
   * NotSupported, NotFound, Duplicate, TooMany, TooFew); left out, the message omits it.
   */
  value?: unknown;
  /**
   * The value as the real server prints it where that is not what the rules below give: `0x0` for
   * an unsigned zero, `[]string{"a"}` for a list printed with `%#v`. Shown instead of `value`.
   */
  rawValue?: string;
  detail?: string;
}

const FIELD_ERROR_TEXT: Record<FieldError['type'], string> = {
  FieldValueInvalid: 'Invalid value',
  FieldValueRequired: 'Required value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooShort: 'Too short',
  FieldValueTooMany: 'Too many',
  FieldValueTooFew: 'Too few',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueNotFound: 'Not found',
  FieldValueTypeInvalid: 'Invalid value',
  InternalError: 'Internal error',
};

/** The types whose message never shows the value (apimachinery 1.34's ErrorBody). */
const VALUE_HIDDEN = new Set<FieldError['type']>(['FieldValueRequired', 'FieldValueForbidden', 'FieldValueTooLong', 'FieldValueTooShort', 'InternalError']);

/** A value as ErrorBody prints it: numbers and booleans with %v, strings with %q, the rest as JSON. */
function formatValue(value: unknown): string {
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return goJson(value);
}

/** Formats one field error as apimachinery 1.34 does (`Invalid value: "x": detail`). */
export function fieldErrorText(e: FieldError): string {
  const head = FIELD_ERROR_TEXT[e.type];
  let text = head;
  if (!VALUE_HIDDEN.has(e.type)) {
    if (e.rawValue !== undefined) text = `${head}: ${e.rawValue}`;
    else if ('value' in e) text = `${head}: ${formatValue(e.value)}`;
  }
  if (e.detail) text += `: ${e.detail}`;
  return text;
}

/** 422 Invalid with one cause per field error. `kind` is the Kind (ConfigMap), not the resource. */
export function invalid(group: string, kind: string, name: string, errors: FieldError[]): ApiError {
  const causes: StatusCause[] = errors.map((e) => ({
    reason: e.type,
    message: fieldErrorText(e),
    field: e.field,
  }));
  // The message names each distinct error once, as Go's ErrorList.ToAggregate does; causes keep them all.
  const list = [...new Set(errors.map((e) => `${e.field}: ${fieldErrorText(e)}`))];
  const summary = list.length === 1 ? list[0] : `[${list.join(', ')}]`;
  const qualifiedKind = group ? `${kind}.${group}` : kind;
  return new ApiError(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${summary}`, {
    name,
    group,
    kind,
    causes,
  });
}

/** 403: a create into a namespace whose deletion has started (the NamespaceLifecycle rule). */
export function namespaceTerminating(r: QualifiedResource, name: string, namespace: string): ApiError {
  return new ApiError(
    403,
    'Forbidden',
    `${qualified(r)} "${name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
    {
      name,
      group: r.group,
      kind: r.resource,
      causes: [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }],
    },
  );
}

export function badRequest(message: string, causes?: StatusCause[]): ApiError {
  return new ApiError(400, 'BadRequest', message, causes ? { causes } : undefined);
}

export function forbidden(r: QualifiedResource, name: string, why: string): ApiError {
  const subject = name ? `${qualified(r)} "${name}"` : qualified(r);
  return new ApiError(403, 'Forbidden', `${subject} is forbidden: ${why}`, {
    name,
    group: r.group,
    kind: r.resource,
  });
}

export function unauthorized(message = 'Unauthorized'): ApiError {
  return new ApiError(401, 'Unauthorized', message);
}

/** The router's 405; upstream's carries empty details (`"details":{}`). */
export function methodNotAllowed(): ApiError {
  return new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
}

export function notAcceptable(accepted: string[]): ApiError {
  return new ApiError(406, 'NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`);
}

export function unsupportedMediaType(contentType: string, accepted: string[]): ApiError {
  return new ApiError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
    contentType ? { causes: [{ reason: 'UnexpectedHeader', message: `unsupported media type "${contentType}"`, field: 'Content-Type' }] } : undefined,
  );
}

export function requestEntityTooLarge(limit: number): ApiError {
  return new ApiError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`);
}

/** 410 Expired: a resourceVersion or continue token older than the history window. */
export function expired(message: string): ApiError {
  return new ApiError(410, 'Expired', message);
}

/** What a client is told of a failure of the server's own: upstream's shape, none of the cause's text. */
export const INTERNAL_ERROR_TEXT = 'the server could not complete the request; the details are in its log';

/**
 * 500 InternalError in upstream's shape (`Internal error occurred: …`, the text repeated as the one
 * cause). The client gets a fixed text: what went wrong inside (database texts, JavaScript errors)
 * can quote other data or internals, and goes to the log instead.
 */
export function internalError(): ApiError {
  return new ApiError(500, 'InternalError', `Internal error occurred: ${INTERNAL_ERROR_TEXT}`, {
    causes: [{ message: INTERNAL_ERROR_TEXT }],
  });
}

export function serviceUnavailable(message: string): ApiError {
  return new ApiError(503, 'ServiceUnavailable', message);
}

/** 429 TooManyRequests: clients (client-go, kubectl) wait `retryAfterSeconds` and try again. */
export function tooManyRequests(message: string, retryAfterSeconds: number): ApiError {
  return new ApiError(429, 'TooManyRequests', message, { retryAfterSeconds });
}

export function timeout(message: string): ApiError {
  return new ApiError(504, 'Timeout', message);
}

/**
 * 504 as upstream's request handlers answer once a request's deadline has passed while its storage
 * call is still out (FinishRequest): the operation may still complete, so there is no Retry-After.
 */
export function deadlineExceeded(): ApiError {
  return new ApiError(504, 'Timeout', 'Timeout: request did not complete within requested timeout - context deadline exceeded', {});
}

/** 504 as upstream's timeout filter answers a request that has not been answered within --request-timeout. */
export function allottedTimeoutExceeded(): ApiError {
  return new ApiError(504, 'Timeout', 'Timeout: request did not complete within the allotted timeout', {});
}

/** Builds the Success status a delete returns once the object is gone (no `code`, as upstream). */
export function successStatus(details: StatusDetails): SuccessStatus {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details };
}
