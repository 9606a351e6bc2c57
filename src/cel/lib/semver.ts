/**
 * Kubernetes' semver library at version 1 (what 1.34 enables): semver() and isSemver() (each with
 * the normalizing form that takes a bool), comparisons and the version parts, over blang/semver's
 * strict parser and its error texts.
 */
import { goQuote } from '../../api/go/quote.ts';
import { CelEvalError, evalError } from '../errors.ts';
import { actualSize, CelObject, type CelValue } from '../values.ts';
import { ceilCost, global, member, STRING_TRAVERSAL, type Overload } from './overload.ts';

type Pre = { num: bigint } | { str: string };

export class CelSemver extends CelObject {
  readonly typeName = 'kubernetes.Semver';
  constructor(
    readonly major: bigint,
    readonly minor: bigint,
    readonly patch: bigint,
    readonly pre: readonly Pre[],
  ) {
    super();
  }
  equals(other: CelValue): boolean | undefined {
    return other instanceof CelSemver ? compareSemver(this, other) === 0 : undefined;
  }
}

class SemverError extends Error {}
const fail = (msg: string): never => {
  throw new SemverError(msg);
};

const NUMBERS = /^[0-9]*$/;
const ALPHANUM = /^[0-9A-Za-z-]*$/;
const leadingZero = (s: string) => s.length > 1 && s[0] === '0';

function parseUint(s: string): bigint {
  if (!/^\d+$/.test(s)) fail(`strconv.ParseUint: parsing ${goQuote(s)}: invalid syntax`);
  const v = BigInt(s);
  if (v >= 2n ** 64n) fail(`strconv.ParseUint: parsing ${goQuote(s)}: value out of range`);
  return v;
}

function part(s: string, what: 'major' | 'minor' | 'patch'): bigint {
  if (!NUMBERS.test(s)) fail(`Invalid character(s) found in ${what} number ${goQuote(s)}`);
  if (leadingZero(s)) fail(`${what[0]!.toUpperCase()}${what.slice(1)} number must not contain leading zeroes ${goQuote(s)}`);
  return parseUint(s);
}

/** blang/semver's Parse. */
function parse(s: string): CelSemver {
  if (s.length === 0) fail('Version string empty');
  const parts = splitN(s, '.', 3);
  if (parts.length !== 3) fail('No Major.Minor.Patch elements found');
  const major = part(parts[0]!, 'major');
  const minor = part(parts[1]!, 'minor');
  let patchStr = parts[2]!;
  let build: string[] = [];
  let prerelease: string[] = [];
  const plus = patchStr.indexOf('+');
  if (plus >= 0) {
    build = patchStr.slice(plus + 1).split('.');
    patchStr = patchStr.slice(0, plus);
  }
  const dash = patchStr.indexOf('-');
  if (dash >= 0) {
    prerelease = patchStr.slice(dash + 1).split('.');
    patchStr = patchStr.slice(0, dash);
  }
  const patch = part(patchStr, 'patch');
  const pre: Pre[] = prerelease.map((p) => {
    if (p.length === 0) fail('Prerelease is empty');
    if (NUMBERS.test(p)) {
      if (leadingZero(p)) fail(`Numeric PreRelease version must not contain leading zeroes ${goQuote(p)}`);
      return { num: parseUint(p) };
    }
    if (ALPHANUM.test(p)) return { str: p };
    return fail(`Invalid character(s) found in prerelease ${goQuote(p)}`);
  });
  for (const b of build) {
    if (b.length === 0) fail('Build meta data is empty');
    if (!ALPHANUM.test(b)) fail(`Invalid character(s) found in build meta data ${goQuote(b)}`);
  }
  return new CelSemver(major, minor, patch, pre);
}

function splitN(s: string, sep: string, n: number): string[] {
  const parts = s.split(sep);
  return parts.length <= n ? parts : [...parts.slice(0, n - 1), parts.slice(n - 1).join(sep)];
}

/** Kubernetes' normalizeAndParse: no leading `v`, no leading zeros, missing minor or patch as 0. */
function normalizeAndParse(s: string): CelSemver {
  s = s.startsWith('v') ? s.slice(1) : s;
  const parts = splitN(s, '.', 3).map((p) => {
    if (p.length <= 1) return p;
    p = p.replace(/^0+/, '');
    return p.length === 0 || !/[0-9]/.test(p[0]!) ? `0${p}` : p;
  });
  if (parts.length < 3) {
    if (/[+-]/.test(parts.at(-1)!)) fail('short version cannot contain PreRelease/Build meta data');
    while (parts.length < 3) parts.push('0');
  }
  return parse(parts.join('.'));
}

function toSemver(s: string, normalize: boolean): CelSemver {
  try {
    return normalize ? normalizeAndParse(s) : parse(s);
  } catch (e) {
    if (e instanceof SemverError) throw evalError(e.message);
    throw e;
  }
}

function isSemver(s: string, normalize: boolean): boolean {
  try {
    toSemver(s, normalize);
    return true;
  } catch (e) {
    if (e instanceof CelEvalError) return false;
    throw e;
  }
}

const cmp = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);

/** Version.Compare: numbers, then pre-releases (a release outranks its pre-releases; build ignored). */
export function compareSemver(a: CelSemver, b: CelSemver): number {
  const c = cmp(a.major, b.major) || cmp(a.minor, b.minor) || cmp(a.patch, b.patch);
  if (c !== 0) return c;
  if (a.pre.length === 0 && b.pre.length === 0) return 0;
  if (a.pre.length === 0) return 1;
  if (b.pre.length === 0) return -1;
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const x = a.pre[i]!;
    const y = b.pre[i]!;
    let r: number;
    if ('num' in x && 'num' in y) r = cmp(x.num, y.num);
    else if ('num' in x) r = -1;
    else if ('num' in y) r = 1;
    else r = x.str < y.str ? -1 : x.str > y.str ? 1 : 0;
    if (r !== 0) return r;
  }
  return a.pre.length === b.pre.length ? 0 : a.pre.length < b.pre.length ? -1 : 1;
}

const S = 'kubernetes.Semver';
const v = (x: CelValue | undefined) => x as CelSemver;
const stringCost = { cost: (args: readonly CelValue[]) => ceilCost(actualSize(args[0]!), STRING_TRAVERSAL) };

export const semverOverloads: readonly Overload[] = [
  global('string_to_semver', 'semver', ['string'], S, ([s]) => toSemver(s as string, false), stringCost),
  global('string_bool_to_semver', 'semver', ['string', 'bool'], S, ([s, n]) => toSemver(s as string, n as boolean), stringCost),
  global('is_semver_string', 'isSemver', ['string'], 'bool', ([s]) => isSemver(s as string, false), stringCost),
  global('is_semver_string_bool', 'isSemver', ['string', 'bool'], 'bool', ([s, n]) => isSemver(s as string, n as boolean), stringCost),
  member('semver_is_greater_than', 'isGreaterThan', [S, S], 'bool', ([a, b]) => compareSemver(v(a), v(b)) === 1),
  member('semver_is_less_than', 'isLessThan', [S, S], 'bool', ([a, b]) => compareSemver(v(a), v(b)) === -1),
  member('semver_compare_to', 'compareTo', [S, S], 'int', ([a, b]) => BigInt(compareSemver(v(a), v(b)))),
  member('semver_major', 'major', [S], 'int', ([a]) => v(a).major),
  member('semver_minor', 'minor', [S], 'int', ([a]) => v(a).minor),
  member('semver_patch', 'patch', [S], 'int', ([a]) => v(a).patch),
];
