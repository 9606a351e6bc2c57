/**
 * Levels, versions and namespace policies of Pod Security Admission (k8s.io/pod-security-admission/api),
 * and the evaluator that runs the checks of a level at a version.
 */
import type { FieldError } from '../../../api/errors.ts';
import type { Obj } from '../common.ts';
import { CHECKS, type CheckFn, type CheckResult, type Level, type VersionedCheck } from './checks.ts';

export type { Level } from './checks.ts';

/** `latest`, or v1.<minor>. */
export type Version = { readonly latest: true } | { readonly latest: false; readonly minor: number };
export interface LevelVersion {
  readonly level: Level;
  readonly version: Version;
}
export interface Policy {
  readonly enforce: LevelVersion;
  readonly audit: LevelVersion;
  readonly warn: LevelVersion;
}

export const LATEST: Version = { latest: true };
const LABEL_PREFIX = 'pod-security.kubernetes.io/';
export const LABELS = {
  enforce: `${LABEL_PREFIX}enforce`,
  enforceVersion: `${LABEL_PREFIX}enforce-version`,
  audit: `${LABEL_PREFIX}audit`,
  auditVersion: `${LABEL_PREFIX}audit-version`,
  warn: `${LABEL_PREFIX}warn`,
  warnVersion: `${LABEL_PREFIX}warn-version`,
} as const;
export const ANNOTATION_PREFIX = LABEL_PREFIX;

export const PRIVILEGED_LATEST: LevelVersion = { level: 'privileged', version: LATEST };
export const DEFAULT_POLICY: Policy = { enforce: PRIVILEGED_LATEST, audit: PRIVILEGED_LATEST, warn: PRIVILEGED_LATEST };

export function versionString(v: Version): string {
  return v.latest ? 'latest' : `v1.${v.minor}`;
}

export function levelVersionString(lv: LevelVersion): string {
  return `${lv.level}:${versionString(lv.version)}`;
}

export function sameVersion(a: Version, b: Version): boolean {
  return a.latest ? b.latest : !b.latest && a.minor === b.minor;
}

export function sameLevelVersion(a: LevelVersion, b: LevelVersion): boolean {
  return a.level === b.level && sameVersion(a.version, b.version);
}

/** Whether two level-versions enforce the same thing (all privileged ones do). */
function equivalent(a: LevelVersion, b: LevelVersion): boolean {
  return (a.level === 'privileged' && b.level === 'privileged') || sameLevelVersion(a, b);
}

export function equivalentPolicies(a: Policy, b: Policy): boolean {
  return equivalent(a.enforce, b.enforce) && equivalent(a.audit, b.audit) && equivalent(a.warn, b.warn);
}

export function fullyPrivileged(p: Policy): boolean {
  return p.enforce.level === 'privileged' && p.audit.level === 'privileged' && p.warn.level === 'privileged';
}

/** -1, 0 or 1 as level a is less, as or more strict than b. */
export function compareLevels(a: Level, b: Level): number {
  if (a === b) return 0;
  if (a === 'privileged') return -1;
  if (a === 'restricted') return 1;
  return b === 'privileged' ? 1 : -1;
}

export function parseLevel(text: string): Level | undefined {
  return text === 'privileged' || text === 'baseline' || text === 'restricted' ? text : undefined;
}

export function parseVersion(text: string): Version | undefined {
  if (text === 'latest') return LATEST;
  const m = /^v1\.([0-9]|[1-9][0-9]*)$/.exec(text);
  if (!m) return undefined;
  const minor = Number(m[1]);
  return Number.isSafeInteger(minor) ? { latest: false, minor } : undefined;
}

const LEVEL_ERROR = 'must be one of privileged, baseline, restricted';
const VERSION_ERROR = 'must be "latest" or "v1.x"';

/**
 * The policy a namespace's labels set over `defaults` (api.PolicyToEvaluate): bad levels fail closed
 * for enforce (restricted) and open for audit and warn (privileged), bad versions mean latest; warn
 * follows a stricter enforce level unless set itself. Errors name the bad labels.
 */
export function policyToEvaluate(labels: Readonly<Record<string, string>> | undefined, defaults: Policy = DEFAULT_POLICY): { policy: Policy; errors: FieldError[] } {
  const errors: FieldError[] = [];
  if (!labels || Object.keys(labels).length === 0) return { policy: defaults, errors };
  let { enforce, audit, warn } = defaults;
  const bad = (label: string, value: string, detail: string) => errors.push({ type: 'FieldValueInvalid', field: `metadata.labels[${label}]`, value, detail });
  const has = (k: string) => Object.hasOwn(labels, k);
  let hasEnforceLevel = false;
  if (has(LABELS.enforce)) {
    const level = parseLevel(labels[LABELS.enforce]!);
    if (level) hasEnforceLevel = true;
    else bad(LABELS.enforce, labels[LABELS.enforce]!, LEVEL_ERROR);
    enforce = { ...enforce, level: level ?? 'restricted' };
  }
  if (has(LABELS.enforceVersion)) {
    const version = parseVersion(labels[LABELS.enforceVersion]!);
    if (!version) bad(LABELS.enforceVersion, labels[LABELS.enforceVersion]!, VERSION_ERROR);
    enforce = { ...enforce, version: version ?? LATEST };
  }
  if (has(LABELS.audit)) {
    const level = parseLevel(labels[LABELS.audit]!);
    if (!level) bad(LABELS.audit, labels[LABELS.audit]!, LEVEL_ERROR);
    audit = { ...audit, level: level ?? 'privileged' };
  }
  if (has(LABELS.auditVersion)) {
    const version = parseVersion(labels[LABELS.auditVersion]!);
    if (!version) bad(LABELS.auditVersion, labels[LABELS.auditVersion]!, VERSION_ERROR);
    audit = { ...audit, version: version ?? LATEST };
  }
  const hasWarnLevel = has(LABELS.warn);
  if (hasWarnLevel) {
    const level = parseLevel(labels[LABELS.warn]!);
    if (!level) bad(LABELS.warn, labels[LABELS.warn]!, LEVEL_ERROR);
    warn = { ...warn, level: level ?? 'privileged' };
  }
  const hasWarnVersion = has(LABELS.warnVersion);
  if (hasWarnVersion) {
    const version = parseVersion(labels[LABELS.warnVersion]!);
    if (!version) bad(LABELS.warnVersion, labels[LABELS.warnVersion]!, VERSION_ERROR);
    warn = { ...warn, version: version ?? LATEST };
  }
  if (!hasWarnLevel && hasEnforceLevel && compareLevels(enforce.level, warn.level) > 0) {
    warn = { level: enforce.level, version: hasWarnVersion ? warn.version : enforce.version };
  }
  return { policy: { enforce, audit, warn }, errors };
}

/** What a pod breaks at a level and version. */
export interface AggregateResult {
  readonly allowed: boolean;
  readonly reasons: readonly string[];
  readonly details: readonly string[];
}

/** "reason (detail), reason (detail)", as AggregateCheckResult.ForbiddenDetail. */
export function forbiddenDetail(r: AggregateResult): string {
  return r.reasons.map((reason, i) => (r.details[i] ? `${reason} (${r.details[i]})` : reason)).join(', ');
}

/** "reason, reason", as AggregateCheckResult.ForbiddenReason. */
export function forbiddenReason(r: AggregateResult): string {
  return r.reasons.join(', ');
}

function aggregate(results: readonly CheckResult[]): AggregateResult {
  const reasons: string[] = [];
  const details: string[] = [];
  for (const r of results) {
    if (r.allowed) continue;
    reasons.push(r.reason || 'unknown forbidden reason');
    details.push(r.detail ?? '');
  }
  return { allowed: reasons.length === 0, reasons, details };
}

/**
 * The checks of each level at each version, built as upstream's registry does: a check applies
 * from its first version on, each form until the next; restricted runs the baseline checks it does
 * not override, then its own; within a level, checks run in the order of their ids.
 */
class Registry {
  readonly maxMinor: number;
  readonly #baseline = new Map<number, CheckFn[]>();
  readonly #restricted = new Map<number, CheckFn[]>();

  constructor() {
    this.maxMinor = Math.max(...CHECKS.map((c) => c.versions[c.versions.length - 1]!.minimum));
    const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    const baseline = CHECKS.filter((c) => c.level === 'baseline').sort(byId);
    const restricted = CHECKS.filter((c) => c.level === 'restricted').sort(byId);
    const at = (versions: readonly VersionedCheck[], minor: number) => [...versions].reverse().find((v) => v.minimum <= minor);
    for (let minor = 0; minor <= this.maxMinor; minor++) {
      const overridden = new Set<string>();
      for (const c of restricted) for (const o of at(c.versions, minor)?.overrides ?? []) overridden.add(o);
      const base: CheckFn[] = [];
      const strict: CheckFn[] = [];
      for (const c of baseline) {
        const v = at(c.versions, minor);
        if (!v) continue;
        base.push(v.check);
        if (!overridden.has(c.id)) strict.push(v.check);
      }
      for (const c of restricted) {
        const v = at(c.versions, minor);
        if (v) strict.push(v.check);
      }
      this.#baseline.set(minor, base);
      this.#restricted.set(minor, strict);
    }
  }

  evaluate(lv: LevelVersion, meta: Obj, spec: Obj): AggregateResult {
    if (lv.level === 'privileged') return { allowed: true, reasons: [], details: [] };
    const minor = lv.version.latest || lv.version.minor > this.maxMinor ? this.maxMinor : lv.version.minor;
    const checks = (lv.level === 'baseline' ? this.#baseline : this.#restricted).get(minor) ?? [];
    return aggregate(checks.map((check) => check(meta, spec)));
  }
}

const REGISTRY = new Registry();

/** What a pod (its metadata and spec) breaks at a level and version. */
export function evaluatePod(lv: LevelVersion, meta: Obj, spec: Obj): AggregateResult {
  return REGISTRY.evaluate(lv, meta, spec);
}
