import { timeQuote } from './quote.ts';

/**
 * Go's `time.ParseDuration`, with its error texts, for query parameters upstream reads with it (the
 * `timeout` of every request). The texts reach clients inside 400 messages, so they are Go's own:
 * `time: invalid duration "x"`, `time: missing unit in duration "1"`, `time: unknown unit "d" in
 * duration "1d"`. Durations are nanoseconds as a bigint (Go's int64 range, overflow is an error).
 */

const NS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  'µs': 1_000n, // U+00B5 micro sign
  'μs': 1_000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const MAX = (1n << 63n) - 1n;

export type GoDurationResult = { readonly ns: bigint } | { readonly error: string };

/** Go's `time.ParseDuration`: the nanoseconds, or Go's error text. */
export function parseGoDurationStrict(text: string): GoDurationResult {
  const invalid = { error: `time: invalid duration ${timeQuote(text)}` };
  let rest = text;
  let negative = false;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    negative = rest[0] === '-';
    rest = rest.slice(1);
  }
  if (rest === '0') return { ns: 0n };
  if (rest === '') return invalid;
  let total = 0n;
  while (rest !== '') {
    const number = /^(\d*)(?:\.(\d*))?/.exec(rest)!;
    const [whole, intPart, fracPart] = number;
    if (intPart === '' && !fracPart) return invalid; // no digits at all (".s", "-.s", "x")
    rest = rest.slice(whole.length);
    const unitLength = /^[^\d.]*/.exec(rest)![0].length;
    if (unitLength === 0) return { error: `time: missing unit in duration ${timeQuote(text)}` };
    const unitName = rest.slice(0, unitLength);
    rest = rest.slice(unitLength);
    const unit = Object.hasOwn(NS, unitName) ? NS[unitName] : undefined;
    if (unit === undefined) return { error: `time: unknown unit ${timeQuote(unitName)} in duration ${timeQuote(text)}` };
    const whole64 = BigInt(intPart || '0');
    if (whole64 > (1n << 63n) / unit) return invalid;
    let value = whole64 * unit;
    if (fracPart) {
      // Go scales the fraction in float64 and truncates; exact decimal arithmetic agrees for sane inputs.
      value += (BigInt(fracPart) * unit) / 10n ** BigInt(fracPart.length);
      if (value > 1n << 63n) return invalid;
    }
    total += value;
    if (total > 1n << 63n) return invalid;
  }
  if (negative) return { ns: -total };
  if (total > MAX) return invalid;
  return { ns: total };
}

/**
 * Parses Go's duration syntax (`1h30m`, `-1.5s`, `100ms`, `0`) into nanoseconds as a number (exact up
 * to about 104 days); undefined for text Go would reject.
 */
export function parseGoDuration(text: string): number | undefined {
  const result = parseGoDurationStrict(text);
  return 'ns' in result ? Number(result.ns) : undefined;
}

const NS_PER_US = 1e3;
const NS_PER_MS = 1e6;
const NS_PER_S = 1e9;

/** Digits of `value` as a fraction with `digits` places, trailing zeros dropped (`''` when zero). */
function fraction(value: number, digits: number): string {
  if (value === 0) return '';
  return '.' + String(value).padStart(digits, '0').replace(/0+$/, '');
}

/**
 * Formats nanoseconds the way Go prints a Duration.
 *
 * @example
 * formatGoDuration(3_600e9) // '1h0m0s'
 * formatGoDuration(1_500e6) // '1.5s'
 */
export function formatGoDuration(ns: number): string {
  if (ns === 0) return '0s';
  const sign = ns < 0 ? '-' : '';
  const u = Math.abs(Math.trunc(ns));
  if (u < NS_PER_US) return `${sign}${u}ns`;
  if (u < NS_PER_MS) return `${sign}${Math.floor(u / NS_PER_US)}${fraction(u % NS_PER_US, 3)}µs`;
  if (u < NS_PER_S) return `${sign}${Math.floor(u / NS_PER_MS)}${fraction(u % NS_PER_MS, 6)}ms`;
  const totalSeconds = Math.floor(u / NS_PER_S);
  let out = `${totalSeconds % 60}${fraction(u % NS_PER_S, 9)}s`;
  const totalMinutes = Math.floor(totalSeconds / 60);
  if (totalMinutes > 0) {
    out = `${totalMinutes % 60}m${out}`;
    const hours = Math.floor(totalMinutes / 60);
    if (hours > 0) out = `${hours}h${out}`;
  }
  return sign + out;
}

