/**
 * Strings of a formatted schema as CEL reads them (valuesunstructured.go): `duration` through
 * kube-openapi's strfmt.ParseDuration (Go's syntax, else `<n> <unit>` phrases such as `3 days`),
 * `date` as midnight UTC, `date-time` through strfmt.ParseDateTime's layouts, `byte` as standard
 * base64. A string that does not parse yields upstream's error text.
 */
import { parseGoDurationStrict } from '../../api/go/duration.ts';
import { daysFromCivil } from '../../api/go/civil-days.ts';
import { checkedTimestamp, parseTimestamp } from '../../cel/runtime/time.ts';
import { CelDuration, type CelTimestamp } from '../../cel/index.ts';

const NS = 1_000_000_000n;
const UNITS: readonly [readonly string[], bigint][] = [
  [['ns', 'nano'], 1n],
  [['us', 'µs', 'micro'], 1000n],
  [['ms', 'milli'], 1_000_000n],
  [['s', 'sec'], NS],
  [['m', 'min'], 60n * NS],
  [['h', 'hr', 'hour'], 3600n * NS],
  [['d', 'day'], 86400n * NS],
  [['w', 'wk', 'week'], 7n * 86400n * NS],
];

/** strfmt.ParseDuration, or the reason it fails. */
export function parseSchemaDuration(s: string): CelDuration | Error {
  const strict = parseGoDurationStrict(s);
  if ('ns' in strict) return new CelDuration(strict.ns);
  let total = 0n;
  let ok = false;
  // `((\d+)\s*([A-Za-zµ]+))`, with Go's ASCII \s.
  for (const m of s.matchAll(/(\d+)[\t\n\f\r ]*([A-Za-zµ]+)/g)) {
    const factor = BigInt(m[1]!);
    if (factor > 9223372036854775807n) return new Error(`strconv.Atoi: parsing "${m[1]}": value out of range`);
    const unit = m[2]!.toLowerCase().trim();
    for (const [variants, multiplier] of UNITS) {
      const last = variants.length - 1;
      variants.forEach((v, i) => {
        if ((i === last && unit.startsWith(v)) || v.toLowerCase() === unit) {
          ok = true;
          // time.Duration arithmetic wraps.
          total = BigInt.asIntN(64, total + BigInt.asIntN(64, factor * multiplier));
        }
      });
    }
  }
  return ok ? new CelDuration(total) : new Error(`unable to parse ${s} as duration`);
}

/** time.Parse("2006-01-02", s): midnight UTC. */
export function parseSchemaDate(s: string): CelTimestamp | Error {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  const bad = () => new Error(`parsing time "${s}" as "2006-01-02": cannot parse "${s}" as "2006"`);
  if (!m) return bad();
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12) return new Error(`parsing time "${s}": month out of range`);
  if (day < 1 || day > daysInMonth(year, month)) return new Error(`parsing time "${s}": day out of range`);
  return checkedTimestamp(BigInt(daysFromCivil(year, month, day)) * 86400n * NS);
}

function daysInMonth(y: number, m: number): number {
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;
}

/**
 * strfmt.ParseDateTime: RFC 3339 with or without fractional seconds and with `±hh:mm` or `±hhmm`
 * zones, a local time without zone (UTC), minutes-only times (`2006-01-02T15:04Z`, `…T15:04`),
 * and `2006-01-02 15:04:05`. The empty string is the Unix epoch.
 */
export function parseSchemaDateTime(s: string): CelTimestamp | Error {
  if (s === '') return checkedTimestamp(0n);
  const rfc = parseTimestamp(s);
  if (rfc) return rfc;
  const m = /^(\d{4})-(\d{2})-(\d{2})([T ])(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}:?\d{2})?$/.exec(s);
  if (!m) return new Error(`parsing time "${s}" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "${s}" as "2006-01-02T15:04:05.000000Z07:00"`);
  const [year, month, day, hour, minute] = [1, 2, 3, 5, 6].map((i) => Number(m[i]));
  const sep = m[4]!;
  const secondText = m[7];
  const zone = m[9];
  // Which layouts exist: a space only with seconds and no zone; minutes-only with `Z` or nothing.
  if (sep === ' ' && (secondText === undefined || zone !== undefined || m[8] !== undefined)) return new Error(`parsing time "${s}": no layout matches`);
  if (secondText === undefined && zone !== undefined && zone !== 'Z') return new Error(`parsing time "${s}": no layout matches`);
  const second = secondText === undefined ? 0 : Number(secondText);
  if (month! < 1 || month! > 12 || day! < 1 || day! > daysInMonth(year!, month!) || hour! > 23 || minute! > 59 || second > 59) return new Error(`parsing time "${s}": value out of range`);
  let offset = 0;
  if (zone !== undefined && zone !== 'Z') {
    const digits = zone.replace(':', '');
    offset = (Number(digits.slice(1, 3)) * 3600 + Number(digits.slice(3, 5)) * 60) * (zone[0] === '-' ? -1 : 1);
  }
  const frac = (m[8] ?? '').slice(0, 9).padEnd(9, '0');
  const seconds = BigInt(daysFromCivil(year!, month!, day!)) * 86400n + BigInt(hour! * 3600 + minute! * 60 + second - offset);
  return checkedTimestamp(seconds * NS + BigInt(frac || '0'), offset);
}

/** base64.StdEncoding.DecodeString (padding required; CR and LF ignored). */
export function parseSchemaBytes(s: string): Uint8Array | Error {
  const text = s.replace(/[\r\n]/g, '');
  const bad = /[^A-Za-z0-9+/=]/.exec(text);
  if (bad) return new Error(`illegal base64 data at input byte ${bad.index}`);
  if (text.length % 4 !== 0 || /=[^=]/.test(text) || /={3,}$/.test(text)) return new Error(`illegal base64 data at input byte ${Math.max(0, text.length - (text.length % 4 || 4))}`);
  return new Uint8Array(Buffer.from(text, 'base64'));
}
