/**
 * Schema violations found while walking a value, printed the way upstream's ValidationErrors print:
 * `path: message` for one, and `errors:` followed by indented lines for several.
 */

export interface ValidationError {
  /** The path as upstream prints it (`.spec.containers[name="a"].image`), or '' at the root. */
  path: string;
  message: string;
}

function errorText(e: ValidationError): string {
  return e.path === '' ? e.message : `${e.path}: ${e.message}`;
}

/** Upstream's ValidationErrors.Error(). */
export function validationErrorsText(errors: readonly ValidationError[]): string {
  if (errors.length === 1) return errorText(errors[0]!);
  return ['errors:', ...errors.map((e) => `  ${errorText(e)}`)].join('\n');
}

/**
 * Which input failed, when the Updater reports it: kube-apiserver wraps each differently
 * (`failed to create typed patch object (…): …` for the applied configuration, `… live object …` otherwise).
 */
export type SchemaErrorSubject = 'config' | 'live' | 'new';

export class SchemaError extends Error {
  readonly errors: readonly { path: string; message: string }[];
  readonly subject: SchemaErrorSubject | undefined;

  constructor(errors: readonly ValidationError[], subject?: SchemaErrorSubject) {
    super(validationErrorsText(errors));
    this.name = 'SchemaError';
    this.errors = errors.map((e) => ({ path: e.path, message: e.message }));
    this.subject = subject;
  }
}

/** One error at the current node; callers above prepend their path elements as the walk unwinds. */
export function errorAt(message: string): ValidationError[] {
  return [{ path: '', message }];
}

/** Prepends a path element's text to every error (upstream's WithPrefix while unwinding). */
export function withPrefix(errors: ValidationError[], prefix: string): ValidationError[] {
  for (const e of errors) e.path = prefix + e.path;
  return errors;
}
