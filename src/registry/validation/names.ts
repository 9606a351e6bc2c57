import type { FieldError } from '../../api/errors.ts';
import { dns1123LabelErrors, dns1123SubdomainErrors, pathSegmentNameErrors } from '../../api/validation/names.ts';
import type { NameRule } from '../kind.ts';
import * as field from './field.ts';
import type { PathLike } from './field.ts';

/** Problems with metadata.name under a kind's name rule. */
export function nameErrors(rule: NameRule, value: string): string[] {
  if (typeof rule === 'function') return rule(value);
  switch (rule) {
    case 'dns-label':
      return dns1123LabelErrors(value);
    case 'dns-subdomain':
      return dns1123SubdomainErrors(value);
    case 'path-segment':
      return pathSegmentNameErrors(value);
  }
}

/** Turns message lists into Invalid field errors for one path and value. */
export function invalidEach(at: PathLike, value: unknown, messages: string[]): FieldError[] {
  return messages.map((detail) => field.invalid(at, value, detail));
}
