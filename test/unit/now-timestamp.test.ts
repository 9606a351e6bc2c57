import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nowTimestamp } from '../../src/registry/system-fields.ts';

test('nowTimestamp formats to the second in UTC, whichever second it was last asked for', () => {
  // Same second, then another, then back: each answer is its own second's (the last one is remembered).
  assert.equal(nowTimestamp(new Date('2026-03-04T05:06:07.123Z')), '2026-03-04T05:06:07Z');
  assert.equal(nowTimestamp(new Date('2026-03-04T05:06:07.999Z')), '2026-03-04T05:06:07Z');
  assert.equal(nowTimestamp(new Date('2026-03-04T05:06:08.000Z')), '2026-03-04T05:06:08Z');
  assert.equal(nowTimestamp(new Date('2026-03-04T05:06:07.500Z')), '2026-03-04T05:06:07Z');
  // Before 1970 the second is floored, not truncated toward zero.
  assert.equal(nowTimestamp(new Date('1969-12-31T23:59:59.500Z')), '1969-12-31T23:59:59Z');
  assert.equal(nowTimestamp(new Date('1970-01-01T00:00:00.500Z')), '1970-01-01T00:00:00Z');
  assert.throws(() => nowTimestamp(new Date(Number.NaN)), RangeError);
});

test('nowTimestamp without a date is now', () => {
  const before = Math.floor(Date.now() / 1000);
  const stamp = Date.parse(nowTimestamp()) / 1000;
  const after = Math.floor(Date.now() / 1000);
  assert.ok(stamp >= before && stamp <= after, `${stamp} within [${before}, ${after}]`);
  assert.match(nowTimestamp(), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
});
