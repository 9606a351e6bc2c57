/** ValidateCustomResourceDefinitionNames: the shape of spec.names and status.acceptedNames. */
import type { FieldError } from '../../api/errors.ts';
import { dns1035LabelErrors } from '../../api/validation/names.ts';
import * as field from '../../registry/validation/field.ts';
import type { FieldPath } from '../../registry/validation/field.ts';
import type { CrdNames } from './types.ts';

export function namesErrors(names: CrdNames, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const label = (value: string | undefined, p: FieldPath) => {
    if (!value) return;
    const problems = dns1035LabelErrors(value);
    if (problems.length > 0) errs.push(field.invalid(p, value, problems.join(',')));
  };
  // Kinds may have mixed case; otherwise they follow the same rule.
  const mixedCase = (value: string | undefined, p: FieldPath) => {
    if (!value) return;
    const problems = dns1035LabelErrors(value.toLowerCase());
    if (problems.length > 0) errs.push(field.invalid(p, value, `may have mixed case, but should otherwise match: ${problems.join(',')}`));
  };
  label(names.plural, at.child('plural'));
  label(names.singular, at.child('singular'));
  mixedCase(names.kind, at.child('kind'));
  mixedCase(names.listKind, at.child('listKind'));
  (names.shortNames ?? []).forEach((s, i) => {
    const problems = dns1035LabelErrors(s ?? '');
    if (problems.length > 0) errs.push(field.invalid(at.child('shortNames').index(i), s, problems.join(',')));
  });
  // kind and listKind may not be equal, or requests would be ambiguous.
  if (names.kind && names.kind === names.listKind) errs.push(field.invalid(at.child('listKind'), names.listKind, 'kind and listKind may not be the same'));
  (names.categories ?? []).forEach((c, i) => {
    const problems = dns1035LabelErrors(c ?? '');
    if (problems.length > 0) errs.push(field.invalid(at.child('categories').index(i), c, problems.join(',')));
  });
  return errs;
}
