/**
 * `"…".format([args])` of cel-go's strings extension as Kubernetes 1.34 enables it (version 2, so
 * the first formatter with the en_US locale): %s %d %f %e %b %x %X %o and %%, lists and maps
 * printed as CEL literals, fixed-point numbers with en_US digit grouping and scientific notation as
 * golang.org/x/text prints it (`1.052033 × 10⁰³`), and cel-go's error texts.
 */
import { goFloat } from '../../api/go/number.ts';
import { goQuote } from '../../api/go/quote.ts';
import { evalError } from '../errors.ts';
import { formatDuration, formatTimestamp } from '../runtime/time.ts';
import { CelDuration, CelTimestamp, CelType, CelUint, isMap, typeName, type CelValue } from '../values.ts';

const STRING_CLAUSE = 'string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps';

class FormatError extends Error {}

/** The result of formatting, or throws cel-go's error. */
export function formatString(format: string, args: readonly CelValue[]): string {
  try {
    return parseFormat(format, args);
  } catch (e) {
    if (e instanceof FormatError) throw evalError(e.message);
    throw e;
  }
}

function parseFormat(format: string, args: readonly CelValue[]): string {
  let out = '';
  let argIndex = 0;
  let i = 0;
  while (i < format.length) {
    const c = format[i]!;
    if (c !== '%') {
      out += c;
      i++;
      continue;
    }
    if (format[i + 1] === '%') {
      out += '%';
      i += 2;
      continue;
    }
    if (argIndex >= args.length) throw new FormatError(`index ${argIndex} out of range`);
    if (i + 1 >= format.length) throw new FormatError('unexpected end of string');
    const { read, value } = clause(format.slice(i + 1), args[argIndex]!);
    out += value;
    i += 1 + read;
    argIndex++;
  }
  return out;
}

function clause(rest: string, arg: CelValue): { read: number; value: string } {
  let i = 0;
  let precision: number | undefined;
  if (rest[0] === '.') {
    i = 1;
    let digits = '';
    for (;;) {
      if (i >= rest.length) throw new FormatError('could not parse formatting clause: error while parsing precision: could not find end of precision specifier');
      if (!/[0-9]/.test(rest[i]!)) break;
      digits += rest[i];
      i++;
    }
    if (digits === '') throw new FormatError('could not parse formatting clause: error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing "": invalid syntax');
    precision = Number(digits);
  }
  const verb = rest[i]!;
  i++;
  let f: (v: CelValue) => string;
  switch (verb) {
    case 's':
      f = formatAsString;
      break;
    case 'd':
      f = formatDecimal;
      break;
    case 'f':
      f = (v) => formatFixed(v, precision ?? 6);
      break;
    case 'e':
      f = formatScientific;
      break;
    case 'b':
      f = formatBinary;
      break;
    case 'x':
    case 'X':
      f = (v) => formatHex(v, verb === 'X');
      break;
    case 'o':
      f = formatOctal;
      break;
    default:
      throw new FormatError(`could not parse formatting clause: unrecognized formatting clause "${verb}"`);
  }
  try {
    return { read: i, value: f(arg) };
  } catch (e) {
    if (e instanceof FormatError) throw new FormatError(`error during formatting: ${e.message}`);
    throw e;
  }
}

/** FormatString: the value's string conversion; lists and maps as literals. */
function formatAsString(v: CelValue): string {
  if (Array.isArray(v)) return formatList(v);
  if (isMap(v)) return formatMap(v);
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string':
      return v;
    case 'bigint':
    case 'boolean':
      return String(v);
    case 'number':
      return goFloat(v);
  }
  if (v instanceof CelUint) return String(v.value);
  if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
  if (v instanceof CelTimestamp) return formatTimestamp(v);
  if (v instanceof CelDuration) return formatDuration(v);
  if (v instanceof CelType) return v.name;
  throw new FormatError(`${STRING_CLAUSE}, was given ${typeName(v)}`);
}

/** clauseForType: how a list element or map value prints. */
function formatElement(v: CelValue): string {
  let s: string;
  if (typeof v === 'bigint' || v instanceof CelUint) s = formatDecimal(v);
  else if (typeof v === 'number') s = Number.isNaN(v) ? 'NaN' : Number.isFinite(v) ? fixed(v, 6) : v > 0 ? '+Inf' : '-Inf';
  else if (v instanceof CelTimestamp) s = `timestamp(${goQuote(formatTimestamp(v))})`;
  else if (v instanceof CelDuration) s = `duration(${goQuote(formatDuration(v))})`;
  else if (Array.isArray(v)) s = formatList(v);
  else if (isMap(v)) s = formatMap(v);
  else if (typeof v === 'string' || typeof v === 'boolean' || v === null || v instanceof Uint8Array || v instanceof CelType) s = formatAsString(v);
  else throw new FormatError(`no formatting function for ${typeName(v)}`);
  return quoteForCel(v, s);
}

function quoteForCel(v: CelValue, s: string): string {
  if (typeof v === 'string') return goQuote(s);
  if (v instanceof Uint8Array) return `b${goQuote(s)}`;
  if (typeof v === 'number' && !Number.isFinite(v)) return goQuote(s);
  return s;
}

function formatList(list: readonly CelValue[]): string {
  return `[${list.map(formatElement).join(', ')}]`;
}

function formatMap(map: ReadonlyMap<unknown, CelValue>): string {
  const pairs: [string, string][] = [];
  for (const [k, v] of map) {
    const key = k as CelValue;
    let ks: string;
    if (typeof key === 'string' || typeof key === 'boolean') ks = quoteForCel(key, String(key));
    else if (typeof key === 'bigint') ks = String(key);
    else throw new FormatError(`no formatting function for map key of type ${typeName(key)}`);
    pairs.push([ks, formatElement(v)]);
  }
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return `{${pairs.map(([k, v]) => `${k}:${v}`).join(', ')}}`;
}

function formatDecimal(v: CelValue): string {
  if (typeof v === 'bigint') return String(v);
  if (v instanceof CelUint) return String(v.value);
  throw new FormatError(`decimal clause can only be used on integers, was given ${typeName(v)}`);
}

/** A double argument of %f and %e, where the strings NaN, Infinity and -Infinity stand for those doubles. */
function doubleArg(v: CelValue, clauseName: string): number {
  if (typeof v === 'number') return v;
  if (v === 'NaN') return NaN;
  if (v === 'Infinity') return Infinity;
  if (v === '-Infinity') return -Infinity;
  throw new FormatError(`${clauseName} clause can only be used on doubles, was given ${typeName(v)}`);
}

/** %.Nf through x/text's en_US printer: grouped thousands, ∞ for infinity. */
function formatFixed(v: CelValue, precision: number): string {
  const d = doubleArg(v, 'fixed-point');
  if (Number.isNaN(d)) return 'NaN';
  if (!Number.isFinite(d)) return d > 0 ? '∞' : '-∞';
  const s = fixed(d, precision);
  const neg = s.startsWith('-');
  const [whole, frac] = (neg ? s.slice(1) : s).split('.') as [string, string | undefined];
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${neg ? '-' : ''}${grouped}${frac !== undefined ? `.${frac}` : ''}`;
}

const SUPERSCRIPT = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];

/** %e through x/text's en_US printer: six decimals, `× 10` and a superscript exponent of two digits or more. */
function formatScientific(v: CelValue): string {
  const d = doubleArg(v, 'scientific');
  if (Number.isNaN(d)) return 'NaN';
  if (!Number.isFinite(d)) return d > 0 ? '∞' : '-∞';
  const [mantissa, exp] = d.toExponential(6).split('e') as [string, string];
  const e = Number(exp);
  const digits = String(Math.abs(e)).padStart(2, '0');
  const sup = [...digits].map((c) => SUPERSCRIPT[Number(c)]).join('');
  return `${mantissa}\u202f×\u202f10${e < 0 ? '⁻' : ''}${sup}`;
}

function formatBinary(v: CelValue): string {
  if (typeof v === 'bigint') return v.toString(2);
  if (v instanceof CelUint) return v.value.toString(2);
  if (typeof v === 'boolean') return v ? '1' : '0';
  throw new FormatError(`only integers and bools can be formatted as binary, was given ${typeName(v)}`);
}

function formatHex(v: CelValue, upper: boolean): string {
  let s: string;
  if (typeof v === 'string') s = Buffer.from(v, 'utf8').toString('hex');
  else if (v instanceof Uint8Array) s = Buffer.from(v).toString('hex');
  else if (typeof v === 'bigint') s = v.toString(16);
  else if (v instanceof CelUint) s = v.value.toString(16);
  else throw new FormatError(`only integers, byte buffers, and strings can be formatted as hex, was given ${typeName(v)}`);
  return upper ? s.toUpperCase() : s;
}

function formatOctal(v: CelValue): string {
  if (typeof v === 'bigint') return v.toString(8);
  if (v instanceof CelUint) return v.value.toString(8);
  throw new FormatError(`octal clause can only be used on integers, was given ${typeName(v)}`);
}

/**
 * A finite double to `precision` decimals, rounding its exact binary value half to even as Go's
 * strconv does (JavaScript's toFixed rounds ties up and switches to exponents past 1e21).
 */
export function fixed(d: number, precision: number): string {
  if (d === 0) return (Object.is(d, -0) ? '-' : '') + (precision > 0 ? `0.${'0'.repeat(precision)}` : '0');
  const neg = d < 0;
  // d = m × 2^e exactly.
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, Math.abs(d));
  const bits = buf.getBigUint64(0);
  const expBits = Number((bits >> 52n) & 0x7ffn);
  let m = bits & ((1n << 52n) - 1n);
  let e: number;
  if (expBits === 0) e = -1074;
  else {
    m |= 1n << 52n;
    e = expBits - 1075;
  }
  // scaled = d × 10^precision as a fraction num/den.
  let num = m * 10n ** BigInt(precision);
  let den = 1n;
  if (e >= 0) num <<= BigInt(e);
  else den <<= BigInt(-e);
  let q = num / den;
  const r = num - q * den;
  if (r * 2n > den || (r * 2n === den && q % 2n === 1n)) q++;
  let digits = q.toString().padStart(precision + 1, '0');
  if (precision > 0) digits = `${digits.slice(0, -precision)}.${digits.slice(-precision)}`;
  return (neg ? '-' : '') + digits;
}
