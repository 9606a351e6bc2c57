/** The per-version parts that are not schemas: printer columns, subresources, deprecation warnings. */
import type { FieldError } from '../../api/errors.ts';
import * as field from '../../registry/validation/field.ts';
import type { FieldPath } from '../../registry/validation/field.ts';
import type { CrdSubresources, PrinterColumn } from './types.ts';

const COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];

/** validateSimpleJSONPath: a path in dot notation starting with `.`. */
export function simpleJsonPathErrors(s: string, at: FieldPath): FieldError[] {
  if (s.length === 0) return [field.invalid(at, s, 'must not be empty')];
  if (s[0] !== '.') return [field.invalid(at, s, 'must be a simple json path starting with .')];
  return [];
}

/** ValidateCustomResourceColumnDefinition (the internal field is `JSONPath`, hence the path). */
export function columnErrors(col: PrinterColumn, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (!col.name) errs.push(field.required(at.child('name')));
  const types = `must be one of ${COLUMN_TYPES.join(',')}`;
  if (!col.type) errs.push(field.required(at.child('type'), types));
  else if (!COLUMN_TYPES.includes(col.type)) errs.push(field.invalid(at.child('type'), col.type, types));
  if (col.format && !COLUMN_FORMATS.includes(col.format)) errs.push(field.invalid(at.child('format'), col.format, `must be one of ${COLUMN_FORMATS.join(',')}`));
  if (!col.jsonPath) errs.push(field.required(at.child('JSONPath')));
  else errs.push(...simpleJsonPathErrors(col.jsonPath, at.child('JSONPath')));
  return errs;
}

/** ValidateCustomResourceDefinitionSubresources: the scale subresource's paths. */
export function subresourcesErrors(sub: CrdSubresources | undefined, at: FieldPath): FieldError[] {
  const scale = sub?.scale;
  if (!scale) return [];
  const errs: FieldError[] = [];
  const under = (value: string | undefined, name: string, prefixes: string[], message: string) => {
    const p = at.child(`scale.${name}`);
    const pathErrs = simpleJsonPathErrors(value!, p);
    if (pathErrs.length > 0) errs.push(...pathErrs);
    else if (!prefixes.some((x) => value!.startsWith(x))) errs.push(field.invalid(p, value, message));
  };
  if (!scale.specReplicasPath) errs.push(field.required(at.child('scale.specReplicasPath')));
  else under(scale.specReplicasPath, 'specReplicasPath', ['.spec.'], 'should be a json path under .spec');
  if (!scale.statusReplicasPath) errs.push(field.required(at.child('scale.statusReplicasPath')));
  else under(scale.statusReplicasPath, 'statusReplicasPath', ['.status.'], 'should be a json path under .status');
  if (scale.labelSelectorPath) under(scale.labelSelectorPath, 'labelSelectorPath', ['.spec.', '.status.'], 'should be a json path under either .spec or .status');
  return errs;
}

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
const LONE_SURROGATE = /^[\uD800-\uDFFF]$/;

/**
 * validateDeprecationWarning: only on deprecated versions, at most 256 bytes, not empty, printable.
 * (Control characters are never printable, so upstream's separate control-character message never
 * shows; JSON decoding already turned invalid UTF-8 into U+FFFD.)
 */
export function deprecationWarningProblems(deprecated: boolean, warning: string | undefined): string[] {
  if (!deprecated && warning !== undefined) return ['can only be set for deprecated versions'];
  if (warning === undefined) return [];
  const problems: string[] = [];
  const bytes = Buffer.byteLength(warning, 'utf8');
  if (bytes > 256) problems.push('must be <= 256 characters long');
  if (bytes === 0) problems.push('must not be an empty string');
  let index = 0;
  for (const ch of warning) {
    // A lone surrogate decodes as U+FFFD in Go, which is printable.
    if (!LONE_SURROGATE.test(ch) && !PRINTABLE.test(ch)) {
      problems.push(`must only contain printable UTF-8 characters; non-printable character found at index ${index}`);
      break;
    }
    index += Buffer.byteLength(ch, 'utf8');
  }
  return problems;
}
