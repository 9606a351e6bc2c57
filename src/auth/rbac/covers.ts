/**
 * Whether one set of rules grants everything another does (upstream's validation.Covers): the asked
 * rules are broken into single-verb, single-resource (or single-URL) rules, and each must be covered
 * by one owned rule. Used to refuse privilege escalation and by the bootstrap reconciliation.
 */
import type { PolicyRule } from '../../kinds/rbac-rules.ts';

const has = (set: readonly string[] | undefined, v: string) => !!set && set.includes(v);
const hasAll = (set: readonly string[] | undefined, vs: readonly string[] | undefined) => (vs ?? []).every((v) => has(set, v));

/** One rule per group × resource × verb (× name), and per URL × verb. */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const g of rule.apiGroups ?? []) {
    for (const r of rule.resources ?? []) {
      for (const v of rule.verbs ?? []) {
        if ((rule.resourceNames ?? []).length > 0) {
          for (const n of rule.resourceNames!) out.push({ verbs: [v], apiGroups: [g], resources: [r], resourceNames: [n] });
        } else out.push({ verbs: [v], apiGroups: [g], resources: [r] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) for (const v of rule.verbs ?? []) out.push({ verbs: [v], nonResourceURLs: [url] });
  return out;
}

function resourcesCoverAll(owned: readonly string[] | undefined, asked: readonly string[] | undefined): boolean {
  if (has(owned, '*') || hasAll(owned, asked)) return true;
  for (const path of asked ?? []) {
    if (has(owned, path)) continue;
    const slash = path.indexOf('/');
    // `*/status` covers the status subresource of any resource.
    if (slash < 0 || !has(owned, `*/${path.slice(slash + 1)}`)) return false;
  }
  return true;
}

function urlCovers(owned: string, asked: string): boolean {
  return owned === asked || (owned.endsWith('*') && asked.startsWith(owned.replace(/\*+$/, '')));
}

export function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = has(owner.verbs, '*') || hasAll(owner.verbs, sub.verbs);
  const groups = has(owner.apiGroups, '*') || hasAll(owner.apiGroups, sub.apiGroups);
  const resources = resourcesCoverAll(owner.resources, sub.resources);
  const urls = (sub.nonResourceURLs ?? []).every((u) => (owner.nonResourceURLs ?? []).some((o) => urlCovers(o, u)));
  const ownerNames = owner.resourceNames ?? [];
  const names = (sub.resourceNames ?? []).length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, sub.resourceNames);
  return verbs && groups && resources && urls && names;
}

/** Whether `owned` covers `asked`, and the broken-down rules it does not. */
export function covers(owned: readonly PolicyRule[], asked: readonly PolicyRule[]): { covered: boolean; missing: PolicyRule[] } {
  const missing: PolicyRule[] = [];
  for (const rule of asked) {
    for (const sub of breakdownRule(rule)) if (!owned.some((o) => ruleCovers(o, sub))) missing.push(sub);
  }
  return { covered: missing.length === 0, missing };
}

/** Go's %q of a []string: `["a" "b"]`. */
export const quoteList = (values: readonly string[]) => `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;

/** upstream's rbacv1helpers.CompactString: the non-empty fields, in a fixed order. */
export function compactRule(rule: PolicyRule): string {
  const parts: string[] = [];
  const add = (label: string, v: string[] | undefined) => {
    if (v && v.length > 0) parts.push(`${label}:${quoteList(v)}`);
  };
  add('APIGroups', rule.apiGroups);
  add('Resources', rule.resources);
  add('ResourceNames', rule.resourceNames);
  add('NonResourceURLs', rule.nonResourceURLs);
  add('Verbs', rule.verbs);
  return `{${parts.join(', ')}}`;
}
