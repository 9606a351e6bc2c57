import type { FieldError } from '../../api/errors.ts';
import { goQuote, isGoPrint } from '../../api/go/quote.ts';
import { FIELDS_V1, OPERATION_APPLY, OPERATION_UPDATE } from './entry.ts';

/** Upstream's FieldManagerMaxLength and MaxSubresourceNameLength, in bytes. */
const MAX_MANAGER_BYTES = 128;
const MAX_SUBRESOURCE_BYTES = 256;

function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/**
 * Upstream's ValidateManagedFields, run on metadata.managedFields of every created and updated
 * object: operation Apply or Update, fieldsType FieldsV1 when set, a printable manager of at most
 * 128 bytes, a subresource of at most 256 bytes. `path` names the list (`metadata.managedFields`).
 */
export function validateManagedFields(entries: unknown, path: string): FieldError[] {
  if (!Array.isArray(entries)) return [];
  const errs: FieldError[] = [];
  entries.forEach((raw, i) => {
    const entry = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    const at = `${path}[${i}]`;
    const operation = text(entry.operation);
    if (operation !== OPERATION_APPLY && operation !== OPERATION_UPDATE) {
      errs.push({ type: 'FieldValueInvalid', field: `${at}.operation`, value: operation, detail: 'must be `Apply` or `Update`' });
    }
    const fieldsType = text(entry.fieldsType);
    if (fieldsType.length > 0 && fieldsType !== FIELDS_V1) {
      errs.push({ type: 'FieldValueInvalid', field: `${at}.fieldsType`, value: fieldsType, detail: 'must be `FieldsV1`' });
    }
    errs.push(...fieldManagerErrors(text(entry.manager), `${at}.manager`));
    if (Buffer.byteLength(text(entry.subresource), 'utf8') > MAX_SUBRESOURCE_BYTES) {
      errs.push({ type: 'FieldValueTooLong', field: `${at}.subresource`, detail: `may not be more than ${MAX_SUBRESOURCE_BYTES} bytes` });
    }
  });
  return errs;
}

/** Upstream's ValidateFieldManager: length in bytes, then one error per unprintable character. */
export function fieldManagerErrors(manager: string, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (Buffer.byteLength(manager, 'utf8') > MAX_MANAGER_BYTES) {
    errs.push({ type: 'FieldValueTooLong', field, detail: `may not be more than ${MAX_MANAGER_BYTES} bytes` });
  }
  let at = 0;
  for (const ch of manager) {
    if (!isGoPrint(ch)) {
      // Go prints the rune as %#U (no glyph for an unprintable one) and the position in bytes.
      const code = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      errs.push({ type: 'FieldValueInvalid', field, rawValue: goQuote(manager), detail: `invalid character U+${code} (at position ${at})` });
    }
    at += Buffer.byteLength(ch, 'utf8');
  }
  return errs;
}
