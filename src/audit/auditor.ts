/**
 * Auditing on the request path, as kube-apiserver's audit filters do it (WithAuditInit, WithAudit,
 * WithFailedAuthenticationAudit, the audit calls of the handlers and response writers):
 *
 * - `auditId()` (always, outermost): every response carries `Audit-Id`, the client's own `Audit-ID`
 *   header when it sent one, a new UUID otherwise.
 * - `entry()` (before the request timeout and authentication): notes when the request arrived;
 *   ends the event (ResponseComplete, or Panic for an unexpected error) with the answer's status,
 *   whatever answers it; a request refused before the policy could be applied (authentication
 *   failed, a bad `timeout`) gets upstream's single ResponseStarted event.
 * - `start()` (after authentication, before impersonation): applies the policy to the
 *   authenticated user and the request; for an audited request makes the record, sends
 *   RequestReceived and, for watches, ResponseStarted when the response begins.
 * - `capture()` (innermost, before compression sees the body): hands the response body over.
 * - `authorizers()`: the authorization chain, whose decision and reason become the
 *   `authorization.k8s.io/decision` and `authorization.k8s.io/reason` annotations.
 *
 * A request the policy puts at level None (and every request when auditing is off) gets no record:
 * nothing is built for it beyond the policy's answer.
 */
import { randomUUID } from 'node:crypto';
import { pipeline, Readable, Transform } from 'node:stream';
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { ApiError } from '../api/errors.ts';
import { isLongRunning } from '../api/long-running.ts';
import type { RequestInfo } from '../api/request-info.ts';
import { formatAddr, parseAddr } from '../api/go/netip.ts';
import type { Authorizer } from '../auth/authz/authorizer.ts';
import { runChain } from '../auth/authz/chain.ts';
import type { UserInfo } from '../auth/user.ts';
import { eventJsonLine, eventLegacyLine, nowMicros, type EventData, type LineParts } from './event.ts';
import { levelAtLeast, type PolicyChecker } from './policy.ts';
import { AuditRecord } from './record.ts';
import type { Sink } from './sink.ts';

export type AuditFormat = 'json' | 'legacy';

/** What the audit middleware keeps in `ctx.state.audit`. */
export interface AuditEntry {
  /** Microseconds since the epoch. */
  readonly receivedAt: number;
  /** The policy was applied (start() ran). */
  evaluated: boolean;
  /** Set for an audited request. */
  record?: AuditRecord;
}

interface AuditState {
  auditID?: string;
  audit?: AuditEntry;
  requestInfo: RequestInfo;
  user?: UserInfo;
  impersonatedBy?: UserInfo;
}

/** The record of an audited request, if it is audited. */
export function auditRecordOf(ctx: Context): AuditRecord | undefined {
  return (ctx.state as AuditState).audit?.record;
}

/** Called with each request body the handlers read: the record keeps it for requestObject and objectRef. */
export function noteRequestBody(ctx: Context, body: Buffer): void {
  const record = (ctx.state as AuditState).audit?.record;
  if (!record) return;
  record.requestBody = body;
  record.requestContentType = ctx.get('content-type');
}

/**
 * Upstream's `Audit-Id` response header: the request's own `Audit-ID` (kept as sent), or a new
 * UUID. The same ID names the request's audit events.
 */
export function auditId() {
  return function auditIdHeader(ctx: Context, next: Next): Promise<void> {
    const id = ctx.req.headers['audit-id'];
    const auditID = typeof id === 'string' && id !== '' ? id : randomUUID();
    (ctx.state as AuditState).auditID = auditID;
    ctx.set('Audit-Id', auditID);
    return next();
  };
}

/** An address as Go's net.IP prints it (IPv4-mapped IPv6 as dotted IPv4); undefined when it is none. */
function goIP(text: string): string | undefined {
  const parsed = parseAddr(text.trim());
  if ('error' in parsed || parsed.zone) return undefined;
  const b = parsed.bytes;
  if (!parsed.v4 && b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff) return b.slice(12).join('.');
  return formatAddr(parsed);
}

/** upstream's SourceIPs: X-Forwarded-For's addresses, X-Real-Ip unless listed, then the peer unless it is the last. */
export function sourceIPs(headers: NodeJS.Dict<string | string[]>, remoteAddress: string | undefined): string[] {
  const ips: string[] = [];
  const forwarded = headers['x-forwarded-for'];
  const forwardedText = Array.isArray(forwarded) ? forwarded[0] : forwarded;
  if (forwardedText) {
    for (const part of forwardedText.split(',')) {
      const ip = goIP(part);
      if (ip) ips.push(ip);
    }
  }
  const real = headers['x-real-ip'];
  const realText = Array.isArray(real) ? real[0] : real;
  if (realText) {
    const ip = goIP(realText);
    if (ip && !ips.includes(ip)) ips.push(ip);
  }
  const remote = remoteAddress ? goIP(remoteAddress) : undefined;
  if (remote && (ips.length === 0 || ips[ips.length - 1] !== remote)) ips.push(remote);
  return ips;
}

const DECISION = 'authorization.k8s.io/decision';
const REASON = 'authorization.k8s.io/reason';

export interface AuditorOptions {
  readonly checker: PolicyChecker;
  readonly sink: Sink;
  readonly format: AuditFormat;
  /** blocking-strict: a request whose RequestReceived event cannot be written is refused. */
  readonly strict: boolean;
  readonly logger: Logger;
}

export class Auditor {
  readonly #checker: PolicyChecker;
  readonly #sink: Sink;
  readonly #strict: boolean;
  readonly #line: (ev: EventData, parts: LineParts) => string;
  /** The record of each audited request by its RequestInfo (what the authorization chain is given). */
  readonly #byRequest = new WeakMap<RequestInfo, AuditRecord>();
  readonly #recordSink: { send(ev: EventData, parts: LineParts): boolean };

  constructor(options: AuditorOptions) {
    this.#checker = options.checker;
    this.#sink = options.sink;
    this.#strict = options.strict;
    this.#line = options.format === 'legacy' ? eventLegacyLine : eventJsonLine;
    this.#recordSink = { send: (ev, parts) => this.#sink.process(this.#line(ev, parts)) };
  }

  /** Writes what is queued and closes the log. */
  close(): Promise<void> {
    return this.#sink.close();
  }

  #newRecord(ctx: Context, entry: AuditEntry, user: UserInfo | undefined): AuditRecord | undefined {
    const state = ctx.state as AuditState;
    const info = state.requestInfo;
    const config = this.#checker.evaluate({ user, request: info });
    entry.evaluated = true;
    if (config.level === 'None') return undefined;
    const record = new AuditRecord(this.#recordSink, {
      config,
      auditID: state.auditID ?? randomUUID(),
      requestURI: ctx.originalUrl,
      info,
      user,
      sourceIPs: sourceIPs(ctx.req.headers, ctx.req.socket.remoteAddress),
      userAgent: ctx.req.headers['user-agent'] ?? '',
      receivedAt: entry.receivedAt,
    });
    entry.record = record;
    this.#byRequest.set(info, record);
    return record;
  }

  /** Outer part: the request's arrival and its end (see the file's comment). */
  entry() {
    const auditor = this;
    return async function auditEntry(ctx: Context, next: Next): Promise<void> {
      const entry: AuditEntry = { receivedAt: nowMicros(), evaluated: false };
      const state = ctx.state as AuditState;
      state.audit = entry;
      try {
        await next();
      } catch (err) {
        if (!entry.evaluated) {
          // Refused before the policy could be applied: upstream audits these answers with one
          // ResponseStarted event, the user unknown.
          if (err instanceof ApiError) {
            const record = auditor.#newRecord(ctx, entry, undefined);
            if (record) {
              record.setStatus(err.status, true);
              record.started = true;
              record.done = true;
              record.emit('ResponseStarted');
            }
          }
          throw err;
        }
        const record = entry.record;
        if (record && !record.done) {
          if (err instanceof ApiError && !(ctx.headerSent || ctx.respond === false)) {
            record.setStatus(err.status, true);
            finish(ctx, record);
          } else if (err instanceof ApiError) {
            record.setCode(ctx.res.statusCode);
            finish(ctx, record);
          } else {
            // An unexpected failure is this server's panic: upstream's Panic stage, and no ResponseComplete.
            record.done = true;
            record.setStatus(
              { status: 'Failure', reason: 'InternalError', code: 500, message: `APIServer panic'd: ${err instanceof Error ? err.message : String(err)}` },
              false,
            );
            record.emit('Panic');
          }
        }
        throw err;
      }
      const record = entry.record;
      if (!record || record.done) return;
      record.setCode(ctx.respond === false ? ctx.res.statusCode : ctx.status);
      const body = ctx.respond === false ? undefined : ctx.body;
      if (body instanceof Readable && !ctx.res.writableFinished && !ctx.res.destroyed) {
        // A streamed body (a list, a compressed answer) is complete when the response is.
        ctx.res.once('close', () => finish(ctx, record));
        return;
      }
      finish(ctx, record);
    };
  }

  /** Inner part, after authentication: the policy, RequestReceived, the response start of watches. */
  start() {
    const auditor = this;
    return async function auditStart(ctx: Context, next: Next): Promise<void> {
      const state = ctx.state as AuditState;
      const entry = state.audit;
      if (!entry) return next();
      const record = auditor.#newRecord(ctx, entry, state.user);
      if (!record) return next();
      if (!record.emit('RequestReceived') && auditor.#strict) {
        record.done = true;
        throw new ApiError(500, 'InternalError', 'Internal error occurred: failed to store audit event', { causes: [{ message: 'failed to store audit event' }] });
      }
      if (isLongRunning(state.requestInfo)) watchResponseStart(ctx, record);
      else record.started = true;
      return next();
    };
  }

  /** Innermost: the response body before compression (RequestResponse), or a Status body's fields. */
  capture() {
    return async function auditCapture(ctx: Context, next: Next): Promise<void> {
      const record = (ctx.state as AuditState).audit?.record;
      if (!record) return next();
      await next();
      if (ctx.respond === false) return;
      const body: unknown = ctx.body;
      const full = levelAtLeast(record.level, 'RequestResponse');
      if (Buffer.isBuffer(body)) {
        if (full) record.setResponseBody(body, ctx.response.get('Content-Type'));
        else if (isStatusJson(body)) record.noteStatusBody(body);
      } else if (typeof body === 'string') {
        if (full) record.setResponseBody(Buffer.from(body, 'utf8'), ctx.response.get('Content-Type'));
        else if (body.startsWith(STATUS_PREFIX)) record.noteStatusBody(Buffer.from(body, 'utf8'));
      } else if (full && body instanceof Readable) {
        const chunks: Buffer[] = [];
        const tee = new Transform({
          writableObjectMode: true,
          readableObjectMode: true,
          transform(chunk: string | Uint8Array, _enc, done) {
            chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk));
            done(null, chunk);
          },
          flush(done) {
            record.setResponseBody(Buffer.concat(chunks), ctx.response.get('Content-Type'));
            done();
          },
        });
        pipeline(body, tee, () => undefined);
        ctx.body = tee;
      }
    };
  }

  /**
   * The authorization chain, reporting its decision to the request's record: `allow` or `forbid`
   * and the deciding reason (empty when there is none, as upstream writes it).
   */
  authorizers(chain: readonly Authorizer[]): readonly Authorizer[] {
    const byRequest = this.#byRequest;
    const audited: Authorizer = {
      name: 'audited-chain',
      async authorize(attrs) {
        const result = await runChain(chain, attrs);
        const record = byRequest.get(attrs.request);
        if (record) {
          record.annotations[DECISION] = result.decision === 'allow' ? 'allow' : 'forbid';
          record.annotations[REASON] = result.reason ?? '';
        }
        return result;
      },
    };
    return [audited];
  }
}

const STATUS_PREFIX = '{"kind":"Status"';

function isStatusJson(bytes: Buffer): boolean {
  return bytes.length > STATUS_PREFIX.length && bytes[0] === 0x7b && bytes.toString('latin1', 0, STATUS_PREFIX.length) === STATUS_PREFIX;
}

/** ResponseComplete, once; for a watch that never started its response, ResponseStarted first. */
function finish(ctx: Context, record: AuditRecord): void {
  if (record.done) return;
  record.done = true;
  const state = ctx.state as AuditState;
  if (state.impersonatedBy) record.impersonatedUser = state.user;
  if (!record.started) {
    record.started = true;
    record.emit('ResponseStarted');
  }
  record.emit('ResponseComplete');
}

/** A watch's ResponseStarted goes out as its headers are written. */
function watchResponseStart(ctx: Context, record: AuditRecord): void {
  const res = ctx.res;
  const writeHead = res.writeHead;
  res.writeHead = function auditedWriteHead(this: typeof res, ...args: unknown[]) {
    res.writeHead = writeHead;
    if (!record.started && !record.done) {
      record.started = true;
      const state = ctx.state as AuditState;
      if (state.impersonatedBy) record.impersonatedUser = state.user;
      record.setCode(typeof args[0] === 'number' ? args[0] : res.statusCode);
      record.emit('ResponseStarted');
    }
    return (writeHead as (...a: unknown[]) => typeof res).apply(this, args);
  } as typeof res.writeHead;
}
