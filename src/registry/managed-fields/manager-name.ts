/**
 * The manager a write is recorded under when the request names none: the User-Agent up to its
 * first '/', unprintable characters dropped, cut to fit fieldManager's 128-byte limit
 * (upstream's managerOrUserAgent / prefixFromUserAgent).
 */
import { isGoPrint } from '../../api/go/quote.ts';
import { goBytesText } from '../../api/go/strings.ts';
import { BoundedCache } from '../../ssa/bounded-cache.ts';

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

/**
 * Managers by User-Agent: every write without a fieldManager works its manager out of the header,
 * and a client sends the same header with every request. A pure function of the text, so a
 * remembered name is the one it would work out again.
 */
const byUserAgent = new BoundedCache<string>(256, 64 * 1024);

/** Upstream's prefixFromUserAgent. */
export function managerFromUserAgent(userAgent: string | undefined): string {
  const text = userAgent ?? '';
  let manager = byUserAgent.get(text);
  if (manager === undefined) byUserAgent.set(text, (manager = prefixFromUserAgent(text)));
  return manager;
}

function prefixFromUserAgent(userAgent: string): string {
  const prefix = userAgent.split('/')[0]!;
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
