/**
 * `variables`: a map whose members are evaluated the first time an expression reads them, as
 * upstream's lazy composition map does. The resolver belongs to the caller (the policy engine
 * compiles and evaluates the variables and accounts for their cost); its errors reach the
 * expression as evaluation errors.
 */
import { CelEvalError, evalError } from '../errors.ts';
import { toCel } from '../json.ts';
import { CelObject, type CelValue } from '../values.ts';

/** Resolves one variable: its value (a CEL value, or JSON), or throws (a CelEvalError carries the text upstream shows). */
export type VariableResolver = (name: string) => unknown;

export class LazyVariables extends CelObject {
  readonly typeName = 'kubernetes.variables';
  readonly #resolved = new Map<string, CelValue | CelEvalError>();
  constructor(
    readonly names: ReadonlySet<string>,
    private readonly resolve: VariableResolver,
  ) {
    super();
  }

  has(name: string): boolean {
    return this.names.has(name);
  }

  /** The variable's value (resolved once; a failure is remembered and thrown again). */
  get(name: string): CelValue | undefined {
    if (!this.names.has(name)) return undefined;
    let v = this.#resolved.get(name);
    if (v === undefined) {
      try {
        v = toCel(this.resolve(name));
      } catch (e) {
        if (!(e instanceof CelEvalError)) throw e;
        v = e;
      }
      this.#resolved.set(name, v);
    }
    if (v instanceof CelEvalError) throw evalError(v.message);
    return v;
  }

  equals(other: CelValue): boolean | undefined {
    return other === this;
  }
}
