import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lastTouched } from '../../src/controllers/event-ttl-controller.ts';

test('an event counts as touched at the newest of its timestamps', () => {
  const t = (s: string) => Date.parse(s);
  assert.equal(lastTouched({ metadata: { creationTimestamp: '2026-01-01T00:00:00Z' } }), t('2026-01-01T00:00:00Z'));
  assert.equal(
    lastTouched({ metadata: { creationTimestamp: '2026-01-01T00:00:00Z' }, lastTimestamp: '2026-01-01T02:00:00Z', series: { lastObservedTime: '2026-01-01T03:00:00.000000Z' } }),
    t('2026-01-01T03:00:00Z'),
  );
  assert.equal(lastTouched({ metadata: {}, eventTime: null }), 0);
});
