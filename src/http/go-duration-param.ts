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

/** Go's `quote` of the time package: double quotes, `"` and `\` escaped, bytes past ASCII as \xNN. */
function quote(text: string): string {
  let out = '"';
  for (const byte of Buffer.from(text, 'utf8')) {
    if (byte >= 0x80 || byte < 0x20) out += `\\x${byte.toString(16).padStart(2, '0')}`;
    else {
      const c = String.fromCharCode(byte);
      out += c === '"' || c === '\\' ? `\\${c}` : c;
    }
  }
  return `${out}"`;
}

export function parseGoDurationStrict(text: string): GoDurationResult {
  const invalid = { error: `time: invalid duration ${quote(text)}` };
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
    if (unitLength === 0) return { error: `time: missing unit in duration ${quote(text)}` };
    const unitName = rest.slice(0, unitLength);
    rest = rest.slice(unitLength);
    const unit = Object.hasOwn(NS, unitName) ? NS[unitName] : undefined;
    if (unit === undefined) return { error: `time: unknown unit ${quote(unitName)} in duration ${quote(text)}` };
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
