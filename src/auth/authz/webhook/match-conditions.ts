/**
 * A webhook's matchConditions: CEL expressions over `request` (a kubernetes.SubjectAccessReviewSpec)
 * that decide whether the webhook is asked at all, in Kubernetes 1.34's environment (src/cel: its
 * libraries, cost rules, RE2 regular expressions and cel-go's error texts), as upstream's
 * authorization/cel compiler and matcher run them. Compiled once when the configuration is read;
 * each evaluation is bounded by the per-call cost limit alone (upstream sets no budget across them).
 */
import { CelEnvironment, SUBJECT_ACCESS_REVIEW_TYPES, typeName, type EvalResult } from '../../../cel/index.ts';

export interface MatchCondition {
  readonly expression: string;
}

export type MatchOutcome = { readonly match: boolean } | { readonly error: string };

let env: CelEnvironment | undefined;
function celEnv(): CelEnvironment {
  return (env ??= new CelEnvironment({ variables: { request: 'kubernetes.SubjectAccessReviewSpec' }, objectTypes: SUBJECT_ACCESS_REVIEW_TYPES }));
}

/**
 * Why one expression does not compile, in upstream's words (`compilation failed: ERROR: …`, or
 * `must evaluate to bool but got string`); undefined when it compiles to a bool.
 */
export function compileError(expression: string): string | undefined {
  return celEnv().problem(expression, 'bool');
}

/**
 * The compiled conditions as one matcher, as upstream's CELMatcher: a condition that is false skips
 * the webhook at once (even after others failed); errors are gathered, and reported when none is
 * false; all true matches.
 */
export function compileMatcher(conditions: readonly MatchCondition[]): (spec: Record<string, unknown>) => MatchOutcome {
  const programs = conditions.map((c) => celEnv().compile(c.expression, 'bool'));
  return (spec) => {
    const request = celRequest(spec);
    const errors: string[] = [];
    for (const program of programs) {
      // No authorizer is declared, so evaluation is synchronous.
      const out = program.evaluate({ request }) as EvalResult;
      if (out.error !== undefined) {
        errors.push(`cel evaluation error: expression '${program.expression}' resulted in error: ${out.error}`);
      } else if (typeof out.value !== 'boolean') {
        errors.push(`cel evaluation error: expression '${program.expression}' eval result type should be bool but got ${typeName(out.value)}`);
      } else if (!out.value) {
        return { match: false };
      }
    }
    // utilerrors.NewAggregate's text: one error alone, several in brackets.
    if (errors.length > 0) return { error: errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]` };
    return { match: true };
  };
}

const RESOURCE_ATTRIBUTES = ['namespace', 'verb', 'group', 'version', 'resource', 'subresource', 'name'] as const;

/**
 * The spec as upstream hands it to CEL (convertObjectToUnstructured): user, uid, groups and extra
 * always present (empty when unset), and every string of the resource or non-resource attributes,
 * empty ones included, where the review's spec leaves empty values out.
 */
function celRequest(spec: Record<string, unknown>): Record<string, unknown> {
  const request: Record<string, unknown> = { user: spec.user ?? '', groups: spec.groups ?? [], uid: spec.uid ?? '', extra: spec.extra ?? {} };
  const resource = spec.resourceAttributes as Record<string, string> | undefined;
  if (resource) request.resourceAttributes = Object.fromEntries(RESOURCE_ATTRIBUTES.map((f) => [f, resource[f] ?? '']));
  const nonResource = spec.nonResourceAttributes as Record<string, string> | undefined;
  if (nonResource) request.nonResourceAttributes = { verb: nonResource.verb ?? '', path: nonResource.path ?? '' };
  return request;
}
