/**
 * What ValidatingWebhookConfiguration and MutatingWebhookConfiguration share (upstream's
 * admissionregistration v1 defaults and validation): the defaults of a webhook, the rules of one
 * webhook and of the list (unique names, admission review versions), and the client config with
 * Go's URL parsing, whose error texts the messages quote.
 */
import type { FieldError } from '../api/errors.ts';
import { parseUrl, UrlError } from '../api/go/url.ts';
import type { KubeObject } from '../api/types.ts';
import { dns1035LabelErrors, dns1123SubdomainErrors, portNumberErrors } from '../api/validation/names.ts';
import { canonicalJson } from '../registry/system-fields.ts';
import * as field from '../registry/validation/field.ts';
import { labelSelectorErrors, type LabelSelectorValue } from '../registry/validation/label-selector.ts';
import { FAILURE_POLICIES, matchConditionsErrors, ruleWithOperationsErrors, type MatchCondition, type NamedRule } from './admission-rules.ts';

export interface ServiceReference {
  namespace?: string;
  name?: string;
  path?: string;
  port?: number;
}

export interface WebhookClientConfig {
  url?: string | null;
  service?: ServiceReference | null;
  /** base64 PEM, as JSON carries []byte. */
  caBundle?: string;
}

/** One webhook of either configuration (reinvocationPolicy only on mutating ones). */
export interface WebhookValue {
  name?: string;
  clientConfig?: WebhookClientConfig;
  rules?: NamedRule[] | null;
  failurePolicy?: string;
  matchPolicy?: string;
  namespaceSelector?: LabelSelectorValue | null;
  objectSelector?: LabelSelectorValue | null;
  sideEffects?: string;
  timeoutSeconds?: number;
  admissionReviewVersions?: string[] | null;
  matchConditions?: MatchCondition[] | null;
  reinvocationPolicy?: string;
}

export const webhooksOf = (obj: KubeObject): WebhookValue[] => (Array.isArray(obj.webhooks) ? (obj.webhooks as WebhookValue[]) : []);

/** The v1 defaults of a webhook (SetDefaults_ValidatingWebhook / _MutatingWebhook, _Rule, _ServiceReference). */
export function defaultWebhook(hook: WebhookValue, mutating: boolean): void {
  if (!hook || typeof hook !== 'object') return;
  hook.failurePolicy ??= 'Fail';
  hook.matchPolicy ??= 'Equivalent';
  hook.namespaceSelector ??= {};
  hook.objectSelector ??= {};
  hook.timeoutSeconds ??= 10;
  if (mutating) hook.reinvocationPolicy ??= 'Never';
  for (const rule of hook.rules ?? []) if (rule && typeof rule === 'object') rule.scope ??= '*';
  const service = hook.clientConfig?.service;
  if (service && typeof service === 'object') service.port ??= 443;
}

const MATCH_POLICIES = ['Equivalent', 'Exact'];
const ALL_SIDE_EFFECTS = ['None', 'NoneOnDryRun', 'Some', 'Unknown'];
const NO_SIDE_EFFECTS = ['None', 'NoneOnDryRun'];
const REINVOCATION_POLICIES = ['IfNeeded', 'Never'];
/** The AdmissionReview versions this server speaks (and the one before it did). */
export const ACCEPTED_REVIEW_VERSIONS = ['v1', 'v1beta1'];

/** How a configuration is judged: a create is strict; an update is as strict as the stored object allows. */
export interface WebhookRuleOptions {
  readonly ignoreMatchConditions: boolean;
  readonly requireNoSideEffects: boolean;
  readonly requireRecognizedAdmissionReviewVersion: boolean;
  readonly requireUniqueWebhookNames: boolean;
}

export const CREATE_OPTIONS: WebhookRuleOptions = {
  ignoreMatchConditions: false,
  requireNoSideEffects: true,
  requireRecognizedAdmissionReviewVersion: true,
  requireUniqueWebhookNames: true,
};

/** The options of an update (upstream's Validate…WebhookConfigurationUpdate): what the stored object already breaks stays allowed. */
export function updateOptions(next: WebhookValue[], old: WebhookValue[]): WebhookRuleOptions {
  const sameConditions = next.length === old.length && old.every((o, i) => canonicalJson(o?.matchConditions ?? null) === canonicalJson(next[i]?.matchConditions ?? null));
  const names = old.map((h) => h?.name);
  return {
    ignoreMatchConditions: sameConditions,
    requireNoSideEffects: old.every((h) => h?.sideEffects !== undefined && NO_SIDE_EFFECTS.includes(h.sideEffects)),
    requireRecognizedAdmissionReviewVersion: old.every((h) => {
      const versions = h?.admissionReviewVersions ?? [];
      return versions.length === 0 || versions.some((v) => ACCEPTED_REVIEW_VERSIONS.includes(v));
    }),
    requireUniqueWebhookNames: new Set(names).size === names.length,
  };
}

/** IsFullyQualifiedName: a DNS subdomain of at least three segments. */
function fullyQualifiedNameErrors(name: string, at: field.FieldPath): FieldError[] {
  if (!name) return [field.required(at)];
  const problems = dns1123SubdomainErrors(name);
  if (problems.length) return [field.invalid(at, name, problems.join(','))];
  if (name.split('.').length < 3) return [field.invalid(at, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

/** The webhook's own rules (validateValidatingWebhook / validateMutatingWebhook), in upstream's order. */
function webhookErrors(hook: WebhookValue, mutating: boolean, opts: WebhookRuleOptions, at: field.FieldPath): FieldError[] {
  const errs: FieldError[] = [...fullyQualifiedNameErrors(hook.name ?? '', at.child('name'))];
  (hook.rules ?? []).forEach((rule, i) => errs.push(...ruleWithOperationsErrors(rule ?? {}, at.child('rules').index(i))));
  if (hook.failurePolicy !== undefined && !FAILURE_POLICIES.includes(hook.failurePolicy)) errs.push(field.notSupported(at.child('failurePolicy'), hook.failurePolicy, FAILURE_POLICIES));
  if (hook.matchPolicy !== undefined && !MATCH_POLICIES.includes(hook.matchPolicy)) errs.push(field.notSupported(at.child('matchPolicy'), hook.matchPolicy, MATCH_POLICIES));
  const allowed = opts.requireNoSideEffects ? NO_SIDE_EFFECTS : ALL_SIDE_EFFECTS;
  if (hook.sideEffects === undefined) errs.push(field.required(at.child('sideEffects'), `must specify one of ${allowed.join(', ')}`));
  else if (!allowed.includes(hook.sideEffects)) errs.push(field.notSupported(at.child('sideEffects'), hook.sideEffects, allowed));
  if (hook.timeoutSeconds !== undefined && (hook.timeoutSeconds > 30 || hook.timeoutSeconds < 1)) {
    errs.push(field.invalid(at.child('timeoutSeconds'), hook.timeoutSeconds, 'the timeout value must be between 1 and 30 seconds'));
  }
  if (hook.namespaceSelector) errs.push(...labelSelectorErrors(hook.namespaceSelector, at.child('namespaceSelector')));
  if (hook.objectSelector) errs.push(...labelSelectorErrors(hook.objectSelector, at.child('objectSelector')));
  if (mutating && hook.reinvocationPolicy !== undefined && !REINVOCATION_POLICIES.includes(hook.reinvocationPolicy)) {
    errs.push(field.notSupported(at.child('reinvocationPolicy'), hook.reinvocationPolicy, REINVOCATION_POLICIES));
  }
  errs.push(...clientConfigErrors(hook.clientConfig ?? {}, at.child('clientConfig')));
  if (!opts.ignoreMatchConditions) errs.push(...matchConditionsErrors(hook.matchConditions ?? undefined, at.child('matchConditions'), false));
  return errs;
}

function clientConfigErrors(cc: WebhookClientConfig, at: field.FieldPath): FieldError[] {
  const hasUrl = cc.url !== undefined && cc.url !== null;
  const hasService = cc.service !== undefined && cc.service !== null;
  if (hasUrl === hasService) return [field.required(at, 'exactly one of url or service is required')];
  if (hasUrl) return webhookUrlErrors(cc.url!, at.child('url'));
  const s = cc.service!;
  return webhookServiceErrors(s, at.child('service'));
}

/** ValidateWebhookURL with https forced. */
export function webhookUrlErrors(raw: string, at: field.FieldPath): FieldError[] {
  const form = '; desired format: https://host[/path]';
  const parsed = parseGoUrl(raw);
  if ('error' in parsed) return [field.required(at, `url must be a valid URL: ${parsed.error}${form}`)];
  const errs: FieldError[] = [];
  if (parsed.scheme !== 'https') errs.push(field.invalid(at, parsed.scheme, `'https' is the only allowed URL scheme${form}`));
  if (parsed.host === '') errs.push(field.invalid(at, parsed.host, `host must be specified${form}`));
  if (parsed.user !== undefined) errs.push(field.invalid(at, parsed.user, 'user information is not permitted in the URL'));
  if (parsed.fragment !== '') errs.push(field.invalid(at, parsed.fragment, 'fragments are not permitted in the URL'));
  if (parsed.rawQuery !== '') errs.push(field.invalid(at, parsed.rawQuery, 'query parameters are not permitted in the URL'));
  return errs;
}

/** ValidateWebhookService. */
export function webhookServiceErrors(s: ServiceReference, at: field.FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (!s.name) errs.push(field.required(at.child('name')));
  if (!s.namespace) errs.push(field.required(at.child('namespace')));
  const port = s.port ?? 0;
  const portProblems = portNumberErrors(port);
  if (portProblems.length) errs.push(field.invalid(at.child('port'), port, `port is not valid: ${portProblems.join(', ')}`));
  if (s.path === undefined) return errs;
  const p = s.path;
  if (p === '/' || p === '') return errs;
  if (p === '//') return [...errs, field.invalid(at.child('path'), p, 'segment[0] may not be empty')];
  if (!p.startsWith('/')) errs.push(field.invalid(at.child('path'), p, "must start with a '/'"));
  let rest = p.slice(1);
  if (rest.endsWith('/')) rest = rest.slice(0, -1);
  rest.split('/').forEach((step, i) => {
    if (step === '') {
      errs.push(field.invalid(at.child('path'), p, `segment[${i}] may not be empty`));
      return;
    }
    for (const failure of dns1123SubdomainErrors(step)) errs.push(field.invalid(at.child('path'), p, `segment[${i}]: ${failure}`));
  });
  return errs;
}

/** validateAdmissionReviewVersions. */
function reviewVersionsErrors(versions: string[], requireRecognized: boolean, at: field.FieldPath): FieldError[] {
  if (versions.length < 1) return [field.required(at, `must specify one of ${ACCEPTED_REVIEW_VERSIONS.join(', ')}`)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let accepted = false;
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(field.invalid(at.index(i), v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const msg of dns1035LabelErrors(v)) errs.push(field.invalid(at.index(i), v, msg));
    if (ACCEPTED_REVIEW_VERSIONS.includes(v)) accepted = true;
  });
  if (requireRecognized && !accepted) errs.push(field.invalid(at, versions, `must include at least one of ${ACCEPTED_REVIEW_VERSIONS.join(', ')}`));
  return errs;
}

/** Every webhook of a configuration, then the list's rules (review versions, unique names). */
export function webhookConfigurationErrors(obj: KubeObject, mutating: boolean, opts: WebhookRuleOptions): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  webhooksOf(obj).forEach((hook, i) => {
    const at = field.path('webhooks').index(i);
    const h = hook ?? {};
    errs.push(...webhookErrors(h, mutating, opts, at));
    errs.push(...reviewVersionsErrors(h.admissionReviewVersions ?? [], opts.requireRecognizedAdmissionReviewVersion, at.child('admissionReviewVersions')));
    if (opts.requireUniqueWebhookNames && h.name) {
      if (names.has(h.name)) errs.push(field.duplicate(at.child('name'), h.name));
      else names.add(h.name);
    }
  });
  return errs;
}

// ---- Go's url.Parse (src/api/go/url.ts), for the texts of its errors ----

/** The parts of a parsed URL webhooks look at. */
export interface WebhookUrl {
  readonly scheme: string;
  /** The userinfo as written, when the URL has one. */
  readonly user?: string;
  readonly host: string;
  readonly path: string;
  readonly rawQuery: string;
  readonly fragment: string;
}

/** net/url's Parse: the parts of a URL, or its error as Go prints it (`parse "…": missing protocol scheme`). */
export function parseGoUrl(raw: string): WebhookUrl | { error: string } {
  try {
    const u = parseUrl(raw);
    return { scheme: u.scheme, ...(u.user !== undefined ? { user: u.user } : {}), host: u.host, path: u.path, rawQuery: u.rawQuery, fragment: u.fragment };
  } catch (err) {
    if (!(err instanceof UrlError)) throw err;
    return { error: err.message };
  }
}
