// Go's time.Parse verdicts for metav1.Time and MicroTime: the canonical UTC form the server writes is
// accepted by a quick check, and everything it must not accept still gets Go's error text.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { goTimeParseError, RFC3339, RFC3339_MICRO } from '../../src/api/go/time.ts';

test('canonical UTC times parse', () => {
  for (const v of ['2024-02-29T23:59:59Z', '2026-11-27T00:00:00Z', '0001-01-01T00:00:00Z', '2023-12-31T12:30:45Z']) {
    assert.equal(goTimeParseError(v, RFC3339), undefined, v);
  }
  assert.equal(goTimeParseError('2026-11-27T08:09:10.123456Z', RFC3339_MICRO), undefined);
  // Other forms Go accepts, through the full parse: offsets, a fraction RFC3339 does not spell.
  assert.equal(goTimeParseError('2026-11-27T08:09:10+02:00', RFC3339), undefined);
  assert.equal(goTimeParseError('2026-11-27T08:09:10.5Z', RFC3339), undefined);
});

test('out-of-range fields in the canonical shape get Go errors', () => {
  assert.equal(goTimeParseError('2023-02-29T00:00:00Z', RFC3339), 'parsing time "2023-02-29T00:00:00Z": day out of range');
  assert.equal(goTimeParseError('2024-04-31T00:00:00Z', RFC3339), 'parsing time "2024-04-31T00:00:00Z": day out of range');
  assert.equal(goTimeParseError('2024-13-01T00:00:00Z', RFC3339), 'parsing time "2024-13-01T00:00:00Z": month out of range');
  assert.equal(goTimeParseError('2024-00-10T00:00:00Z', RFC3339), 'parsing time "2024-00-10T00:00:00Z": month out of range');
  assert.equal(goTimeParseError('2024-01-00T00:00:00Z', RFC3339), 'parsing time "2024-01-00T00:00:00Z": day out of range');
  assert.equal(goTimeParseError('2024-01-01T24:00:00Z', RFC3339), 'parsing time "2024-01-01T24:00:00Z": hour out of range');
  assert.equal(goTimeParseError('2024-01-01T00:60:00Z', RFC3339), 'parsing time "2024-01-01T00:60:00Z": minute out of range');
  assert.equal(goTimeParseError('2024-01-01T00:00:60Z', RFC3339), 'parsing time "2024-01-01T00:00:60Z": second out of range');
});

test('other shapes get Go errors', () => {
  assert.equal(goTimeParseError('notatime', RFC3339), 'parsing time "notatime" as "2006-01-02T15:04:05Z07:00": cannot parse "notatime" as "2006"');
  assert.equal(
    goTimeParseError('2026-11-27T08:09:10.12345Z', RFC3339_MICRO),
    'parsing time "2026-11-27T08:09:10.12345Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".12345Z" as ".000000"',
  );
  assert.equal(goTimeParseError('2026-11-27T08:09:10Z ', RFC3339), 'parsing time "2026-11-27T08:09:10Z ": extra text: " "');
});
