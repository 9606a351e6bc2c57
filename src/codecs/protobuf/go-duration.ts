/**
 * Go `time.Duration` text form, the JSON form of `metav1.Duration` (`1h0m0s`, `1.5s`, `300ms`, `0s`).
 * Durations are nanosecond counts held in JS numbers: exact up to about 104 days.
 */

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

const UNITS: Readonly<Record<string, number>> = {
  ns: 1,
  us: NS_PER_US,
  'µs': NS_PER_US, // U+00B5 micro sign
  'μs': NS_PER_US, // U+03BC Greek mu
  ms: NS_PER_MS,
  s: NS_PER_S,
  m: 60 * NS_PER_S,
  h: 3600 * NS_PER_S,
};

const PART = /^(\d*)(?:\.(\d*))?([^\d.]+)/;

/**
 * Parses Go's duration syntax (`1h30m`, `-1.5s`, `100ms`, `0`) into nanoseconds.
 * Returns undefined for text Go would reject.
 */
export function parseGoDuration(text: string): number | undefined {
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    if (rest[0] === '-') sign = -1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') return undefined;
  let total = 0;
  while (rest !== '') {
    const m = PART.exec(rest);
    if (!m) return undefined;
    const [whole, intPart = '', fracPart, unitName = ''] = m;
    if (intPart === '' && (fracPart === undefined || fracPart === '')) return undefined;
    const unit = Object.hasOwn(UNITS, unitName) ? UNITS[unitName] : undefined;
    if (unit === undefined) return undefined;
    total += Number(intPart || '0') * unit;
    if (fracPart) total += Math.round(Number(`0.${fracPart}`) * unit);
    rest = rest.slice(whole.length);
  }
  return sign * total;
}
