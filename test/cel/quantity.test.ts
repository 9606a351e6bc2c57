import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileErrorOf, evalErrorOf, value } from './helpers.ts';

// Cases of Kubernetes' library/quantity_test.go (1.34).
const RESULTS: [string, unknown][] = [
  [`isQuantity("20")`, true],
  [`isQuantity("20M")`, true],
  [`isQuantity("20Mi")`, true],
  [`isQuantity("20Mo")`, false],
  [`isQuantity("10Mm")`, false],
  [`quantity("200M") == quantity("200M")`, true],
  [`quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")`, true],
  [`quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") && quantity("0.002G") == quantity("2000k")`, true],
  [`quantity("200M") == quantity("0.3G")`, false],
  [`quantity("50M").isLessThan(quantity("50Mi"))`, true],
  [`quantity("50M").isLessThan(quantity("100M"))`, true],
  [`quantity("100M").isLessThan(quantity("50M"))`, false],
  [`quantity("50Mi").isGreaterThan(quantity("50M"))`, true],
  [`quantity("150Mi").isGreaterThan(quantity("100Mi"))`, true],
  [`quantity("50M").isGreaterThan(quantity("100M"))`, false],
  [`quantity("200M").compareTo(quantity("0.2G"))`, 0],
  [`quantity("50M").compareTo(quantity("50Mi"))`, -1],
  [`quantity("50Mi").compareTo(quantity("50M"))`, 1],
  [`quantity("50k").add(quantity("20")) == quantity("50.02k")`, true],
  [`quantity("50k").add(20).isLessThan(quantity("50020"))`, false],
  [`quantity("50k").sub(quantity("20")) == quantity("49.98k")`, true],
  [`quantity("50k").sub(20) == quantity("49980")`, true],
  [`quantity("50k").add(20).sub(quantity("100k")).asInteger()`, -49980],
  [`quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger()`, 20],
  [`quantity("50k").asInteger()`, 50000],
  [`quantity("9999999999999999999999999999999999999G").isInteger()`, false],
  [`quantity("50").isInteger()`, true],
  [`quantity("50.703k").asApproximateFloat()`, 50703],
  // Beyond the upstream cases: how Go holds a quantity decides isInteger().
  [`quantity("1.5Ki").isInteger()`, false],
  [`quantity("1Ki").asInteger()`, 1024],
  [`quantity("1.0").isInteger()`, false],
  [`quantity("1000m").isInteger()`, false],
  [`sign(quantity("-1m"))`, -1],
  [`sign(quantity("0"))`, 0],
  [`quantity("500m").asApproximateFloat()`, 0.5],
];

for (const [expr, want] of RESULTS) test(`quantity: ${expr}`, () => assert.deepEqual(value(expr), want));

const ERRORS: [string, string][] = [
  [`quantity("10Mo")`, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
  [`quantity("10Mm")`, "unable to parse quantity's suffix"],
  [`quantity("9999999999999999999999999999999999999G").asInteger()`, 'cannot convert value to integer'],
  // The result of add and sub is a pointer upstream; Equal cannot take it on the right.
  [`quantity("50.02k") == quantity("50k").add(quantity("20"))`, 'no such overload'],
];

for (const [expr, err] of ERRORS) test(`quantity error: ${expr}`, () => assert.equal(evalErrorOf(expr), err));

test('quantity: isQuantity of a list does not compile', () => {
  assert.match(compileErrorOf(`isQuantity([1, 2, 3])`), /found no matching overload for 'isQuantity' applied to '\(list\(int\)\)'/);
});
