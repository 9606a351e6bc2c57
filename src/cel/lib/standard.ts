/**
 * CEL's standard functions as cel-go implements them: size, the type conversions (with their
 * overflow and "type conversion error" texts), type() and dyn(), the string predicates, regular
 * expression matches and the timestamp and duration getters (UTC by default, as Kubernetes sets
 * cel.DefaultUTCTimeZone).
 */
import { goFloat } from '../../api/go/number.ts';
import { evalError } from '../errors.ts';
import { checkedUint } from '../runtime/ops.ts';
import { compileRe2, type GoRegexp } from '../runtime/re2.ts';
import { durationField, formatDuration, formatTimestamp, parseDuration, parseTimestamp, timestampField, timestampFromUnix, unixSeconds, type DurationField, type TimestampField } from '../runtime/time.ts';
import { actualSize, CelDuration, CelTimestamp, CelUint, codePointCount, INT64_MAX, INT64_MIN, isMap, typeOf, UINT64_MAX, type CelValue } from '../values.ts';
import { ceilCost, global, member, REGEX_LENGTH, STRING_TRAVERSAL, type Overload } from './overload.ts';

const conversionError = (from: string, to: string) => evalError(`type conversion error from '${from}' to '${to}'`);

function size(v: CelValue): bigint {
  if (typeof v === 'string') return BigInt(codePointCount(v));
  if (v instanceof Uint8Array) return BigInt(v.length);
  if (Array.isArray(v)) return BigInt(v.length);
  if (isMap(v)) return BigInt(v.size);
  return 0n;
}

/** strconv.ParseInt(s, 10, 64) / ParseUint: digits with an optional sign (none for uint). */
function parseInteger(s: string, signed: boolean): bigint | undefined {
  if (!(signed ? /^[+-]?\d+$/ : /^\d+$/).test(s)) return undefined;
  const v = BigInt(s);
  if (signed ? v < INT64_MIN || v > INT64_MAX : v > UINT64_MAX) return undefined;
  return v;
}

/** strconv.ParseFloat(s, 64): decimal or hex floats, inf/infinity/nan; out of range is an error. */
function parseFloat64(s: string): number | undefined {
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(s);
  if (special) {
    if (special[2]!.toLowerCase() === 'nan') return special[1] === '' ? NaN : undefined;
    return special[1] === '-' ? -Infinity : Infinity;
  }
  if (/^[+-]?(\d[\d_]*\.?[\d_]*|\.\d[\d_]*)([eE][+-]?\d+)?$/.test(s) && !s.includes('_')) {
    const v = Number(s);
    return Number.isFinite(v) ? v : undefined;
  }
  const hex = /^([+-]?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?\d+)$/.exec(s);
  if (hex && (hex[2] || hex[3])) {
    const mant = parseInt((hex[2] ?? '') + (hex[3] ?? ''), 16) / 16 ** (hex[3]?.length ?? 0);
    const v = mant * 2 ** Number(hex[4]);
    if (!Number.isFinite(v)) return undefined;
    return hex[1] === '-' ? -v : v;
  }
  return undefined;
}

const BOOLS: Record<string, boolean> = { '1': true, t: true, T: true, TRUE: true, true: true, True: true, '0': false, f: false, F: false, FALSE: false, false: false, False: false };

function doubleToInt(d: number): bigint {
  if (!Number.isFinite(d) || d <= -9223372036854775808 || d >= 9223372036854775807) throw evalError('integer overflow');
  return BigInt(Math.trunc(d));
}

function doubleToUint(d: number): CelUint {
  if (!Number.isFinite(d) || d < 0 || d >= 18446744073709551616) throw evalError('unsigned integer overflow');
  return new CelUint(BigInt(Math.trunc(d)));
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function bytesToString(b: Uint8Array): string {
  try {
    return utf8.decode(b);
  } catch {
    throw evalError('invalid UTF-8 in bytes, cannot convert to string');
  }
}

/** regexp.MatchString with Go's syntax and errors. */
function matches(s: string, re: string): boolean {
  let r: GoRegexp;
  try {
    r = compileRe2(re);
  } catch (e) {
    throw evalError((e as Error).message);
  }
  return r.test(s);
}

/** cel-go's cost of a string-traversing standard call (its default cost switch). */
const traverseFirst = (args: readonly CelValue[]) => ceilCost(actualSize(args[0]!), STRING_TRAVERSAL);

const TIMESTAMP_GETTERS: [TimestampField, string][] = [
  ['getFullYear', 'timestamp_to_year'],
  ['getMonth', 'timestamp_to_month'],
  ['getDayOfYear', 'timestamp_to_day_of_year'],
  ['getDayOfMonth', 'timestamp_to_day_of_month'],
  ['getDate', 'timestamp_to_day_of_month_1_based'],
  ['getDayOfWeek', 'timestamp_to_day_of_week'],
  ['getHours', 'timestamp_to_hours'],
  ['getMinutes', 'timestamp_to_minutes'],
  ['getSeconds', 'timestamp_to_seconds'],
  ['getMilliseconds', 'timestamp_to_milliseconds'],
];

const DURATION_GETTERS: [DurationField, string][] = [
  ['getHours', 'duration_to_hours'],
  ['getMinutes', 'duration_to_minutes'],
  ['getSeconds', 'duration_to_seconds'],
  ['getMilliseconds', 'duration_to_milliseconds'],
];

const TS = 'google.protobuf.Timestamp';
const DUR = 'google.protobuf.Duration';

export const standardOverloads: readonly Overload[] = [
  ...(['string', 'bytes', 'list<dyn>', 'map<dyn, dyn>'] as const).flatMap((t) => {
    const n = t.replace(/<.*/, '');
    return [global(`size_${n}`, 'size', [t], 'int', ([v]) => size(v!)), member(`${n}_size`, 'size', [t], 'int', ([v]) => size(v!))];
  }),

  global('to_dyn', 'dyn', ['dyn'], 'dyn', ([v]) => v!),
  global('type', 'type', ['dyn'], 'type', ([v]) => typeOf(v!)),

  global('int_to_int', 'int', ['int'], 'int', ([v]) => v!),
  global('uint_to_int', 'int', ['uint'], 'int', ([v]) => {
    const u = (v as CelUint).value;
    if (u > INT64_MAX) throw evalError('integer overflow');
    return u;
  }),
  global('double_to_int', 'int', ['double'], 'int', ([v]) => doubleToInt(v as number)),
  global('string_to_int', 'int', ['string'], 'int', ([v]) => {
    const n = parseInteger(v as string, true);
    if (n === undefined) throw conversionError('string', 'int');
    return n;
  }),
  global('timestamp_to_int', 'int', [TS], 'int', ([v]) => unixSeconds(v as CelTimestamp)),

  global('uint_to_uint', 'uint', ['uint'], 'uint', ([v]) => v!),
  global('int_to_uint', 'uint', ['int'], 'uint', ([v]) => checkedUint(v as bigint)),
  global('double_to_uint', 'uint', ['double'], 'uint', ([v]) => doubleToUint(v as number)),
  global('string_to_uint', 'uint', ['string'], 'uint', ([v]) => {
    const n = parseInteger(v as string, false);
    if (n === undefined) throw conversionError('string', 'uint');
    return new CelUint(n);
  }),

  global('double_to_double', 'double', ['double'], 'double', ([v]) => v!),
  global('int_to_double', 'double', ['int'], 'double', ([v]) => Number(v as bigint)),
  global('uint_to_double', 'double', ['uint'], 'double', ([v]) => Number((v as CelUint).value)),
  global('string_to_double', 'double', ['string'], 'double', ([v]) => {
    const d = parseFloat64(v as string);
    if (d === undefined) throw conversionError('string', 'double');
    return d;
  }),

  global('string_to_string', 'string', ['string'], 'string', ([v]) => v!),
  global('int_to_string', 'string', ['int'], 'string', ([v]) => String(v)),
  global('uint_to_string', 'string', ['uint'], 'string', ([v]) => String((v as CelUint).value)),
  global('double_to_string', 'string', ['double'], 'string', ([v]) => goFloat(v as number)),
  global('bytes_to_string', 'string', ['bytes'], 'string', ([v]) => bytesToString(v as Uint8Array), { cost: traverseFirst }),
  global('bool_to_string', 'string', ['bool'], 'string', ([v]) => String(v)),
  global('timestamp_to_string', 'string', [TS], 'string', ([v]) => formatTimestamp(v as CelTimestamp)),
  global('duration_to_string', 'string', [DUR], 'string', ([v]) => formatDuration(v as CelDuration)),

  global('bytes_to_bytes', 'bytes', ['bytes'], 'bytes', ([v]) => v!),
  global('string_to_bytes', 'bytes', ['string'], 'bytes', ([v]) => new Uint8Array(Buffer.from(v as string, 'utf8')), { cost: traverseFirst }),

  global('bool_to_bool', 'bool', ['bool'], 'bool', ([v]) => v!),
  global('string_to_bool', 'bool', ['string'], 'bool', ([v]) => {
    const b = BOOLS[v as string];
    if (b === undefined) throw conversionError('string', 'bool');
    return b;
  }),

  global('timestamp_to_timestamp', 'timestamp', [TS], TS, ([v]) => v!),
  global('string_to_timestamp', 'timestamp', ['string'], TS, ([v]) => {
    const t = parseTimestamp(v as string);
    if (!t) throw conversionError('string', TS);
    return t;
  }),
  global('int64_to_timestamp', 'timestamp', ['int'], TS, ([v]) => timestampFromUnix(v as bigint)),
  global('duration_to_duration', 'duration', [DUR], DUR, ([v]) => v!),
  global('string_to_duration', 'duration', ['string'], DUR, ([v]) => {
    const d = parseDuration(v as string);
    if (!d) throw conversionError('string', DUR);
    return d;
  }),

  member('contains_string', 'contains', ['string', 'string'], 'bool', ([a, b]) => (a as string).includes(b as string), {
    cost: ([a, b]) => ceilCost(actualSize(a!), STRING_TRAVERSAL) * ceilCost(actualSize(b!), STRING_TRAVERSAL),
  }),
  member('starts_with_string', 'startsWith', ['string', 'string'], 'bool', ([a, b]) => (a as string).startsWith(b as string), { cost: traverseFirst }),
  member('ends_with_string', 'endsWith', ['string', 'string'], 'bool', ([a, b]) => (a as string).endsWith(b as string), { cost: traverseFirst }),
  member('matches_string', 'matches', ['string', 'string'], 'bool', ([a, b]) => matches(a as string, b as string), {
    cost: ([s, re]) => ceilCost(1 + actualSize(s!), STRING_TRAVERSAL) * ceilCost(actualSize(re!), REGEX_LENGTH),
  }),
  global('matches', 'matches', ['string', 'string'], 'bool', ([a, b]) => matches(a as string, b as string)),

  ...TIMESTAMP_GETTERS.flatMap(([field, id]) => [
    member(id, field, [TS], 'int', ([t]) => timestampField(t as CelTimestamp, field)),
    member(`${id}_with_tz`, field, [TS, 'string'], 'int', ([t, tz]) => timestampField(t as CelTimestamp, field, tz as string)),
  ]),
  ...DURATION_GETTERS.map(([field, id]) => member(id, field, [DUR], 'int', ([d]) => durationField(d as CelDuration, field))),
];
