/**
 * The --authorization-config file (AuthorizationConfiguration, apiserver.config.k8s.io v1, v1beta1
 * or v1alpha1): read, defaulted and validated as kube-apiserver does, every problem reported with
 * upstream's field path and words, joined as an aggregate prints them.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { fieldErrorText, type FieldError } from '../../../api/errors.ts';
import { parseGoDuration, formatGoDuration } from '../../../api/go/duration.ts';
import { aggregateText } from '../../../api/selectors/label-validation.ts';
import { dns1123SubdomainErrors } from '../../../api/validation/names.ts';
import { compileError } from '../webhook/match-conditions.ts';

export const CONFIG_API_VERSIONS = ['apiserver.config.k8s.io/v1', 'apiserver.config.k8s.io/v1beta1', 'apiserver.config.k8s.io/v1alpha1'];
/** Types that may appear once each; Webhook may repeat. */
const KNOWN_TYPES = ['Node', 'RBAC', 'Webhook'];
const REPEATABLE_TYPES = new Set(['Webhook']);
const MAX_MATCH_CONDITIONS = 64;
const MAX_TIMEOUT_NS = 30e9;

export interface WebhookSpec {
  readonly timeoutMs: number;
  readonly authorizedTtlMs: number;
  readonly unauthorizedTtlMs: number;
  readonly subjectAccessReviewVersion: 'v1' | 'v1beta1';
  readonly failurePolicy: 'NoOpinion' | 'Deny';
  readonly connectionInfo: { readonly type: 'KubeConfigFile' | 'InClusterConfig'; readonly kubeConfigFile?: string };
  readonly matchConditions: readonly { readonly expression: string }[];
}

export interface AuthorizerSpec {
  readonly type: 'Node' | 'RBAC' | 'Webhook';
  readonly name: string;
  readonly webhook?: WebhookSpec;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Reads and validates the file; throws an Error whose message is upstream's aggregate of the problems. */
export function loadAuthorizationConfig(file: string): AuthorizerSpec[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`failed to read authorization config file "${file}": ${(err as Error).message}`);
  }
  return parseAuthorizationConfig(text);
}

/** Parses and validates the text of an AuthorizationConfiguration. */
export function parseAuthorizationConfig(text: string): AuthorizerSpec[] {
  let doc: unknown;
  try {
    doc = yaml.load(text);
  } catch (err) {
    throw new Error(`failed to decode authorization config: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!isObj(doc)) throw new Error('failed to decode authorization config: Object \'Kind\' is missing');
  const apiVersion = str(doc.apiVersion);
  const kind = str(doc.kind);
  if (!kind) throw new Error(`failed to decode authorization config: Object 'Kind' is missing in '${text.trim()}'`);
  if (kind !== 'AuthorizationConfiguration' || !CONFIG_API_VERSIONS.includes(apiVersion)) {
    throw new Error(`failed to decode authorization config: no kind "${kind}" is registered for version "${apiVersion}"`);
  }
  const errors: FieldError[] = [];
  const specs = validate(doc, errors);
  if (errors.length > 0) throw new Error(aggregateText(errors.map((e) => `${e.field}: ${fieldErrorText(e)}`)));
  return specs;
}

function validate(doc: Obj, errors: FieldError[]): AuthorizerSpec[] {
  const authorizers = Array.isArray(doc.authorizers) ? doc.authorizers : [];
  if (authorizers.length === 0) errors.push({ type: 'FieldValueRequired', field: 'authorizers', detail: 'at least one authorization mode must be defined' });
  const seenTypes = new Set<string>();
  const seenNames = new Set<string>();
  const specs: AuthorizerSpec[] = [];
  authorizers.forEach((raw, i) => {
    const at = `authorizers[${i}]`;
    const a = isObj(raw) ? raw : {};
    const type = str(a.type);
    if (!type) return void errors.push({ type: 'FieldValueRequired', field: `${at}.type` });
    if (!KNOWN_TYPES.includes(type)) {
      return void errors.push({ type: 'FieldValueNotSupported', field: `${at}.type`, value: type, detail: `supported values: ${KNOWN_TYPES.map((t) => `"${t}"`).join(', ')}` });
    }
    if (seenTypes.has(type) && !REPEATABLE_TYPES.has(type)) return void errors.push({ type: 'FieldValueDuplicate', field: `${at}.type`, value: type });
    seenTypes.add(type);
    const name = str(a.name);
    if (!name) errors.push({ type: 'FieldValueRequired', field: `${at}.name` });
    else if (seenNames.has(name)) errors.push({ type: 'FieldValueDuplicate', field: `${at}.name`, value: name });
    else {
      const nameErrors = dns1123SubdomainErrors(name);
      if (nameErrors.length > 0) errors.push({ type: 'FieldValueInvalid', field: `${at}.name`, value: name, detail: `authorizer name is invalid: ${nameErrors.join(', ')}` });
    }
    seenNames.add(name);
    if (type === 'Webhook') {
      if (!isObj(a.webhook)) return void errors.push({ type: 'FieldValueRequired', field: `${at}.webhook`, detail: 'required when type=Webhook' });
      // Upstream validates the webhook's fields under the authorizer's own path (no `.webhook`).
      const webhook = validateWebhook(a.webhook, at, errors);
      specs.push({ type, name, webhook });
    } else {
      if (a.webhook !== undefined && a.webhook !== null) errors.push({ type: 'FieldValueInvalid', field: `${at}.webhook`, value: 'non-null', detail: 'may only be specified when type=Webhook' });
      specs.push({ type: type as 'Node' | 'RBAC', name });
    }
  });
  return specs;
}

/** A duration field in nanoseconds: its default when absent, NaN when it is not a Go duration. */
function duration(value: unknown, defaultNs: number): number {
  if (value === undefined || value === null) return defaultNs;
  if (typeof value !== 'string') return NaN;
  return parseGoDuration(value) ?? NaN;
}

function validateWebhook(w: Obj, at: string, errors: FieldError[]): WebhookSpec {
  const timeout = duration(w.timeout, 0);
  if (Number.isNaN(timeout)) errors.push({ type: 'FieldValueInvalid', field: `${at}.timeout`, value: w.timeout, detail: 'must be a duration' });
  else if (timeout === 0) errors.push({ type: 'FieldValueRequired', field: `${at}.timeout` });
  else if (timeout > MAX_TIMEOUT_NS || timeout < 0) errors.push({ type: 'FieldValueInvalid', field: `${at}.timeout`, value: formatGoDuration(timeout), detail: 'must be > 0s and <= 30s' });

  // The defaults of v1 (and the betas): allowed answers 5m, others 30s.
  const ttls: Record<string, number> = {};
  for (const [field, def] of [['authorizedTTL', 300e9], ['unauthorizedTTL', 30e9]] as const) {
    const ns = duration(w[field], def);
    ttls[field] = ns;
    if (Number.isNaN(ns)) errors.push({ type: 'FieldValueInvalid', field: `${at}.${field}`, value: w[field], detail: 'must be a duration' });
    else if (ns === 0) errors.push({ type: 'FieldValueRequired', field: `${at}.${field}` });
    else if (ns < 0) errors.push({ type: 'FieldValueInvalid', field: `${at}.${field}`, value: formatGoDuration(ns), detail: 'must be > 0s' });
  }

  const version = str(w.subjectAccessReviewVersion);
  if (!version) errors.push({ type: 'FieldValueRequired', field: `${at}.subjectAccessReviewVersion` });
  else if (version !== 'v1' && version !== 'v1beta1') {
    errors.push({ type: 'FieldValueNotSupported', field: `${at}.subjectAccessReviewVersion`, value: version, detail: 'supported values: "v1", "v1beta1"' });
  }

  const conditions = Array.isArray(w.matchConditions) ? w.matchConditions : [];
  const matchVersion = str(w.matchConditionSubjectAccessReviewVersion);
  if (!matchVersion) {
    if (conditions.length > 0) errors.push({ type: 'FieldValueRequired', field: `${at}.matchConditionSubjectAccessReviewVersion`, detail: 'required if match conditions are specified' });
  } else if (matchVersion !== 'v1') {
    errors.push({ type: 'FieldValueNotSupported', field: `${at}.matchConditionSubjectAccessReviewVersion`, value: matchVersion, detail: 'supported values: "v1"' });
  }

  const failurePolicy = str(w.failurePolicy);
  if (!failurePolicy) errors.push({ type: 'FieldValueRequired', field: `${at}.failurePolicy` });
  else if (failurePolicy !== 'NoOpinion' && failurePolicy !== 'Deny') {
    errors.push({ type: 'FieldValueNotSupported', field: `${at}.failurePolicy`, value: failurePolicy, detail: 'supported values: "NoOpinion", "Deny"' });
  }

  const info = isObj(w.connectionInfo) ? w.connectionInfo : {};
  const connType = str(info.type);
  const kubeConfigFile = typeof info.kubeConfigFile === 'string' ? info.kubeConfigFile : undefined;
  const fileField = `${at}.connectionInfo.kubeConfigFile`;
  if (!connType) errors.push({ type: 'FieldValueRequired', field: `${at}.connectionInfo.type` });
  else if (connType === 'InClusterConfig') {
    if (kubeConfigFile !== undefined) errors.push({ type: 'FieldValueInvalid', field: fileField, value: kubeConfigFile, detail: 'can only be set when type=KubeConfigFile' });
  } else if (connType === 'KubeConfigFile') {
    if (!kubeConfigFile) errors.push({ type: 'FieldValueRequired', field: fileField });
    else if (!path.isAbsolute(kubeConfigFile)) errors.push({ type: 'FieldValueInvalid', field: fileField, value: kubeConfigFile, detail: 'must be an absolute path' });
    else {
      try {
        if (!statSync(kubeConfigFile).isFile()) errors.push({ type: 'FieldValueInvalid', field: fileField, value: kubeConfigFile, detail: 'must be a regular file' });
      } catch (err) {
        const e = err as NodeJS.ErrnoException;
        const why = e.code === 'ENOENT' ? 'no such file or directory' : e.message;
        errors.push({ type: 'FieldValueInvalid', field: fileField, value: kubeConfigFile, detail: `error loading file: stat ${kubeConfigFile}: ${why}` });
      }
    }
  } else {
    errors.push({ type: 'FieldValueNotSupported', field: `${at}.connectionInfo.type`, value: connType, detail: 'supported values: "InClusterConfig", "KubeConfigFile"' });
  }

  const matchConditions: { expression: string }[] = [];
  if (conditions.length > MAX_MATCH_CONDITIONS) {
    errors.push({ type: 'FieldValueTooMany', field: `${at}.matchConditions`, value: conditions.length, detail: `must have at most ${MAX_MATCH_CONDITIONS} items` });
  } else {
    const seen = new Set<string>();
    conditions.forEach((c, i) => {
      const field = `${at}.matchConditions[${i}].expression`;
      const expression = isObj(c) ? str(c.expression) : '';
      if (!expression.trim()) return void errors.push({ type: 'FieldValueRequired', field });
      if (seen.has(expression)) return void errors.push({ type: 'FieldValueDuplicate', field, value: expression });
      seen.add(expression);
      const problem = compileError(expression);
      if (problem) return void errors.push({ type: 'FieldValueInvalid', field, value: expression, detail: problem });
      matchConditions.push({ expression });
    });
  }

  return {
    timeoutMs: timeout / 1e6,
    authorizedTtlMs: ttls.authorizedTTL! / 1e6,
    unauthorizedTtlMs: ttls.unauthorizedTTL! / 1e6,
    subjectAccessReviewVersion: version as 'v1' | 'v1beta1',
    failurePolicy: failurePolicy as 'NoOpinion' | 'Deny',
    connectionInfo: { type: connType as 'KubeConfigFile' | 'InClusterConfig', ...(kubeConfigFile ? { kubeConfigFile } : {}) },
    matchConditions,
  };
}
