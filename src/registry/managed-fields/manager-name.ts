/**
 * The manager a write is recorded under when the request names none: the User-Agent up to its
 * first '/', unprintable characters dropped, cut to fit fieldManager's 128-byte limit
 * (upstream's managerOrUserAgent / prefixFromUserAgent).
 */
import { isGoPrint } from '../../api/go/quote.ts';
import { goBytesText } from '../../api/go/strings.ts';

/** Upstream's FieldManagerMaxLength, in bytes. */
const FIELD_MANAGER_MAX_BYTES = 128;

/**
 * The header's text as Go sees it. Node hands header values over as latin1 text, one character per
 * byte; read those bytes as UTF-8 the way Go ranges over a string (every byte of an invalid sequence
 * a U+FFFD of its own). Text that holds characters past U+00FF did not come from a raw header and is
 * taken as it is.
 */
function headerText(value: string): string {
  if (/[^\x00-\xff]/.test(value)) return value;
  return goBytesText(Buffer.from(value, 'latin1'));
}

/** Upstream's prefixFromUserAgent. */
export function managerFromUserAgent(userAgent: string | undefined): string {
  const prefix = (userAgent ?? '').split('/')[0]!;
  let out = '';
  let bytes = 0;
  for (const rune of headerText(prefix)) {
    if (!isGoPrint(rune)) continue;
    const width = Buffer.byteLength(rune, 'utf8');
    if (bytes + width > FIELD_MANAGER_MAX_BYTES) break;
    out += rune;
    bytes += width;
  }
  return out;
}

/** The request's fieldManager when it has one, else the User-Agent's prefix (upstream's managerOrUserAgent). */
export function managerOrUserAgent(fieldManager: string | undefined, userAgent: string | undefined): string {
  return fieldManager ? fieldManager : managerFromUserAgent(userAgent);
}
