/**
 * The audit policy (`--audit-policy-file`, audit.k8s.io/v1 Policy) as kube-apiserver 1.34 reads and
 * applies it: rules are tried in order and the first that matches decides the level, the stages
 * left out and whether managedFields are dropped; a request no rule matches is not audited.
 */
import { readFile } from 'node:fs/promises';
import type { FieldError } from '../api/errors.ts';
import { fieldErrorText } from '../api/errors.ts';
import type { RequestInfo } from '../api/request-info.ts';
import { dns1123SubdomainErrors } from '../api/validation/names.ts';
import { parseYaml } from '../codecs/index.ts';
import * as field from '../registry/validation/field.ts';
import { StartupError } from '../startup-error.ts';
import type { UserInfo } from '../auth/user.ts';

export type Level = 'None' | 'Metadata' | 'Request' | 'RequestResponse';
export type Stage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';

export const LEVELS: readonly Level[] = ['None', 'Metadata', 'Request', 'RequestResponse'];
export const STAGES: readonly Stage[] = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'];

/** Level order: None < Metadata < Request < RequestResponse. */
export function levelAtLeast(level: Level, min: Level): boolean {
  return LEVELS.indexOf(level) >= LEVELS.indexOf(min);
}

export interface GroupResources {
  readonly group?: string;
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
}

export interface PolicyRule {
  readonly level: Level;
  readonly users?: readonly string[];
  readonly userGroups?: readonly string[];
  readonly verbs?: readonly string[];
  readonly resources?: readonly GroupResources[];
  readonly namespaces?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
  readonly omitStages?: readonly Stage[];
  readonly omitManagedFields?: boolean;
}

export interface Policy {
  readonly rules: readonly PolicyRule[];
  readonly omitStages?: readonly Stage[];
  readonly omitManagedFields?: boolean;
}

/** What the policy decides for one request (upstream's RequestAuditConfig). */
export interface RequestAuditConfig {
  readonly level: Level;
  readonly omitStages: ReadonlySet<Stage>;
  readonly omitManagedFields: boolean;
}

/** The attributes a rule is matched against: the authenticated user (none when authentication failed) and the request. */
export interface PolicyAttributes {
  readonly user: UserInfo | undefined;
  readonly request: RequestInfo;
}

/** A policy file that cannot be used; the message is upstream's. */
export class PolicyError extends StartupError {
  override name = 'PolicyError';
}

// ---------------------------------------------------------------------------------------------
// Decoding

type Json = unknown;

/** The Go type each field decodes into, for strict decoding and type errors. */
interface FieldSpec {
  readonly type: 'string' | 'bool' | 'stringList' | 'rules' | 'groupResources' | 'object' | 'stages';
}

const POLICY_FIELDS: Record<string, FieldSpec> = {
  apiVersion: { type: 'string' },
  kind: { type: 'string' },
  metadata: { type: 'object' },
  rules: { type: 'rules' },
  omitStages: { type: 'stages' },
  omitManagedFields: { type: 'bool' },
};

const RULE_FIELDS: Record<string, FieldSpec> = {
  level: { type: 'string' },
  users: { type: 'stringList' },
  userGroups: { type: 'stringList' },
  verbs: { type: 'stringList' },
  resources: { type: 'groupResources' },
  namespaces: { type: 'stringList' },
  nonResourceURLs: { type: 'stringList' },
  omitStages: { type: 'stages' },
  omitManagedFields: { type: 'bool' },
};

const GROUP_RESOURCE_FIELDS: Record<string, FieldSpec> = {
  group: { type: 'string' },
  resources: { type: 'stringList' },
  resourceNames: { type: 'stringList' },
};

function isRecord(v: Json): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function jsonTypeName(v: Json): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

const GO_TYPE: Record<FieldSpec['type'], string> = {
  string: 'string',
  bool: 'bool',
  stringList: '[]string',
  rules: '[]v1.PolicyRule',
  groupResources: '[]v1.GroupResources',
  object: 'v1.ObjectMeta',
  stages: '[]v1.Stage',
};

/** A value of the wrong JSON type: encoding/json's UnmarshalTypeError text. */
class TypeError_ extends Error {}

function typeError(value: Json, struct: string, path: string, spec: FieldSpec): TypeError_ {
  return new TypeError_(`json: cannot unmarshal ${jsonTypeName(value)} into Go struct field ${struct}.${path} of type ${GO_TYPE[spec.type]}`);
}

/**
 * Decodes one object of a known shape: unknown fields are collected (strict decoding reports them,
 * lenient decoding drops them); a value of the wrong type fails both. JSON null leaves a field unset.
 */
function decodeFields(
  value: Record<string, Json>,
  fields: Record<string, FieldSpec>,
  struct: string,
  prefix: string,
  unknown: string[],
  out: Record<string, unknown>,
): void {
  for (const [key, v] of Object.entries(value)) {
    const spec = fields[key];
    const at = prefix ? `${prefix}.${key}` : key;
    if (!spec) {
      unknown.push(at);
      continue;
    }
    if (v === null) continue;
    switch (spec.type) {
      case 'string':
        if (typeof v !== 'string') throw typeError(v, struct, at, spec);
        out[key] = v;
        break;
      case 'bool':
        if (typeof v !== 'boolean') throw typeError(v, struct, at, spec);
        out[key] = v;
        break;
      case 'object':
        if (!isRecord(v)) throw typeError(v, struct, at, spec);
        break;
      case 'stringList':
      case 'stages':
        if (!Array.isArray(v)) throw typeError(v, struct, at, spec);
        out[key] = v.map((item) => {
          if (typeof item !== 'string') throw typeError(item, struct, at, { type: 'string' });
          return item;
        });
        break;
      case 'rules':
        if (!Array.isArray(v)) throw typeError(v, struct, at, spec);
        out[key] = v.map((item, i) => {
          if (item === null) return {};
          if (!isRecord(item)) throw typeError(item, struct, at, spec);
          const rule: Record<string, unknown> = {};
          decodeFields(item, RULE_FIELDS, struct, `${at}[${i}]`, unknown, rule);
          return rule;
        });
        break;
      case 'groupResources':
        if (!Array.isArray(v)) throw typeError(v, struct, at, spec);
        out[key] = v.map((item, i) => {
          if (item === null) return {};
          if (!isRecord(item)) throw typeError(item, struct, at, spec);
          const gr: Record<string, unknown> = {};
          decodeFields(item, GROUP_RESOURCE_FIELDS, struct, `${at}[${i}]`, unknown, gr);
          return gr;
        });
        break;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Validation (upstream's ValidatePolicy)

function validateOmitStages(stages: readonly string[] | undefined, at: field.FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  (stages ?? []).forEach((stage, i) => {
    if (!(STAGES as readonly string[]).includes(stage)) errs.push(field.invalid(at.index(i), stage, `allowed stages are ${STAGES.join(',')}`));
  });
  return errs;
}

function validateRule(rule: PolicyRule, at: field.FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const level = rule.level as string | undefined;
  if (level === undefined || level === '') errs.push(field.required(at.child('level')));
  else if (!(LEVELS as readonly string[]).includes(level)) errs.push(field.notSupported(at.child('level'), level, LEVELS));
  (rule.nonResourceURLs ?? []).forEach((url, i) => {
    if (url === '*') return;
    if (!url.startsWith('/')) errs.push(field.invalid(at.child('nonResourceURLs').index(i), url, "non-resource URL rules must begin with a '/' character"));
    if (url !== '' && url.slice(0, -1).includes('*')) {
      errs.push(field.invalid(at.child('nonResourceURLs').index(i), url, "non-resource URL wildcards '*' must be the final character of the rule"));
    }
  });
  for (const gr of rule.resources ?? []) {
    if (gr.group) {
      const msgs = dns1123SubdomainErrors(gr.group);
      if (msgs.length > 0) errs.push(field.invalid(at.child('resources', 'group'), gr.group, msgs.join(',')));
    }
    if ((gr.resourceNames?.length ?? 0) > 0 && (gr.resources?.length ?? 0) === 0) {
      errs.push(field.invalid(at.child('resources', 'resourceNames'), gr.resourceNames, 'using resourceNames requires at least one resource'));
    }
  }
  errs.push(...validateOmitStages(rule.omitStages, at.child('omitStages')));
  if ((rule.nonResourceURLs?.length ?? 0) > 0 && ((rule.resources?.length ?? 0) > 0 || (rule.namespaces?.length ?? 0) > 0)) {
    errs.push(field.invalid(at.child('nonResourceURLs'), rule.nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'));
  }
  return errs;
}

/** upstream's ValidatePolicy, as its aggregate error prints (`[a, b]` when there are several). */
export function validatePolicy(policy: Policy): string | undefined {
  const errs = [...validateOmitStages(policy.omitStages, field.path('omitStages'))];
  policy.rules.forEach((rule, i) => errs.push(...validateRule(rule, field.path('rules').index(i))));
  if (errs.length === 0) return undefined;
  const list = errs.map((e) => `${e.field}: ${fieldErrorText(e)}`);
  return list.length === 1 ? list[0] : `[${list.join(', ')}]`;
}

export interface ParsedPolicy {
  readonly policy: Policy;
  /** Set when strict decoding failed and the policy was read leniently (upstream logs it as a warning). */
  readonly warning?: string;
}

/**
 * Reads a policy from its text (YAML or JSON) with upstream's checks and messages: strict decoding,
 * falling back to lenient decoding (unknown fields dropped, with a warning); only audit.k8s.io/v1
 * (v1beta1 and v1alpha1 are gone from kube-apiserver since 1.24); validation; at least one rule.
 */
export function parsePolicy(text: string): ParsedPolicy {
  let doc: Json;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new PolicyError(`failed decoding: error converting YAML to JSON: ${(err as Error).message}`);
  }
  if (doc !== null && doc !== undefined && !isRecord(doc)) {
    throw new PolicyError(`failed decoding: couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonTypeName(doc)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  }
  const obj = (doc ?? {}) as Record<string, Json>;
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  // The decoder fills in what the document leaves out from the type it decodes into (the internal
  // Policy): no apiVersion at all is the internal version, which no file may name.
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
  const gvKind = kind || 'Policy';
  if (apiVersion === '') throw new PolicyError(`unknown group version field audit.k8s.io/__internal, Kind=${gvKind} in policy`);
  if (group !== 'audit.k8s.io' || version !== 'v1' || gvKind !== 'Policy') {
    throw new PolicyError(`failed decoding: no kind "${gvKind}" is registered for version "${apiVersion}" in scheme "k8s.io/apiserver/pkg/audit/scheme.go:30"`);
  }
  const decoded: Record<string, unknown> = {};
  const unknown: string[] = [];
  try {
    decodeFields(obj, POLICY_FIELDS, 'Policy', '', unknown, decoded);
  } catch (err) {
    if (err instanceof TypeError_) throw new PolicyError(`failed decoding: ${err.message}`);
    throw err;
  }
  const policy: Policy = {
    rules: (decoded.rules as PolicyRule[] | undefined) ?? [],
    ...(decoded.omitStages ? { omitStages: decoded.omitStages as Stage[] } : {}),
    ...(decoded.omitManagedFields !== undefined ? { omitManagedFields: decoded.omitManagedFields as boolean } : {}),
  };
  const problems = validatePolicy(policy);
  if (problems) throw new PolicyError(problems);
  if (policy.rules.length === 0) throw new PolicyError('loaded illegal policy with 0 rules');
  const warning = unknown.length > 0 ? `strict decoding error: ${unknown.map((u) => `unknown field "${u}"`).join(', ')}` : undefined;
  return { policy, ...(warning ? { warning } : {}) };
}

/** Go's text for an operating-system error of a file operation (`open <path>: no such file or directory`). */
function goFileError(op: string, path: string, err: NodeJS.ErrnoException): string {
  const texts: Record<string, string> = {
    ENOENT: 'no such file or directory',
    EACCES: 'permission denied',
    EISDIR: 'is a directory',
    ENOTDIR: 'not a directory',
    ELOOP: 'too many levels of symbolic links',
  };
  const text = (err.code && texts[err.code]) ?? err.message;
  return `${err.code === 'EISDIR' ? 'read' : op} ${path}: ${text}`;
}

/**
 * Loads `--audit-policy-file`; every failure is a PolicyError worded as kube-apiserver's start-up
 * error (`loading audit policy file: … : from file <path>`).
 */
export async function loadPolicyFile(path: string): Promise<ParsedPolicy> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new PolicyError(`loading audit policy file: failed to read file path ${JSON.stringify(path)}: ${goFileError('open', path, err as NodeJS.ErrnoException)}`);
  }
  try {
    return parsePolicy(text);
  } catch (err) {
    if (err instanceof PolicyError) throw new PolicyError(`loading audit policy file: ${err.message}: from file ${path}`);
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// Evaluation (upstream's policyRuleEvaluator)

interface CompiledResources {
  readonly group: string;
  readonly resources: readonly string[];
  readonly resourceNames: ReadonlySet<string> | undefined;
}

interface CompiledRule {
  readonly config: RequestAuditConfig;
  readonly users: ReadonlySet<string> | undefined;
  readonly userGroups: ReadonlySet<string> | undefined;
  readonly verbs: ReadonlySet<string> | undefined;
  readonly namespaces: ReadonlySet<string> | undefined;
  readonly resources: readonly CompiledResources[] | undefined;
  readonly nonResourceURLs: readonly string[] | undefined;
}

function setOf(list: readonly string[] | undefined): ReadonlySet<string> | undefined {
  return list && list.length > 0 ? new Set(list) : undefined;
}

/** The policy, compiled for matching: sets for the lists, each rule's stages joined with the policy's. */
export class PolicyChecker {
  readonly #rules: readonly CompiledRule[];
  readonly #default: RequestAuditConfig;

  constructor(policy: Policy) {
    const policyStages = policy.omitStages ?? [];
    const policyOmitManagedFields = policy.omitManagedFields ?? false;
    this.#rules = policy.rules.map((rule) => ({
      config: {
        level: rule.level,
        omitStages: new Set([...policyStages, ...(rule.omitStages ?? [])]),
        omitManagedFields: rule.omitManagedFields ?? policyOmitManagedFields,
      },
      users: setOf(rule.users),
      userGroups: setOf(rule.userGroups),
      verbs: setOf(rule.verbs),
      namespaces: rule.namespaces && rule.namespaces.length > 0 ? new Set(rule.namespaces) : undefined,
      resources:
        rule.resources && rule.resources.length > 0
          ? rule.resources.map((gr) => ({ group: gr.group ?? '', resources: gr.resources ?? [], resourceNames: setOf(gr.resourceNames) }))
          : undefined,
      nonResourceURLs: rule.nonResourceURLs && rule.nonResourceURLs.length > 0 ? rule.nonResourceURLs : undefined,
    }));
    this.#default = { level: 'None', omitStages: new Set(policyStages), omitManagedFields: policyOmitManagedFields };
  }

  /** The first matching rule's level and options; None (not audited) when no rule matches. */
  evaluate(attrs: PolicyAttributes): RequestAuditConfig {
    for (const rule of this.#rules) {
      if (ruleMatches(rule, attrs)) return rule.config;
    }
    return this.#default;
  }
}

function ruleMatches(rule: CompiledRule, { user, request }: PolicyAttributes): boolean {
  if (rule.users && (!user || !rule.users.has(user.name))) return false;
  if (rule.userGroups) {
    if (!user) return false;
    const groups = rule.userGroups;
    if (!user.groups.some((g) => groups.has(g))) return false;
  }
  if (rule.verbs && !rule.verbs.has(request.verb)) return false;
  if (rule.namespaces || rule.resources) return resourceMatches(rule, request);
  if (rule.nonResourceURLs) return !request.isResourceRequest && rule.nonResourceURLs.some((spec) => pathMatches(request.path, spec));
  return true;
}

function pathMatches(path: string, spec: string): boolean {
  if (spec === '*' || spec === path) return true;
  return spec.endsWith('*') && path.startsWith(spec.replace(/\*+$/, ''));
}

function resourceMatches(rule: CompiledRule, request: RequestInfo): boolean {
  if (!request.isResourceRequest) return false;
  // Cluster-scoped requests have the namespace "", which a rule can name.
  if (rule.namespaces && !rule.namespaces.has(request.namespace)) return false;
  if (!rule.resources) return true;
  const { resource, subresource, name } = request;
  const combined = subresource ? `${resource}/${subresource}` : resource;
  for (const gr of rule.resources) {
    if (gr.group !== request.apiGroup) continue;
    if (gr.resources.length === 0) return true;
    if (gr.resourceNames && !gr.resourceNames.has(name)) continue;
    for (const res of gr.resources) {
      if (res === '*' || res === combined) return true;
      if (subresource && res.startsWith('*/') && res.slice(2) === subresource) return true;
      if (res.endsWith('/*') && res.slice(0, -2) === resource) return true;
    }
  }
  return false;
}
