/**
 * Field error plumbing shared by the schema checks: paths from a caller's root, and the sort upstream
 * applies to structural-schema errors (by their full `Error()` text, in Go's byte order) so that
 * messages do not depend on map iteration.
 */
import { fieldErrorText, type FieldError } from '../../api/errors.ts';
import { compareGoStrings } from '../../api/go/strings.ts';
import { FieldPath, path, type PathLike } from '../../registry/validation/field.ts';

/** A FieldPath from a caller's root (a FieldPath, its text, or nothing for the root ''). */
export function rootPath(p: PathLike | undefined): FieldPath {
  if (p === undefined) return path();
  return typeof p === 'string' ? path(p) : p;
}

/** What field.Error.Error() prints: `<field>: <body>`. */
export function fieldErrorString(e: FieldError): string {
  return `${e.field}: ${fieldErrorText(e)}`;
}

/** Sorts errors by their text, as ValidateStructural does. */
export function sortFieldErrors(errs: FieldError[]): FieldError[] {
  return errs.sort((a, b) => compareGoStrings(fieldErrorString(a), fieldErrorString(b)));
}

/** errs.ToAggregate().Error(): one error as is, several as `[a, b]` (duplicates dropped). */
export function aggregateText(errs: readonly FieldError[]): string {
  const texts: string[] = [];
  for (const e of errs) {
    const t = fieldErrorString(e);
    if (!texts.includes(t)) texts.push(t);
  }
  return texts.length === 1 ? texts[0]! : `[${texts.join(', ')}]`;
}
