/**
 * upstream's TypeChecker: a policy's validation expressions and message expressions checked
 * against the kinds its matchConstraints name (at most 10, from rules without wildcards in groups
 * or versions, resources without wildcards or subresources) and against its paramKind, giving the
 * expression warnings the status controller writes to status.typeChecking.
 */
import type { KubeObject } from '../../api/types.ts';
import type { GroupVersionKind, KindDefinition } from '../../registry/kind.ts';
import { typedChecker } from './cel.ts';
import { parseGroupVersion, type ParamKind } from './params.ts';

const MAX_TYPES_TO_CHECK = 10;

export interface ExpressionWarning {
  readonly fieldRef: string;
  readonly warning: string;
}

interface Rule {
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
}

interface Spec {
  paramKind?: ParamKind | null;
  matchConstraints?: { resourceRules?: Rule[] | null } | null;
  validations?: { expression?: string; messageExpression?: string }[] | null;
  variables?: { name?: string; expression?: string }[] | null;
}

const byGvk = (a: GroupVersionKind, b: GroupVersionKind) => (a.group !== b.group ? (a.group < b.group ? -1 : 1) : a.version !== b.version ? (a.version < b.version ? -1 : 1) : a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0);

/** GroupVersionKind's String(): `apps/v1, Kind=Deployment`, `/v1, Kind=ConfigMap`. */
export function gvkString(gvk: GroupVersionKind): string {
  return `${gvk.group}/${gvk.version}, Kind=${gvk.kind}`;
}

/** The kinds a policy's expressions are checked against, sorted by group, version and kind. */
export function typesToCheck(spec: Spec, kinds: readonly KindDefinition[]): KindDefinition[] {
  const found = new Map<string, KindDefinition>();
  let count = 0;
  const done = () => [...found.values()].sort(byGvk);
  for (const rule of spec.matchConstraints?.resourceRules ?? []) {
    const groups = rule.apiGroups ?? [];
    const versions = rule.apiVersions ?? [];
    if (groups.length === 0 || groups.some((g) => g.includes('*'))) continue;
    if (versions.length === 0 || versions.some((v) => v.includes('*'))) continue;
    const resources = (rule.resources ?? []).filter((r) => !/[*/]/.test(r));
    if (resources.length === 0) continue;
    for (const group of [...groups].sort()) {
      for (const version of [...versions].sort()) {
        for (const resource of [...resources].sort()) {
          for (const k of kinds) {
            if (k.group !== group || k.version !== version || k.plural !== resource) continue;
            found.set(`${k.group}/${k.version}/${k.kind}`, k);
            if (++count === MAX_TYPES_TO_CHECK) return done();
          }
        }
      }
    }
  }
  return done();
}

/** The expression warnings of a policy (empty when its expressions check, or nothing can be checked). */
export function checkPolicy(policy: KubeObject, kinds: readonly KindDefinition[]): ExpressionWarning[] {
  const spec = (policy.spec ?? {}) as Spec;
  const targets = typesToCheck(spec, kinds);
  if (targets.length === 0) return [];
  let params: KindDefinition | undefined;
  if (spec.paramKind) {
    const gv = parseGroupVersion(spec.paramKind.apiVersion ?? '');
    params = gv && kinds.find((k) => k.group === gv.group && k.version === gv.version && k.kind === spec.paramKind!.kind);
  }
  const variables = (spec.variables ?? []).map((v) => ({ name: v.name ?? '', expression: v.expression ?? '' }));
  const checkers = targets.map((kind) => ({
    gvk: { group: kind.group, version: kind.version, kind: kind.kind },
    // A param kind whose schema is unknown leaves `params` undeclared, as upstream's checker does.
    check: typedChecker({ object: kind.schema, params: spec.paramKind ? (params?.schema ?? 'undeclared') : undefined, variables }),
  }));
  const check = (expression: string): string | undefined => {
    const results: string[] = [];
    for (const c of checkers) {
      const issues = c.check(expression);
      if (issues) results.push(`${gvkString(c.gvk)}: ${issues}\n`);
    }
    return results.length > 0 ? results.join('\n') : undefined;
  };
  const warnings: ExpressionWarning[] = [];
  (spec.validations ?? []).forEach((v, i) => {
    const w = check(v.expression ?? '');
    if (w) warnings.push({ fieldRef: `spec.validations[${i}].expression`, warning: w });
    if (!v.messageExpression) return;
    const m = check(v.messageExpression);
    if (m) warnings.push({ fieldRef: `spec.validations[${i}].messageExpression`, warning: m });
  });
  return warnings;
}
