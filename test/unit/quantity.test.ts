import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalQuantity, compareQuantities, parseQuantity, quantityMilliValue, quantitySign, quantityValue, type Quantity } from '../../src/api/go/quantity.ts';

const q = (s: string): Quantity => parseQuantity(s) ?? assert.fail(`${s} does not parse`);

// Canonical forms as apimachinery's Quantity.String() prints them after ParseQuantity.
test('quantities print in their canonical form', () => {
  const cases: [string, string][] = [
    ['0', '0'], ['100m', '100m'], ['1.5', '1500m'], ['0.5', '500m'], ['1000m', '1'], ['1000', '1k'], ['1000000', '1M'],
    ['1024Mi', '1Gi'], ['1536Mi', '1536Mi'], ['0.5Gi', '512Mi'], ['1.1Ki', '1126400m'], ['8Gi', '8Gi'], ['10Ki', '10Ki'],
    ['1e3', '1e3'], ['1.5e3', '1500'], ['0.0000000001', '1n'], ['-1.5', '-1500m'], ['1.0', '1'], ['1000E', '1e21'],
    ['12345678901234567890', '12345678901234567890'], ['0.1Ki', '102400m'],
  ];
  for (const [text, canonical] of cases) assert.equal(canonicalQuantity(text), canonical, text);
});

test('text in canonical shape is kept as written, as the parser’s fast path keeps it', () => {
  assert.equal(canonicalQuantity('+1'), '+1');
  assert.equal(canonicalQuantity('1E3'), '1E3');
});

test('values finer than a nano round up, away from zero', () => {
  assert.equal(canonicalQuantity('1.0000000001'), '1000000001n');
  assert.equal(canonicalQuantity('-0.0000000001'), '-1n');
});

test('binary quantities are capped at the int64 maximum', () => {
  assert.equal(canonicalQuantity('16Ei'), '9223372036854775807');
});

test('comparison, sign and values', () => {
  assert.equal(compareQuantities(q('1Gi'), q('1024Mi')), 0);
  assert.equal(compareQuantities(q('1G'), q('1Gi')), -1);
  assert.equal(compareQuantities(q('1500m'), q('1')), 1);
  assert.equal(quantitySign(q('-1m')), -1);
  assert.equal(quantitySign(q('0Gi')), 0);
  assert.equal(quantityValue(q('1500m')), 2n);
  assert.equal(quantityMilliValue(q('1.5')), 1500n);
  assert.equal(parseQuantity('1.5.5'), undefined);
});
