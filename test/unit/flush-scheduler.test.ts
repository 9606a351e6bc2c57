import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { scheduleFlush } from '../../src/http/flush-scheduler.ts';

/** Resolves once nothing is left to flush: a few turns of the loop after the last slice. */
async function settled(): Promise<void> {
  for (let i = 0; i < 20; i++) await nextTurn();
}

test('a few flushes run at the end of the tick, in the order they were asked for', async () => {
  const ran: number[] = [];
  for (let i = 0; i < 3; i++) scheduleFlush(() => ran.push(i));
  assert.deepEqual(ran, [], 'not during the tick that asked');
  await Promise.resolve();
  await Promise.resolve();
  assert.deepEqual(ran, [0, 1, 2], 'before the event loop turns');
});

test('many flushes run in slices, one per turn of the event loop, so I/O interleaves with them', async () => {
  const ran: number[] = [];
  for (let i = 0; i < 200; i++) scheduleFlush(() => ran.push(i));
  let atFirstTurn = -1;
  setImmediate(() => (atFirstTurn = ran.length));
  await settled();
  assert.equal(atFirstTurn, 64, 'the first slice ran within the tick, the rest waited for later turns');
  assert.deepEqual(ran, Array.from({ length: 200 }, (_, i) => i));
});

test('a flush asked for while a slice runs is run too, after those already waiting', async () => {
  const ran: string[] = [];
  for (let i = 0; i < 70; i++) scheduleFlush(() => {
    ran.push(`a${i}`);
    if (i === 0) scheduleFlush(() => ran.push('late'));
  });
  await settled();
  assert.equal(ran.length, 71);
  assert.equal(ran.at(-1), 'late');
  // And the scheduler starts over cleanly afterwards.
  scheduleFlush(() => ran.push('next'));
  await Promise.resolve();
  assert.equal(ran.at(-1), 'next');
});
