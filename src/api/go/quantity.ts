/**
 * resource.ParseQuantity's verdict on a quantity's text (`100m`, `1.5Gi`, `2e3`): undefined when it
 * parses, else its error text, which is what the API answers when a body holds such a quantity.
 * Follows apimachinery's parseQuantityString and suffixer: a sign, digits with an optional fraction,
 * then a suffix that is a decimal SI one (n u m "" k M G T P E), a binary SI one (Ki … Ei) or a
 * decimal exponent (e or E with an integer).
 */

export const QUANTITY_FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
export const QUANTITY_SUFFIX_ERROR = "unable to parse quantity's suffix";
export const QUANTITY_NUMERIC_ERROR = 'unable to parse numeric part of quantity';

const SUFFIXES = new Set(['', 'n', 'u', 'm', 'k', 'M', 'G', 'T', 'P', 'E', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei']);
const SUFFIX_CHARS = 'eEinumkKMGTP';
const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

export function quantityParseError(str: string): string | undefined {
  if (str.length === 0) return QUANTITY_FORMAT_ERROR;
  if (str === '0') return undefined;
  let pos = 0;
  const end = str.length;
  if (str[0] === '-' || str[0] === '+') pos++;
  while (pos < end && str[pos] === '0') pos++;
  if (pos >= end) return undefined; // all zeros
  const numStart = pos;
  while (pos < end && isDigit(str[pos])) pos++;
  if (pos >= end) return undefined;
  let denomDigits = 0;
  let hasNumber = pos > numStart || numStart > (str[0] === '-' || str[0] === '+' ? 1 : 0);
  if (str[pos] === '.') {
    pos++;
    const denomStart = pos;
    while (pos < end && isDigit(str[pos])) pos++;
    denomDigits = pos - denomStart;
    if (pos >= end) return numericCheck(hasNumber || denomDigits > 0);
  }
  hasNumber ||= denomDigits > 0;
  const suffixStart = pos;
  while (pos < end && SUFFIX_CHARS.includes(str[pos]!)) pos++;
  if (pos < end && (str[pos] === '-' || str[pos] === '+')) pos++;
  while (pos < end && isDigit(str[pos])) pos++;
  if (pos < end) return QUANTITY_FORMAT_ERROR;
  const numeric = numericCheck(hasNumber);
  if (numeric) return numeric;
  return validSuffix(str.slice(suffixStart)) ? undefined : QUANTITY_SUFFIX_ERROR;
}

/** The numeric part must be a number to inf.Dec (`.` or `-.` alone is not). */
function numericCheck(hasDigits: boolean): string | undefined {
  return hasDigits ? undefined : QUANTITY_NUMERIC_ERROR;
}

function validSuffix(suffix: string): boolean {
  if (SUFFIXES.has(suffix)) return true;
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E')) return /^[-+]?\d+$/.test(suffix.slice(1)) && Math.abs(Number(suffix.slice(1))) < 2 ** 63;
  return false;
}
