/**
 * Resource quantities as apimachinery's resource.Quantity reads, compares and prints them.
 *
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

/** How a quantity was written, which decides how it prints: 1Ki (binary), 1k (decimal), 1e3 (exponent). */
export type QuantityFormat = 'BinarySI' | 'DecimalSI' | 'DecimalExponent';

/** A parsed quantity: the exact value `unscaled × 10^scale`, and the format it prints in. */
export interface Quantity {
  readonly unscaled: bigint;
  readonly scale: number;
  readonly format: QuantityFormat;
  /** The text to print when the parser keeps what was written (its fast path does for canonical input). */
  readonly text?: string;
}

const DECIMAL_EXPONENTS: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_EXPONENTS: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_SUFFIXES = new Map(Object.entries(DECIMAL_EXPONENTS).map(([s, e]) => [e, s]));
const BINARY_SUFFIXES = new Map<number, string>([[0, ''], ...Object.entries(BINARY_EXPONENTS).map(([s, e]): [number, string] => [e / 10, s])]);
const NANO = -9;
const INT64_MAX = 2n ** 63n - 1n;
const ZERO: Quantity = { unscaled: 0n, scale: 0, format: 'DecimalSI', text: '0' };

const pow10 = (n: number) => 10n ** BigInt(n);
const abs = (n: bigint) => (n < 0n ? -n : n);

/** Divides rounding away from zero, as inf.RoundUp does. */
function divideUp(n: bigint, d: bigint): bigint {
  const q = n / d;
  return q * d === n ? q : q + (n < 0n ? -1n : 1n);
}

/**
 * Parses a quantity as resource.ParseQuantity does (undefined when it does not parse): values
 * finer than a nano round up (away from zero), binary values are capped at the int64 maximum, and
 * binary values between 0 and 1 turn decimal.
 */
export function parseQuantity(str: string): Quantity | undefined {
  if (quantityParseError(str) !== undefined) return undefined;
  if (str === '0') return ZERO;
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(.*)$/.exec(str)!;
  const positive = m[1] !== '-';
  // parseQuantityString drops leading zeros of the whole part.
  const num = m[2]!.replace(/^0+/, '');
  const denom = m[3] ?? '';
  const suffix = m[4]!;
  let format: QuantityFormat;
  let exponent: number;
  let base: 2 | 10;
  if (suffix in BINARY_EXPONENTS) {
    format = 'BinarySI';
    base = 2;
    exponent = BINARY_EXPONENTS[suffix]!;
  } else if (suffix in DECIMAL_EXPONENTS) {
    format = 'DecimalSI';
    base = 10;
    exponent = DECIMAL_EXPONENTS[suffix]!;
  } else {
    format = 'DecimalExponent';
    base = 10;
    exponent = Number(suffix.slice(1));
  }
  const digits = BigInt((num + denom) || '0');
  if (digits === 0n) return ZERO;
  const keep = keepsText(format, exponent, num, denom);
  let unscaled = positive ? digits : -digits;
  let scale = -denom.length;
  if (base === 10) scale += exponent;
  else unscaled *= 2n ** BigInt(exponent);
  if (scale < NANO) {
    unscaled = divideUp(unscaled, pow10(NANO - scale));
    scale = NANO;
  }
  if (format === 'BinarySI') {
    if (compareParts(abs(unscaled), scale, INT64_MAX, 0) > 0) {
      unscaled = positive ? INT64_MAX : -INT64_MAX;
      scale = 0;
    }
    if (compareParts(abs(unscaled), scale, 1n, 0) < 0) format = 'DecimalSI';
  }
  return { unscaled, scale, format, ...(keep ? { text: str } : {}) };
}

/**
 * Whether ParseQuantity's fast path keeps the text as written: an int64-sized value already in
 * canonical shape (for binary, a whole multiple of a binary suffix not divisible by 8; for decimal,
 * a scale that is a multiple of 3 with no leading zero or trailing "000").
 */
function keepsText(format: QuantityFormat, exponent: number, num: string, denom: string): boolean {
  const shifted = num + denom;
  if (shifted.length === 0) return false;
  if (format === 'BinarySI') {
    if (denom.length > 0) return false;
    const precision = 15 - num.length - Math.trunc((exponent * 3) / 10) - 1;
    if (precision < 0) return false;
    const value = BigInt(shifted);
    if (value * 2n ** BigInt(exponent) > INT64_MAX) return false;
    return exponent % 10 === 0 && (value & 7n) !== 0n;
  }
  if (19 - shifted.length < 0) return false; // the inf.Dec path
  const scale = exponent - denom.length;
  if (scale < NANO) return false;
  if (BigInt(shifted) > INT64_MAX) return false;
  return scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
}

function compareParts(a: bigint, ae: number, b: bigint, be: number): number {
  const e = Math.min(ae, be);
  const x = a * pow10(ae - e);
  const y = b * pow10(be - e);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** -1, 0 or 1 as `a` is less than, equal to or greater than `b` (Quantity.Cmp). */
export function compareQuantities(a: Quantity, b: Quantity): number {
  return compareParts(a.unscaled, a.scale, b.unscaled, b.scale);
}

/** The sign of a quantity: -1, 0 or 1. */
export function quantitySign(q: Quantity): number {
  return q.unscaled < 0n ? -1 : q.unscaled > 0n ? 1 : 0;
}

/** The quantity's value as a JavaScript number (approximate for very large or fine values). */
export function quantityNumber(q: Quantity): number {
  return Number(q.unscaled) * 10 ** q.scale;
}

/** The quantity in thousandths, rounded up (Quantity.MilliValue). */
export function quantityMilliValue(q: Quantity): bigint {
  return q.scale >= -3 ? q.unscaled * pow10(q.scale + 3) : divideUp(q.unscaled, pow10(-3 - q.scale));
}

/** The quantity rounded up to a whole number (Quantity.Value). */
export function quantityValue(q: Quantity): bigint {
  return q.scale >= 0 ? q.unscaled * pow10(q.scale) : divideUp(q.unscaled, pow10(-q.scale));
}

/** The quantity as Quantity.String() prints it (what the API returns for a written quantity). */
export function quantityString(q: Quantity): string {
  if (q.text !== undefined) return q.text;
  if (q.unscaled === 0n) return '0';
  let format = q.format;
  let whole: bigint | undefined;
  if (format === 'BinarySI') {
    if (compareParts(abs(q.unscaled), q.scale, 1024n, 0) < 0) {
      format = 'DecimalSI';
    } else if (q.scale >= 0) {
      whole = q.unscaled * pow10(q.scale);
    } else if (q.unscaled % pow10(-q.scale) === 0n) {
      whole = q.unscaled / pow10(-q.scale);
    } else {
      format = 'DecimalSI'; // printing in binary would lose the fraction
    }
  }
  if (format === 'BinarySI' && whole !== undefined) {
    let exp = 0;
    while (whole % 1024n === 0n && BINARY_SUFFIXES.has(exp + 1)) {
      whole /= 1024n;
      exp++;
    }
    return `${whole}${BINARY_SUFFIXES.get(exp)!}`;
  }
  let amount = q.unscaled;
  let exponent = q.scale;
  while (amount % 10n === 0n) {
    amount /= 10n;
    exponent++;
  }
  const rest = ((exponent % 3) + 3) % 3;
  amount *= pow10(rest);
  exponent -= rest;
  if (format === 'DecimalSI' && DECIMAL_SUFFIXES.has(exponent)) return `${amount}${DECIMAL_SUFFIXES.get(exponent)!}`;
  return exponent === 0 ? `${amount}` : `${amount}e${exponent}`;
}

/** The canonical text of a quantity's text (what the API stores and returns), or the text itself when it does not parse. */
export function canonicalQuantity(text: string): string {
  const q = parseQuantity(text.trim());
  return q ? quantityString(q) : text;
}
