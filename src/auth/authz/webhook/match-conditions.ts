/**
 * A webhook's matchConditions: CEL expressions over `request` (the SubjectAccessReview v1 spec)
 * that decide whether the webhook is asked at all. Compiled once when the configuration is read.
 */
import { Environment } from '@marcbachmann/cel-js';

export interface MatchCondition {
  readonly expression: string;
}

export type MatchOutcome = { readonly match: boolean } | { readonly error: string };

type Program = (ctx: Record<string, unknown>) => unknown;

let env: Environment | undefined;
function celEnv(): Environment {
  if (!env) {
    env = new Environment();
    // `dyn`: the spec's fields are read by name, and absent optional fields are errors as in upstream.
    env.registerVariable('request', 'dyn');
  }
  return env;
}

/** Compiles one expression; returns the compile error's text (undefined when it compiles to a bool or dyn). */
export function compileError(expression: string): string | undefined {
  try {
    const checked = celEnv().check(expression) as { valid: boolean; type?: string; error?: { message?: string } };
    if (!checked.valid) return checked.error?.message ?? 'compilation failed';
    if (checked.type && checked.type !== 'bool' && checked.type !== 'dyn') return `must evaluate to bool`;
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** The compiled conditions as one matcher: any false skips; all true matches; errors are reported. */
export function compileMatcher(conditions: readonly MatchCondition[]): (request: Record<string, unknown>) => MatchOutcome {
  const programs: Program[] = conditions.map((c) => celEnv().parse(c.expression) as unknown as Program);
  return (request) => {
    const errors: string[] = [];
    for (const [i, program] of programs.entries()) {
      try {
        const value = program({ request });
        if (value === false) return { match: false };
        if (value !== true) errors.push(`matchConditions[${i}]: expression must evaluate to bool`);
      } catch (err) {
        errors.push(`matchConditions[${i}]: ${(err as Error).message.split('\n')[0]}`);
      }
    }
    return errors.length > 0 ? { error: errors.join(', ') } : { match: true };
  };
}
