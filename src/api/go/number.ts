/**
 * Go's `%v` of a number from decoded JSON. kube-apiserver decodes an integral number that fits as an
 * int64 and everything else as a float64, and the two print differently (`1000000` against `1e+06`);
 * JavaScript keeps only the value, so an integral value that fits is taken for an int64.
 */

const INT64_BOUND = 2 ** 63;

/** Whether a JSON number is an int64 to Go (else a float64). */
export function isGoInt(n: number): boolean {
  return Number.isInteger(n) && n >= -INT64_BOUND && n < INT64_BOUND;
}

/** The shortest round-trip digits of a finite non-zero double (those Go uses) and its decimal exponent. */
function shortestDigits(x: number): [digits: string, exp: number] {
  const [mantissa, expText] = Math.abs(x).toExponential().split('e') as [string, string];
  return [mantissa.replace('.', ''), Number(expText)];
}

/** strconv.FormatFloat(x, 'g', -1, 64), which is what `%v` prints for a float64. */
export function goFloat(x: number): string {
  if (Number.isNaN(x) || !Number.isFinite(x) || x === 0) return formatFloatFixed(x);
  const [digits, exp] = shortestDigits(x);
  if (exp < -4 || exp >= 6) {
    const abs = Math.abs(exp);
    const out = `${digits[0]}${digits.length > 1 ? `.${digits.slice(1)}` : ''}e${exp < 0 ? '-' : '+'}${abs < 10 ? '0' : ''}${abs}`;
    return x < 0 ? `-${out}` : out;
  }
  return formatFloatFixed(x);
}

/** strconv.FormatFloat(x, 'f', -1, 64): the shortest round-tripping decimal without exponent. */
export function formatFloatFixed(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? '+Inf' : '-Inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const [digits, exp] = shortestDigits(x);
  let out: string;
  if (exp < 0) out = `0.${'0'.repeat(-exp - 1)}${digits}`;
  else if (digits.length <= exp + 1) out = digits + '0'.repeat(exp + 1 - digits.length);
  else out = `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  return x < 0 ? `-${out}` : out;
}

/** `%v` of a number as kube-apiserver holds it (int64 or float64). */
export function goNumber(n: number): string {
  return isGoInt(n) ? BigInt(n).toString() : goFloat(n);
}
