/**
 * audit.k8s.io/v1 Event lines, written as kube-apiserver's log backend writes them: one JSON object
 * per line with the fields in the Event struct's order, empty fields left out, map keys sorted, and
 * `<`, `>`, `&`, U+2028 and U+2029 escaped as Go's encoding/json escapes them; or the one-line
 * `legacy` text format.
 */
import { goQuote } from '../api/go/quote.ts';
import type { Level, Stage } from './policy.ts';

/** authentication.k8s.io/v1 UserInfo as the event carries it. */
export interface EventUser {
  readonly username?: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

export interface ObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

/** The fields of a metav1.Status that the event keeps (upstream copies these and no others). */
export interface ResponseStatus {
  status?: string;
  message?: string;
  reason?: string;
  details?: unknown;
  code?: number;
}

/** Everything one event line is made of; requestObject and responseObject are JSON texts. */
export interface EventData {
  readonly level: Level;
  readonly auditID: string;
  readonly stage: Stage;
  readonly requestURI: string;
  readonly verb: string;
  readonly user: EventUser;
  readonly impersonatedUser?: EventUser;
  readonly sourceIPs: readonly string[];
  readonly userAgent: string;
  readonly objectRef?: ObjectReference;
  readonly responseStatus?: ResponseStatus;
  readonly requestObject?: string;
  readonly responseObject?: string;
  /** Microseconds since the epoch. */
  readonly requestReceivedTimestamp: number;
  readonly stageTimestamp: number;
  readonly annotations?: Readonly<Record<string, string>>;
}

// ---------------------------------------------------------------------------------------------
// Time

let offsetMs = Date.now() - performance.now();
let syncedAt = performance.now();

/**
 * Now, in microseconds since the epoch: the monotonic clock's sub-millisecond precision, kept in
 * step with the wall clock (re-read at most every second).
 */
export function nowMicros(): number {
  const mono = performance.now();
  if (mono - syncedAt > 1000) {
    offsetMs = Date.now() - mono;
    syncedAt = mono;
  }
  return Math.floor((offsetMs + mono) * 1000);
}

let cachedSecond = -1;
let cachedPrefix = '';

/** metav1.MicroTime's JSON form: RFC 3339 in UTC with exactly six fractional digits. */
export function formatMicroTime(us: number): string {
  const second = Math.floor(us / 1_000_000);
  if (second !== cachedSecond) {
    cachedSecond = second;
    cachedPrefix = new Date(second * 1000).toISOString().slice(0, 19);
  }
  return `${cachedPrefix}.${String(us - second * 1_000_000).padStart(6, '0')}Z`;
}

/** Go's RFC3339Nano: trailing zeros of the fraction dropped (and the dot with them). */
function formatRfc3339Nano(us: number): string {
  const text = formatMicroTime(us);
  const fraction = text.slice(20, 26).replace(/0+$/, '');
  return `${text.slice(0, 19)}${fraction ? `.${fraction}` : ''}Z`;
}

// ---------------------------------------------------------------------------------------------
// JSON

const str = JSON.stringify;

function stringList(list: readonly string[]): string {
  return `[${list.map((s) => str(s)).join(',')}]`;
}

function sortedKeys(record: Readonly<Record<string, unknown>>): string[] {
  return Object.keys(record).sort();
}

function userJson(u: EventUser): string {
  const parts: string[] = [];
  if (u.username) parts.push(`"username":${str(u.username)}`);
  if (u.uid) parts.push(`"uid":${str(u.uid)}`);
  if (u.groups && u.groups.length > 0) parts.push(`"groups":${stringList(u.groups)}`);
  if (u.extra) {
    const keys = sortedKeys(u.extra);
    if (keys.length > 0) parts.push(`"extra":{${keys.map((k) => `${str(k)}:${stringList(u.extra![k]!)}`).join(',')}}`);
  }
  return `{${parts.join(',')}}`;
}

function objectRefJson(r: ObjectReference): string {
  const parts: string[] = [];
  if (r.resource) parts.push(`"resource":${str(r.resource)}`);
  if (r.namespace) parts.push(`"namespace":${str(r.namespace)}`);
  if (r.name) parts.push(`"name":${str(r.name)}`);
  if (r.uid) parts.push(`"uid":${str(r.uid)}`);
  if (r.apiGroup) parts.push(`"apiGroup":${str(r.apiGroup)}`);
  if (r.apiVersion) parts.push(`"apiVersion":${str(r.apiVersion)}`);
  if (r.resourceVersion) parts.push(`"resourceVersion":${str(r.resourceVersion)}`);
  if (r.subresource) parts.push(`"subresource":${str(r.subresource)}`);
  return `{${parts.join(',')}}`;
}

function detailsJson(details: unknown): string | undefined {
  if (!details || typeof details !== 'object') return undefined;
  const d = details as { name?: string; group?: string; kind?: string; uid?: string; causes?: { reason?: string; message?: string; field?: string }[]; retryAfterSeconds?: number };
  const parts: string[] = [];
  if (d.name) parts.push(`"name":${str(d.name)}`);
  if (d.group) parts.push(`"group":${str(d.group)}`);
  if (d.kind) parts.push(`"kind":${str(d.kind)}`);
  if (d.uid) parts.push(`"uid":${str(d.uid)}`);
  if (d.causes && d.causes.length > 0) {
    const causes = d.causes.map((c) => {
      const cp: string[] = [];
      if (c.reason) cp.push(`"reason":${str(c.reason)}`);
      if (c.message) cp.push(`"message":${str(c.message)}`);
      if (c.field) cp.push(`"field":${str(c.field)}`);
      return `{${cp.join(',')}}`;
    });
    parts.push(`"causes":[${causes.join(',')}]`);
  }
  if (d.retryAfterSeconds) parts.push(`"retryAfterSeconds":${d.retryAfterSeconds}`);
  return `{${parts.join(',')}}`;
}

function statusJson(s: ResponseStatus): string {
  const parts = ['"metadata":{}'];
  if (s.status) parts.push(`"status":${str(s.status)}`);
  if (s.message) parts.push(`"message":${str(s.message)}`);
  if (s.reason) parts.push(`"reason":${str(s.reason)}`);
  const details = detailsJson(s.details);
  if (details !== undefined) parts.push(`"details":${details}`);
  if (s.code) parts.push(`"code":${s.code}`);
  return `{${parts.join(',')}}`;
}

const GO_ESCAPES: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };
const GO_ESCAPED = /[<>&\u2028\u2029]/g;

/** Go's encoding/json escapes these inside strings (they can appear nowhere else in JSON text). */
function goEscape(json: string): string {
  GO_ESCAPED.lastIndex = 0;
  return GO_ESCAPED.test(json) ? json.replace(GO_ESCAPED, (ch) => GO_ESCAPES[ch]!) : json;
}

/**
 * The parts of a request's lines that are the same in each of its events, kept by the record that
 * writes them so that each is built once.
 */
export interface LineParts {
  head?: string;
  who?: string;
  from?: string;
}

/** One event as a JSON line (with its newline); `parts` keeps what the request's next events reuse. */
export function eventJsonLine(ev: EventData, parts: LineParts = {}): string {
  parts.head ??= `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"${ev.level}","auditID":${str(ev.auditID)},"stage":"`;
  parts.who ??= `","requestURI":${str(ev.requestURI)},"verb":${str(ev.verb)},"user":${userJson(ev.user)}`;
  parts.from ??= `${ev.sourceIPs.length > 0 ? `,"sourceIPs":${stringList(ev.sourceIPs)}` : ''}${ev.userAgent ? `,"userAgent":${str(ev.userAgent)}` : ''}`;
  let out = parts.head + ev.stage + parts.who;
  if (ev.impersonatedUser) out += `,"impersonatedUser":${userJson(ev.impersonatedUser)}`;
  out += parts.from;
  if (ev.objectRef) out += `,"objectRef":${objectRefJson(ev.objectRef)}`;
  if (ev.responseStatus) out += `,"responseStatus":${statusJson(ev.responseStatus)}`;
  if (ev.requestObject !== undefined) out += `,"requestObject":${ev.requestObject}`;
  if (ev.responseObject !== undefined) out += `,"responseObject":${ev.responseObject}`;
  out += `,"requestReceivedTimestamp":"${formatMicroTime(ev.requestReceivedTimestamp)}","stageTimestamp":"${formatMicroTime(ev.stageTimestamp)}"`;
  if (ev.annotations) {
    const keys = sortedKeys(ev.annotations);
    if (keys.length > 0) out += `,"annotations":{${keys.map((k) => `${str(k)}:${str(ev.annotations![k])}`).join(',')}}`;
  }
  return `${goEscape(out)}}\n`;
}

function quotedList(list: readonly string[]): string {
  return list.map(goQuote).join(',');
}

/** upstream's EventString: the `legacy` format's line (with its newline). */
export function eventLegacyLine(ev: EventData): string {
  let username = '<none>';
  let groups = '<none>';
  if (ev.user.username) {
    username = ev.user.username;
    if (ev.user.groups && ev.user.groups.length > 0) groups = quotedList(ev.user.groups);
  }
  let as = '<self>';
  let asGroups = '<lookup>';
  if (ev.impersonatedUser) {
    as = ev.impersonatedUser.username ?? '';
    if (ev.impersonatedUser.groups) asGroups = quotedList(ev.impersonatedUser.groups);
  }
  const namespace = ev.objectRef?.namespace || '<none>';
  const response = ev.responseStatus ? String(ev.responseStatus.code ?? 0) : '<deferred>';
  const ip = ev.sourceIPs[0] ?? '<unknown>';
  const q = goQuote;
  return (
    `${formatRfc3339Nano(ev.requestReceivedTimestamp)} AUDIT: id=${q(ev.auditID)} stage=${q(ev.stage)} ip=${q(ip)} method=${q(ev.verb)} ` +
    `user=${q(username)} groups=${q(groups)} as=${q(as)} asgroups=${q(asGroups)} user-agent=${q(ev.userAgent)} namespace=${q(namespace)} ` +
    `uri=${q(ev.requestURI)} response="${response}"\n`
  );
}
