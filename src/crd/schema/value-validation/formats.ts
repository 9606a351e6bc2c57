/**
 * The string formats custom resources are validated against: kube-openapi's strfmt.Default registry
 * (pkg/validation/strfmt) with the checks it runs, and the set Kubernetes 1.34 supports in CRD
 * schemas (apiextensions-apiserver pkg/apiserver/validation/formats.go). A format outside that set is
 * ignored (stripped) when custom resources are validated, and earns a warning when a CRD is written.
 *
 * Format names are normalised as go-openapi does: dashes removed (`date-time` is `datetime`).
 * `int32`, `int64`, `float`, `double` are no string formats: they are accepted in schemas but checked
 * by nothing.
 */
import { compileRe2, type GoRegexp } from '../../../cel/runtime/re2.ts';
import { parseCidrSloppy } from '../../../api/go/cidr.ts';
import { parseAddr } from '../../../api/go/netip.ts';
import { parseRequestURI, UrlError } from '../../../api/go/url.ts';
import { parseGoDurationStrict } from '../../../api/go/duration.ts';
import { isEmailAddress } from './email.ts';

/** go-openapi's name normalisation. */
export function normalizeFormatName(name: string): string {
  return name.replaceAll('-', '');
}

/** The formats 1.34 validates in CRD schemas (normalised names). */
const SUPPORTED_FORMATS = new Set(
  [
    'bsonobjectid',
    'uri',
    'email',
    'hostname',
    'ipv4',
    'ipv6',
    'cidr',
    'mac',
    'uuid',
    'uuid3',
    'uuid4',
    'uuid5',
    'isbn',
    'isbn10',
    'isbn13',
    'creditcard',
    'ssn',
    'hexcolor',
    'rgbcolor',
    'byte',
    'password',
    'date',
    'duration',
    'datetime',
    // Since 1.34.
    'k8s-short-name',
    'k8s-long-name',
  ].map(normalizeFormatName),
);

/** Whether a schema's format is one 1.34 validates (else it is stripped from custom resource validation). */
export function isSupportedFormat(format: string): boolean {
  return SUPPORTED_FORMATS.has(normalizeFormatName(format));
}

/** Lazily compiled RE2 patterns (Go's regexp semantics: ASCII \d \s, Unicode classes). */
function re(pattern: string): () => GoRegexp {
  let compiled: GoRegexp | undefined;
  return () => (compiled ??= compileRe2(pattern));
}

const HOSTNAME = re(
  '^([a-zA-Z0-9\\p{S}\\p{L}]((-?[a-zA-Z0-9\\p{S}\\p{L}]{0,62})?)|([a-zA-Z0-9\\p{S}\\p{L}](([a-zA-Z0-9-\\p{S}\\p{L}]{0,61}[a-zA-Z0-9\\p{S}\\p{L}])?)(\\.)){1,}([a-zA-Z\\p{L}]){2,63})$',
);
const UUID = re('(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$');
const UUID3 = re('(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$');
const UUID4 = re('(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$');
const UUID5 = re('(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$');
const CREDIT_CARD = re(
  '^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\\d{3})\\d{11})$',
);
const ISBN10 = re('^(?:[0-9]{9}X|[0-9]{10})$');
const ISBN13 = re('^(?:[0-9]{13})$');
const HEXCOLOR = re('^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$');
const RGBCOLOR = re(
  '^rgb\\(\\s*(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])\\s*,\\s*(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])\\s*,\\s*(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])\\s*\\)$',
);
const BASE64 = re('^(?:[A-Za-z0-9+\\/]{4})*(?:[A-Za-z0-9+\\/]{2}==|[A-Za-z0-9+\\/]{3}=|[A-Za-z0-9+\\/]{4})$');
const SSN = re('^\\d{3}[- ]?\\d{2}[- ]?\\d{4}$');
const SHORT_NAME = re('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$');
const LONG_NAME = re('^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$');
const DATE_TIME_TAIL = re('^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$');

const byteLength = (s: string) => Buffer.byteLength(s, 'utf8');

/** Go's net.ParseIP (no zones, no IPv4 leading zeros). */
function parseIP(s: string): { v4: boolean } | undefined {
  const a = parseAddr(s);
  if ('error' in a || a.zone !== '') return undefined;
  return { v4: a.v4 };
}

/** k8s.io/utils/net ParseIPSloppy: IPv4 octets may carry leading zeros. */
function parseIPSloppy(s: string): boolean {
  for (const c of s) {
    if (c === '.') return /^\d+\.\d+\.\d+\.\d+$/.test(s) && s.split('.').every((p) => Number(p) <= 255);
    if (c === ':') return parseIP(s) !== undefined;
  }
  return false;
}

function isHex(c: string | undefined): boolean {
  return c !== undefined && /^[0-9a-fA-F]$/.test(c);
}

/** Go's net.ParseMAC: 6, 8 or 20 octets, as `xx:xx…`, `xx-xx…` or `xxxx.xxxx…`. */
function isMAC(s: string): boolean {
  if (s.length < 14 || /[^\x00-\x7f]/.test(s)) return false;
  if (s[2] === ':' || s[2] === '-') {
    if ((s.length + 1) % 3 !== 0) return false;
    const n = (s.length + 1) / 3;
    if (n !== 6 && n !== 8 && n !== 20) return false;
    for (let i = 0, x = 0; i < n; i++, x += 3) {
      if (!isHex(s[x]) || !isHex(s[x + 1]) || (x + 2 < s.length && s[x + 2] !== s[2])) return false;
    }
    return true;
  }
  if (s[4] === '.') {
    if ((s.length + 1) % 5 !== 0) return false;
    const n = (2 * (s.length + 1)) / 5;
    if (n !== 6 && n !== 8 && n !== 20) return false;
    for (let x = 0; x < s.length; x += 5) {
      for (let k = 0; k < 4; k++) if (!isHex(s[x + k])) return false;
      if (x + 4 < s.length && s[x + 4] !== '.') return false;
    }
    return true;
  }
  return false;
}

function isCreditCard(s: string): boolean {
  const digits = s.replace(/[^0-9]+/g, '');
  if (!CREDIT_CARD().test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let n = digits.charCodeAt(i) - 48;
    if (double) {
      n *= 2;
      sum += n >= 10 ? (n % 10) + 1 : n;
    } else {
      sum += n;
    }
    double = !double;
  }
  return sum % 10 === 0;
}

function isISBN(s: string, version: 10 | 13): boolean {
  const clean = s.replace(/[\t\n\f\r -]+/g, '');
  const digit = (i: number) => clean.charCodeAt(i) - 48;
  if (version === 10) {
    if (!ISBN10().test(clean)) return false;
    let sum = 0;
    for (let i = 0; i < 9; i++) sum += (i + 1) * digit(i);
    sum += clean[9] === 'X' ? 100 : 10 * digit(9);
    return sum % 11 === 0;
  }
  if (!ISBN13().test(clean)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += (i % 2 === 0 ? 1 : 3) * digit(i);
  return digit(12) - ((10 - (sum % 10)) % 10) === 0;
}

/** time.Parse("2006-01-02", s). */
function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  return day <= days;
}

/** strfmt.IsDateTime: a date, a `t`, and a time of day checked loosely (as strings). */
function isDateTime(s: string): boolean {
  if (byteLength(s) < 4) return false;
  const parts = s.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0]!)) return false;
  const m = DATE_TIME_TAIL().findAll(parts[1]!, 1)[0];
  if (m === undefined) return false;
  const hh = m.slice(0, 2);
  const mm = m.slice(3, 5);
  const ss = m.slice(6, 8);
  return hh <= '23' && mm <= '59' && ss <= '59';
}

const DURATION_UNITS: readonly (readonly string[])[] = [
  ['ns', 'nano'],
  ['us', 'µs', 'micro'],
  ['ms', 'milli'],
  ['s', 'sec'],
  ['m', 'min'],
  ['h', 'hr', 'hour'],
  ['d', 'day'],
  ['w', 'wk', 'week'],
];

/** strfmt.ParseDuration: Go's time.ParseDuration, else any `<digits> <unit>` found in the text. */
function isDuration(s: string): boolean {
  if (!('error' in parseGoDurationStrict(s))) return true;
  // `((\d+)\s*([A-Za-zµ]+))` with Go's ASCII \s.
  const whole = /(\d+)[\t\n\f\r ]*([A-Za-zµ]+)/g;
  let ok = false;
  for (const m of s.matchAll(whole)) {
    // strconv.Atoi fails beyond int64.
    if (BigInt(m[1]!) > 9223372036854775807n) return false;
    const unit = m[2]!.toLowerCase().trim();
    for (const variants of DURATION_UNITS) {
      const last = variants.length - 1;
      variants.forEach((v, i) => {
        if ((i === last && unit.startsWith(v)) || v.toLowerCase() === unit) ok = true;
      });
    }
  }
  return ok;
}

function isRequestURI(s: string): boolean {
  try {
    parseRequestURI(s);
    return true;
  } catch (e) {
    if (e instanceof UrlError) return false;
    throw e;
  }
}

function isHostname(s: string): boolean {
  if (!HOSTNAME().test(s) || byteLength(s) > 255) return false;
  return s.split('.').every((p) => byteLength(p) <= 63);
}

/** The registry: normalised name → check. */
const VALIDATORS: ReadonlyMap<string, (s: string) => boolean> = new Map<string, (s: string) => boolean>([
  ['uri', isRequestURI],
  ['email', isEmailAddress],
  ['hostname', isHostname],
  ['ipv4', (s) => parseIPSloppy(s) && s.includes('.')],
  ['ipv6', (s) => parseIP(s) !== undefined && s.includes(':')],
  ['cidr', (s) => parseCidrSloppy(s) !== undefined],
  ['mac', isMAC],
  ['uuid', (s) => UUID().test(s)],
  ['uuid3', (s) => UUID3().test(s)],
  ['uuid4', (s) => UUID4().test(s)],
  ['uuid5', (s) => UUID5().test(s)],
  ['isbn', (s) => isISBN(s, 10) || isISBN(s, 13)],
  ['isbn10', (s) => isISBN(s, 10)],
  ['isbn13', (s) => isISBN(s, 13)],
  ['creditcard', isCreditCard],
  ['ssn', (s) => byteLength(s) === 11 && SSN().test(s)],
  ['hexcolor', (s) => HEXCOLOR().test(s)],
  ['rgbcolor', (s) => RGBCOLOR().test(s)],
  ['byte', (s) => BASE64().test(s)],
  ['password', () => true],
  ['date', isDate],
  ['duration', isDuration],
  ['datetime', isDateTime],
  ['bsonobjectid', (s) => /^[0-9a-fA-F]{24}$/.test(s)],
  ['k8sshortname', (s) => byteLength(s) <= 63 && SHORT_NAME().test(s)],
  ['k8slongname', (s) => byteLength(s) <= 253 && LONG_NAME().test(s)],
]);

/** The check of a format the registry knows, or undefined (the format is then not validated). */
export function formatChecker(format: string): ((s: string) => boolean) | undefined {
  return VALIDATORS.get(normalizeFormatName(format));
}
