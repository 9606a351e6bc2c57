/**
 * Times of managed fields entries. metav1.Time travels as RFC 3339 at one-second precision in UTC,
 * and everything upstream does with it (sorting, capping) compares whole Unix seconds, so that is
 * the form kept in memory. Computed by hand rather than with Date, whose two-digit-year rules
 * would misplace the year-1 times Go's zero value produces.
 */
import { civilFromDays, daysFromCivil } from '../../api/go/civil-days.ts';
import { BoundedCache } from '../../ssa/bounded-cache.ts';

/** Go's zero time (0001-01-01T00:00:00Z), which metav1.Time encodes as JSON null. */
export const GO_ZERO_TIME_SECONDS = -62135596800;


const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Every write parses the time of every stored entry and formats the request's own second; the
 * same few texts come by again and again. Both conversions are pure, so a remembered result is
 * what they would compute (undefined is remembered as null).
 */
const parsedTimes = new BoundedCache<number | null>(1024, 64 * 1024);
let lastFormatted: { seconds: number; text: string } | undefined;

/** Whole Unix seconds of an RFC 3339 time (fractions dropped, as Go's Unix() floors), or undefined. */
export function parseTimeSeconds(text: string): number | undefined {
  let seconds = parsedTimes.get(text);
  if (seconds === undefined) parsedTimes.set(text, (seconds = parseTime(text) ?? null));
  return seconds ?? undefined;
}

function parseTime(text: string): number | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return undefined;
  let offset = 0;
  const zone = m[7]!;
  if (zone !== 'Z') {
    const sign = zone[0] === '-' ? -1 : 1;
    offset = sign * (Number(zone.slice(1, 3)) * 3600 + Number(zone.slice(4, 6)) * 60);
  }
  return daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset;
}

/** RFC 3339 in UTC at one-second precision, as metav1.Time marshals. */
export function formatTimeSeconds(seconds: number): string {
  if (lastFormatted?.seconds === seconds) return lastFormatted.text;
  const text = formatTime(seconds);
  lastFormatted = { seconds, text };
  return text;
}

function formatTime(seconds: number): string {
  const days = Math.floor(seconds / 86400);
  const rest = seconds - days * 86400;
  const { year: y, month: m, day: d } = civilFromDays(days);
  const two = (n: number) => String(n).padStart(2, '0');
  const hh = Math.floor(rest / 3600);
  const mm = Math.floor((rest % 3600) / 60);
  const ss = rest % 60;
  return `${String(y).padStart(4, '0')}-${two(m)}-${two(d)}T${two(hh)}:${two(mm)}:${two(ss)}Z`;
}

/** The whole seconds of a JavaScript date. */
export function dateSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}
