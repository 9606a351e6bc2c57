import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ServedTextMemo } from '../../src/registry/served-text-memo.ts';

test('the served-text memo holds at most its bound, letting the oldest entries go first', () => {
  const memo = new ServedTextMemo(1600);
  const stored = (i: number) => `{"n":${String(i).padStart(40, '0')}}`; // 47 characters
  const served = (i: number) => `served ${i}`.padEnd(50, '.');
  for (let i = 0; i < 20; i++) memo.set(stored(i), served(i));
  assert.ok(memo.size <= 1600, `${memo.size} characters held`);
  assert.equal(memo.entries, 16);
  assert.equal(memo.get(stored(3)), undefined, 'the oldest went first');
  assert.equal(memo.get(stored(4)), served(4));
  assert.equal(memo.get(stored(19)), served(19));
  // The same stored text again keeps the first entry (it cannot mean anything else).
  memo.set(stored(19), 'other');
  assert.equal(memo.get(stored(19)), served(19));
  assert.equal(memo.entries, 16);
});

test('an object bigger than a sixteenth of the memo is not kept', () => {
  const memo = new ServedTextMemo(1600);
  memo.set('x'.repeat(60), 'y'.repeat(41));
  assert.equal(memo.entries, 0);
  memo.set('x'.repeat(60), 'y'.repeat(40));
  assert.equal(memo.entries, 1);
});
