/**
 * Timestamps and durations as cel-go reads, prints and takes apart Go's time.Time and
 * time.Duration: RFC 3339 in and RFC3339Nano out (a parsed offset other than zero is kept for
 * printing), Go's ParseDuration, `<seconds>s` out, calendar getters in UTC or a named or numeric zone.
 */
import { civilFromDays, daysFromCivil } from '../../api/go/civil-days.ts';
import { formatFloatFixed } from '../../api/go/number.ts';
import { evalError } from '../errors.ts';
import { CelDuration, CelTimestamp, INT64_MAX, INT64_MIN } from '../values.ts';

const NS_PER_SECOND = 1_000_000_000n;
const NS_PER_MS = 1_000_000n;
/** cel-go's timestamp range: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z (in Unix seconds). */
const MIN_UNIX = -62135596800n;
const MAX_UNIX = 253402300799n;

/** A timestamp with the zone offset it was written with (seconds east of UTC), for printing. */
export class ZonedTimestamp extends CelTimestamp {
  constructor(
    nanos: bigint,
    readonly offsetSeconds: number,
  ) {
    super(nanos);
  }
}

/** Division rounding toward negative infinity (Go's time arithmetic floors instants). */
function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

function inRange(seconds: bigint): boolean {
  return seconds >= MIN_UNIX && seconds <= MAX_UNIX;
}

/** A timestamp in range, else cel-go's "timestamp overflow". */
export function checkedTimestamp(nanos: bigint, offsetSeconds = 0): CelTimestamp {
  if (!inRange(floorDiv(nanos, NS_PER_SECOND))) throw evalError('timestamp overflow');
  return offsetSeconds === 0 ? new CelTimestamp(nanos) : new ZonedTimestamp(nanos, offsetSeconds);
}

/** A duration within int64 nanoseconds, else cel-go's "duration overflow". */
export function checkedDuration(nanos: bigint): CelDuration {
  if (nanos < INT64_MIN || nanos > INT64_MAX) throw evalError('duration overflow');
  return new CelDuration(nanos);
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?(Z|[+-]\d{2}:\d{2})$/;

/** time.Parse(time.RFC3339, s) then cel-go's range check; undefined when it does not parse. */
export function parseTimestamp(s: string): CelTimestamp | undefined {
  const m = RFC3339.exec(s);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59) return undefined;
  let offset = 0;
  const zone = m[8]!;
  if (zone !== 'Z') {
    const oh = Number(zone.slice(1, 3));
    const om = Number(zone.slice(4, 6));
    if (oh > 23 || om > 59) return undefined;
    offset = (oh * 60 + om) * 60 * (zone[0] === '-' ? -1 : 1);
  }
  const frac = (m[7] ?? '').slice(0, 9).padEnd(9, '0');
  const days = daysFromCivil(year, month, day);
  const seconds = BigInt(days) * 86400n + BigInt(hour * 3600 + minute * 60 + second - offset);
  const nanos = seconds * NS_PER_SECOND + BigInt(frac || '0');
  if (!inRange(seconds)) throw evalError('timestamp overflow');
  return offset === 0 ? new CelTimestamp(nanos) : new ZonedTimestamp(nanos, offset);
}

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

function daysIn(y: number, m: number): number {
  return [31, isLeap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;
}

interface Civil {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  nano: number;
  weekday: number;
  yearDay: number;
}

/** The calendar fields of an instant shifted by an offset (seconds east of UTC). */
function civil(nanos: bigint, offsetSeconds: number): Civil {
  const local = nanos + BigInt(offsetSeconds) * NS_PER_SECOND;
  const secs = floorDiv(local, NS_PER_SECOND);
  const nano = Number(local - secs * NS_PER_SECOND);
  const days = Number(floorDiv(secs, 86400n));
  let rem = Number(secs - BigInt(days) * 86400n);
  const hour = Math.floor(rem / 3600);
  rem -= hour * 3600;
  const minute = Math.floor(rem / 60);
  const { year, month, day } = civilFromDays(days);
  const weekday = (((days + 4) % 7) + 7) % 7;
  const yearDay = days - daysFromCivil(year, 1, 1) + 1;
  return { year, month, day, hour, minute, second: rem - minute * 60, nano, weekday, yearDay };
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** Go's t.Format(time.RFC3339Nano): fraction without trailing zeros, `Z` for UTC. */
export function formatTimestamp(t: CelTimestamp): string {
  const offset = t instanceof ZonedTimestamp ? t.offsetSeconds : 0;
  const c = civil(t.nanos, offset);
  const frac = c.nano === 0 ? '' : `.${pad(c.nano, 9).replace(/0+$/, '')}`;
  let zone = 'Z';
  if (offset !== 0) {
    const abs = Math.abs(offset);
    zone = `${offset < 0 ? '-' : '+'}${pad(Math.floor(abs / 3600))}:${pad(Math.floor((abs % 3600) / 60))}`;
  }
  const year = c.year < 0 ? `-${pad(-c.year, 4)}` : pad(c.year, 4);
  return `${year}-${pad(c.month)}-${pad(c.day)}T${pad(c.hour)}:${pad(c.minute)}:${pad(c.second)}${frac}${zone}`;
}

/** strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s". */
export function formatDuration(d: CelDuration): string {
  const sec = d.nanos / NS_PER_SECOND;
  const nsec = d.nanos % NS_PER_SECOND;
  return `${formatFloatFixed(Number(sec) + Number(nsec) / 1e9)}s`;
}

const UNITS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  '\u00b5s': 1_000n,
  '\u03bcs': 1_000n,
  ms: NS_PER_MS,
  s: NS_PER_SECOND,
  m: 60n * NS_PER_SECOND,
  h: 3600n * NS_PER_SECOND,
};

/** Go's time.ParseDuration; undefined when it fails (cel-go then reports a conversion error). */
export function parseDuration(s: string): CelDuration | undefined {
  let rest = s;
  let neg = false;
  if (rest[0] === '-' || rest[0] === '+') {
    neg = rest[0] === '-';
    rest = rest.slice(1);
  }
  if (rest === '0') return new CelDuration(0n);
  if (rest === '') return undefined;
  let total = 0n;
  while (rest !== '') {
    const m = /^(\d*)(?:\.(\d*))?/.exec(rest)!;
    const whole = m[1]!;
    const frac = m[2];
    if (whole === '' && (frac === undefined || frac === '')) return undefined;
    rest = rest.slice(m[0].length);
    const u = /^[^\d.]*/.exec(rest)![0];
    const unit = UNITS[u];
    if (unit === undefined) return undefined;
    rest = rest.slice(u.length);
    let v = BigInt(whole || '0') * unit;
    if (frac) v += (BigInt(frac) * unit) / 10n ** BigInt(frac.length);
    total += v;
    if (total > 2n ** 63n) return undefined;
  }
  if (neg) total = -total;
  if (total > INT64_MAX) return undefined;
  return new CelDuration(total);
}

/** The zone offset (seconds east of UTC) a getter's timezone argument names at an instant. */
function zoneOffset(tz: string, nanos: bigint): number {
  const colon = tz.indexOf(':');
  if (colon >= 0) {
    // cel-go: [+-]HH:MM, read with strconv.Atoi on each side.
    const hr = goAtoi(tz.slice(0, colon));
    const min = goAtoi(tz.slice(colon + 1));
    const offset = tz[0] === '-' ? hr * 60 - min : hr * 60 + min;
    return offset * 60;
  }
  return ianaOffset(tz, nanos);
}

function goAtoi(s: string): number {
  if (!/^[+-]?\d+$/.test(s)) throw evalError(`strconv.Atoi: parsing "${s}": invalid syntax`);
  return Number(s);
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The offset of an IANA zone at an instant, through Intl (what the runtime knows of the tz database). */
function ianaOffset(tz: string, nanos: bigint): number {
  if (tz === 'UTC' || tz === '') return 0;
  let f = formatters.get(tz);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric', era: 'short' });
    } catch {
      throw evalError(`unknown time zone ${tz}`);
    }
    formatters.set(tz, f);
  }
  const ms = Number(floorDiv(nanos, NS_PER_MS));
  const whole = Math.floor(ms / 1000) * 1000;
  const parts = Object.fromEntries(f.formatToParts(new Date(whole)).map((p) => [p.type, p.value]));
  let year = Number(parts.year);
  if (parts.era === 'BC' || parts.era === 'B') year = 1 - year;
  const localSeconds = daysFromCivil(year, Number(parts.month), Number(parts.day)) * 86400 + Number(parts.hour) * 3600 + Number(parts.minute) * 60 + Number(parts.second);
  return localSeconds - whole / 1000;
}

export type TimestampField = 'getFullYear' | 'getMonth' | 'getDayOfYear' | 'getDayOfMonth' | 'getDate' | 'getDayOfWeek' | 'getHours' | 'getMinutes' | 'getSeconds' | 'getMilliseconds';

/** A calendar field of a timestamp, in UTC or in the named zone (cel-go's 0-based month and days). */
export function timestampField(t: CelTimestamp, field: TimestampField, tz?: string): bigint {
  const c = civil(t.nanos, tz === undefined ? 0 : zoneOffset(tz, t.nanos));
  switch (field) {
    case 'getFullYear':
      return BigInt(c.year);
    case 'getMonth':
      return BigInt(c.month - 1);
    case 'getDayOfYear':
      return BigInt(c.yearDay - 1);
    case 'getDayOfMonth':
      return BigInt(c.day - 1);
    case 'getDate':
      return BigInt(c.day);
    case 'getDayOfWeek':
      return BigInt(c.weekday);
    case 'getHours':
      return BigInt(c.hour);
    case 'getMinutes':
      return BigInt(c.minute);
    case 'getSeconds':
      return BigInt(c.second);
    case 'getMilliseconds':
      return BigInt(Math.floor(c.nano / 1_000_000));
  }
}

export type DurationField = 'getHours' | 'getMinutes' | 'getSeconds' | 'getMilliseconds';

/** A duration in whole hours, minutes, seconds or milliseconds (truncated toward zero, as Go). */
export function durationField(d: CelDuration, field: DurationField): bigint {
  switch (field) {
    case 'getHours':
      return d.nanos / (3600n * NS_PER_SECOND);
    case 'getMinutes':
      return d.nanos / (60n * NS_PER_SECOND);
    case 'getSeconds':
      return d.nanos / NS_PER_SECOND;
    case 'getMilliseconds':
      return d.nanos / NS_PER_MS;
  }
}

/** Unix seconds of a timestamp (int(timestamp)). */
export function unixSeconds(t: CelTimestamp): bigint {
  return floorDiv(t.nanos, NS_PER_SECOND);
}

/** timestamp(int): Unix seconds within cel-go's range. */
export function timestampFromUnix(seconds: bigint): CelTimestamp {
  if (!inRange(seconds)) throw evalError('timestamp overflow');
  return new CelTimestamp(seconds * NS_PER_SECOND);
}

/** timestamp + duration (either order), timestamp - duration. */
export function addToTimestamp(t: CelTimestamp, nanos: bigint): CelTimestamp {
  return checkedTimestamp(t.nanos + nanos, t instanceof ZonedTimestamp ? t.offsetSeconds : 0);
}

export function timestampDifference(a: CelTimestamp, b: CelTimestamp): CelDuration {
  return checkedDuration(a.nanos - b.nanos);
}
