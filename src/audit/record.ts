/**
 * One audited request (upstream's AuditContext): what its events share, the stages sent so far,
 * and what the request path hands over (the request body, the response, the status, annotations).
 * Nothing of this exists for a request the policy does not audit.
 */
import type { Status } from '../api/types.ts';
import type { RequestInfo } from '../api/request-info.ts';
import type { UserInfo } from '../auth/user.ts';
import { decodeCbor } from '../codecs/cbor/index.ts';
import { parseYaml } from '../codecs/index.ts';
import { decodeProtobufObject } from '../codecs/protobuf/index.ts';
import { stringifyJson } from '../codecs/deep-json.ts';
import { nowMicros, type EventData, type EventUser, type LineParts, type ObjectReference, type ResponseStatus } from './event.ts';
import { levelAtLeast, type RequestAuditConfig, type Stage } from './policy.ts';

/** What a record needs from the server-wide auditor. */
export interface RecordSink {
  /** Writes one event (`parts`: what the record's next events reuse); false when it could not be taken. */
  send(event: EventData, parts: LineParts): boolean;
}

type BodyFormat = 'json' | 'yaml' | 'protobuf' | 'cbor';

/** The format of a body by its media type; undefined for anything that is not an API object (text, HTML). */
export function bodyFormat(contentType: string | undefined): BodyFormat | undefined {
  const essence = (contentType ?? '').split(';', 1)[0]!.trim().toLowerCase();
  switch (essence) {
    case '':
    case 'application/json':
    case 'application/merge-patch+json':
    case 'application/strategic-merge-patch+json':
    case 'application/json-patch+json':
      return 'json';
    case 'application/yaml':
    case 'application/apply-patch+yaml':
      return 'yaml';
    case 'application/vnd.kubernetes.protobuf':
      return 'protobuf';
    case 'application/cbor':
    case 'application/apply-patch+cbor':
      return 'cbor';
    default:
      return undefined;
  }
}

function decodeBody(bytes: Buffer, format: BodyFormat): unknown {
  switch (format) {
    case 'json':
      return JSON.parse(bytes.toString('utf8'));
    case 'yaml':
      return parseYaml(bytes.toString('utf8'));
    case 'protobuf':
      return decodeProtobufObject(bytes).object;
    case 'cbor':
      return decodeCbor(bytes);
  }
}

/** JSON text in one line as sent (no newline inside), which an event can carry as it is. */
function isCompactJson(text: string): boolean {
  const end = text.endsWith('\n') ? text.length - 1 : text.length;
  const nl = text.indexOf('\n');
  return (nl < 0 || nl >= end) && text.indexOf('\r') < 0;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Drops metadata.managedFields from an object, each item of a list and each row object of a Table (in place). */
export function dropManagedFields(value: unknown): void {
  if (!isRecord(value)) return;
  const meta = value.metadata;
  if (isRecord(meta) && 'managedFields' in meta) delete meta.managedFields;
  if (Array.isArray(value.items)) for (const item of value.items) if (isRecord(item) && isRecord(item.metadata)) delete item.metadata.managedFields;
  if (value.kind === 'Table' && Array.isArray(value.rows)) {
    for (const row of value.rows) if (isRecord(row) && isRecord(row.object) && isRecord(row.object.metadata)) delete row.object.metadata.managedFields;
  }
}

const MAX_USER_AGENT = 1024;

function eventUser(user: UserInfo | undefined): EventUser {
  if (!user) return {};
  return { username: user.name, ...(user.uid ? { uid: user.uid } : {}), groups: user.groups, ...(user.extra ? { extra: user.extra } : {}) };
}

/** What the request path knows when the record is made. */
export interface RecordInit {
  readonly config: RequestAuditConfig;
  readonly auditID: string;
  readonly requestURI: string;
  readonly info: RequestInfo;
  /** The authenticated user (none when authentication failed). */
  readonly user: UserInfo | undefined;
  readonly sourceIPs: readonly string[];
  readonly userAgent: string;
  readonly receivedAt: number;
}

export class AuditRecord {
  readonly config: RequestAuditConfig;
  /** Annotations for the event: authorization's, and those admission adds (`RequestContext.auditAnnotations`). */
  readonly annotations: Record<string, string> = {};
  /** The raw request body, once the handler has read it. */
  requestBody: Buffer | undefined;
  requestContentType: string | undefined;
  /** The user the request runs as, when it impersonates (set once impersonation allowed it). */
  impersonatedUser: UserInfo | undefined;
  /** The status to report (code at least) once known. */
  responseStatus: ResponseStatus | undefined;
  /** ResponseStarted was sent (or is not to be). */
  started = false;
  /** The last stage was sent: nothing more is. */
  done = false;

  readonly #sink: RecordSink;
  readonly #parts: LineParts = {};
  readonly #base: Omit<EventData, 'stage' | 'stageTimestamp' | 'impersonatedUser' | 'responseStatus' | 'requestObject' | 'responseObject' | 'annotations' | 'objectRef'>;
  readonly #objectRef: ObjectReference | undefined;
  readonly #verb: string;
  #responseBody: Buffer | undefined;
  #responseContentType: string | undefined;
  #responseObject: string | undefined;
  #requestDecoded: { value: unknown } | undefined;

  constructor(sink: RecordSink, init: RecordInit) {
    this.#sink = sink;
    this.config = init.config;
    this.#verb = init.info.verb;
    const ua = init.userAgent.length > MAX_USER_AGENT ? `${init.userAgent.slice(0, MAX_USER_AGENT)}...TRUNCATED` : init.userAgent;
    this.#base = {
      level: init.config.level,
      auditID: init.auditID,
      requestURI: init.requestURI,
      verb: init.info.verb,
      user: eventUser(init.user),
      sourceIPs: init.sourceIPs,
      userAgent: ua,
      requestReceivedTimestamp: init.receivedAt,
    };
    const i = init.info;
    this.#objectRef = i.isResourceRequest
      ? { resource: i.resource, namespace: i.namespace, name: i.name, apiGroup: i.apiGroup, apiVersion: i.apiVersion, subresource: i.subresource }
      : undefined;
  }

  get level() {
    return this.config.level;
  }

  /** Whether this stage goes out (the policy may leave it out). */
  wants(stage: Stage): boolean {
    return !this.config.omitStages.has(stage);
  }

  /** Sends one stage's event; false when the sink could not take it. Stages the policy omits count as sent. */
  emit(stage: Stage): boolean {
    if (!this.wants(stage)) return true;
    const stamp = stage === 'RequestReceived' ? this.#base.requestReceivedTimestamp : nowMicros();
    const late = stage !== 'RequestReceived';
    const requestObject = late ? this.#requestObject() : undefined;
    // Read before the status is: a Status body fills it in.
    const responseObject = stage === 'ResponseComplete' ? (this.#responseObject ?? this.#responseObjectNow()) : undefined;
    const b = this.#base;
    const event: EventData = {
      level: b.level,
      auditID: b.auditID,
      stage,
      requestURI: b.requestURI,
      verb: b.verb,
      user: b.user,
      impersonatedUser: late && this.impersonatedUser ? eventUser(this.impersonatedUser) : undefined,
      sourceIPs: b.sourceIPs,
      userAgent: b.userAgent,
      objectRef: this.#objectRef && late ? this.#objectRefNow() : this.#objectRef,
      responseStatus: this.responseStatus,
      requestObject,
      responseObject,
      requestReceivedTimestamp: b.requestReceivedTimestamp,
      stageTimestamp: stamp,
      annotations: this.annotations,
    };
    return this.#sink.send(event, this.#parts);
  }

  /** A success: the code written (and a Status body's fields, found when the response is read). */
  setCode(code: number): void {
    if (this.responseStatus) {
      if (!this.responseStatus.code) this.responseStatus.code = code;
      return;
    }
    this.responseStatus = { code };
  }

  /** A failure answered with this Status (what upstream copies of it). */
  setStatus(status: Status | ResponseStatus, asResponseObject: boolean): void {
    this.responseStatus = {
      ...(status.status ? { status: status.status } : {}),
      ...(status.message ? { message: status.message } : {}),
      ...(status.reason ? { reason: status.reason } : {}),
      ...(status.details ? { details: status.details } : {}),
      ...(status.code ? { code: status.code } : {}),
    };
    if (asResponseObject && levelAtLeast(this.level, 'RequestResponse')) {
      this.#responseObject = stringifyJson(status);
      this.#responseBody = undefined;
    }
  }

  /** The body the response carries (before compression), read when the event is written. */
  setResponseBody(body: Buffer, contentType: string | undefined): void {
    this.#responseBody = body;
    this.#responseContentType = contentType;
  }

  // --- request object ----------------------------------------------------------------------

  /** The request body as a JSON value, decoded once; undefined when there is none or it does not decode. */
  #decodedRequest(): unknown {
    if (this.#requestDecoded) return this.#requestDecoded.value;
    const body = this.requestBody;
    if (!body || body.length === 0) return undefined;
    let value: unknown;
    try {
      const format = bodyFormat(this.requestContentType);
      value = format ? decodeBody(body, format) : undefined;
    } catch {
      value = undefined;
    }
    this.#requestDecoded = { value };
    return value;
  }

  /** requestObject: at Request level and above, the body (the patch itself for a patch). */
  #requestObject(): string | undefined {
    if (!levelAtLeast(this.level, 'Request')) return undefined;
    const value = this.#decodedRequest();
    if (value === undefined) return undefined;
    if (this.config.omitManagedFields && this.#verb !== 'patch') dropManagedFields(value);
    return stringifyJson(value);
  }

  /**
   * objectRef, completed from the object a create or update sends (its name, namespace, uid and
   * resourceVersion where the path did not give them), as upstream's LogRequestObject does.
   */
  #objectRefNow(): ObjectReference | undefined {
    const ref = this.#objectRef;
    if (!ref || (this.#verb !== 'create' && this.#verb !== 'update')) return ref;
    const obj = this.#decodedRequest();
    if (!isRecord(obj) || !isRecord(obj.metadata)) return ref;
    const meta = obj.metadata;
    const s = (v: unknown) => (typeof v === 'string' ? v : undefined);
    return {
      ...ref,
      namespace: ref.namespace || s(meta.namespace),
      name: ref.name || s(meta.name),
      uid: ref.uid || s(meta.uid),
      resourceVersion: ref.resourceVersion || s(meta.resourceVersion),
    };
  }

  // --- response object ---------------------------------------------------------------------

  /**
   * At RequestResponse, the API object the response carries, as JSON in one line. Bodies that are
   * not API objects (health texts, /version, OpenAPI documents) are not logged, as upstream logs only
   * what its object writer sends.
   */
  #responseObjectNow(): string | undefined {
    const body = this.#responseBody;
    if (!body) return undefined;
    this.#responseBody = undefined;
    const format = bodyFormat(this.#responseContentType);
    if (!format) return undefined;
    try {
      if (format === 'json' && !this.config.omitManagedFields && body[0] === 0x7b /* { */) {
        const text = body.toString('utf8');
        // A resource's answer is always an API object; elsewhere only what names its kind is one.
        if (isCompactJson(text) && (this.#objectRef !== undefined || text.startsWith('{"kind":"'))) {
          const trimmed = text.endsWith('\n') ? text.slice(0, -1) : text;
          if (trimmed.startsWith('{"kind":"Status"')) this.noteStatusBody(body);
          this.#responseObject = trimmed;
          return trimmed;
        }
      }
      const value = decodeBody(body, format);
      if (!isRecord(value) || typeof value.kind !== 'string') return undefined;
      if (value.kind === 'Status') this.#noteStatusValue(value);
      if (this.config.omitManagedFields) dropManagedFields(value);
      this.#responseObject = stringifyJson(value);
      return this.#responseObject;
    } catch {
      return undefined;
    }
  }

  /** A success answered with a Status (a delete that finished): its fields, as upstream records them. */
  noteStatusBody(body: Buffer): void {
    try {
      const value = JSON.parse(body.toString('utf8')) as unknown;
      if (isRecord(value) && value.kind === 'Status') this.#noteStatusValue(value);
    } catch {
      // Not JSON after all: the code alone is recorded.
    }
  }

  #noteStatusValue(value: Record<string, unknown>): void {
    const code = this.responseStatus?.code;
    this.setStatus(value as unknown as ResponseStatus, false);
    if (!this.responseStatus!.code && code) this.responseStatus!.code = code;
  }
}
