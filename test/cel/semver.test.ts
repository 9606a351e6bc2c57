import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileErrorOf, evalErrorOf, value } from './helpers.ts';

// Cases of Kubernetes' library/semver_test.go (version 1, as 1.34 enables it).
const RESULTS: [string, unknown][] = [
  [`semver("1.2.3") == semver("1.2.3")`, true],
  [`isSemver("1.2.3-beta.1+build.1")`, true],
  [`isSemver("")`, false],
  [`isSemver("v1.0.0")`, false],
  [`isSemver(" 1.0.0")`, false],
  [`isSemver("1. 0.0")`, false],
  [`isSemver("1.0.0 ")`, false],
  [`isSemver("01.01.01")`, false],
  [`isSemver("1")`, false],
  [`isSemver("1.1")`, false],
  [`isSemver("", true)`, false],
  [`isSemver(" 1.0.0", true)`, false],
  [`isSemver("1. 0.0", true)`, false],
  [`isSemver("1.0.0 ", true)`, false],
  [`isSemver("v1.0.0", true)`, true],
  [`isSemver("01.01.01", true)`, true],
  [`isSemver("1", true)`, true],
  [`isSemver("1.1", true)`, true],
  [`semver("v01.01", true) == semver("1.1.0")`, true],
  [`semver("1.2.3") == semver("1.0.0")`, false],
  [`semver("1.0.0").isLessThan(semver("1.2.3"))`, true],
  [`semver("1.0.0").isLessThan(semver("1.0.0"))`, false],
  [`semver("1.2.3").isGreaterThan(semver("1.0.0"))`, true],
  [`semver("1.0.0").isGreaterThan(semver("1.0.0"))`, false],
  [`semver("1.2.3").compareTo(semver("1.2.3"))`, 0],
  [`semver("1.0.0").compareTo(semver("1.2.3"))`, -1],
  [`semver("1.2.3").compareTo(semver("1.0.0"))`, 1],
  [`semver("1.2.3").major()`, 1],
  [`semver("1.2.3").minor()`, 2],
  [`semver("1.2.3").patch()`, 3],
  // Pre-releases order below their release and by blang/semver's rules; build metadata is ignored.
  [`semver("1.0.0-alpha").isLessThan(semver("1.0.0"))`, true],
  [`semver("1.0.0-alpha.1").isLessThan(semver("1.0.0-alpha.beta"))`, true],
  [`semver("1.0.0-2").isLessThan(semver("1.0.0-10"))`, true],
  [`semver("1.0.0+a") == semver("1.0.0+b")`, true],
];

for (const [expr, want] of RESULTS) test(`semver: ${expr}`, () => assert.deepEqual(value(expr), want));

const ERRORS: [string, string][] = [
  [`semver("v1.0")`, 'No Major.Minor.Patch elements found'],
  [`semver("")`, 'Version string empty'],
  [`semver("01.2.3")`, 'Major number must not contain leading zeroes "01"'],
  [`semver("1.x.3")`, 'Invalid character(s) found in minor number "x"'],
  [`semver("1.2.3-01")`, 'Numeric PreRelease version must not contain leading zeroes "01"'],
];

for (const [expr, err] of ERRORS) test(`semver error: ${expr}`, () => assert.equal(evalErrorOf(expr), err));

test('semver: the normalizing form fills in a short version', () => {
  assert.equal(value(`semver("1.2", true).patch()`), 0);
  assert.equal(evalErrorOf(`semver("1.2-rc", true)`), 'short version cannot contain PreRelease/Build meta data');
});

test('semver: isSemver of a list does not compile', () => {
  assert.match(compileErrorOf(`isSemver([1, 2, 3])`), /found no matching overload for 'isSemver' applied to/);
});
