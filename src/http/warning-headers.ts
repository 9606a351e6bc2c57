/**
 * `Warning` response headers as kube-apiserver writes them (its warning recorder and
 * `NewWarningHeader`): `299 - "<text>"` with `"` and `\` escaped and the text sent as UTF-8.
 *
 * - A text that is empty, repeats an earlier one, is not valid UTF-8 or holds a control character is
 *   not sent (upstream drops such a warning rather than fail the request).
 * - Once the texts add up to more than 4,096 characters (runes), every warning is cut to 256
 *   characters and warnings stop being added when the total reaches 4,096 again.
 *
 * Node refuses header values outside Latin-1, so each value is handed over as the Latin-1 spelling of
 * its UTF-8 bytes: the bytes on the wire are the UTF-8 text, as Go writes them.
 */

/** Upstream's limits: all warnings of one response, and one warning once that total was passed. */
export const WARNING_TOTAL_RUNES = 4 * 1024;
export const WARNING_ITEM_RUNES = 256;

/** Header values for these warning texts, in order. Never throws. */
export function warningHeaderValues(texts: readonly string[]): string[] {
  const seen = new Set<string>();
  const ordered: string[] = [];
  let headers: string[] = [];
  let written = 0;
  let truncating = false;
  for (const text of texts) {
    if (text.length === 0) continue;
    if (truncating && written >= WARNING_TOTAL_RUNES) break;
    if (seen.has(text)) continue;
    seen.add(text);
    ordered.push(text);
    let runes = Array.from(text);
    if (truncating && runes.length > WARNING_ITEM_RUNES) runes = runes.slice(0, WARNING_ITEM_RUNES);
    const header = headerValue(runes.join(''));
    if (header === undefined) continue;
    if (truncating || written + runes.length <= WARNING_TOTAL_RUNES) {
      written += runes.length;
      headers.push(header);
      continue;
    }
    // Past the total: start over with every warning so far cut to the per-item size.
    truncating = true;
    written = 0;
    headers = [];
    for (const earlier of ordered) {
      const cut = Array.from(earlier).slice(0, WARNING_ITEM_RUNES);
      const value = headerValue(cut.join(''));
      if (value === undefined) continue;
      written += cut.length;
      headers.push(value);
    }
  }
  return headers;
}

/** `299 - "<escaped text>"` as a Latin-1 string of UTF-8 bytes, or undefined for a text upstream would not send. */
function headerValue(text: string): string | undefined {
  if (!isSendable(text)) return undefined;
  const quoted = `299 - "${text.replace(/["\\]/g, (c) => `\\${c}`)}"`;
  return Buffer.from(quoted, 'utf8').toString('latin1');
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Valid UTF-8 (no lone surrogate) and no control character (Go's unicode.IsControl: C0, DEL, C1). */
function isSendable(text: string): boolean {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(text)) return false;
  return !LONE_SURROGATE.test(text);
}
