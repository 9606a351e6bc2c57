/**
 * Shuffle sharding: the dealer against a straightforward 64-bit reference of upstream's algorithm,
 * the flow hash (SHA-256 of schema, NUL, distinguisher; first 8 bytes little-endian), and the same
 * flow always landing in the same hand.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { QueueSet, type QueueSetObserver } from '../../src/flowcontrol/queue-set.ts';
import { Dealer, dealerProblem, flowHash, flowHashOf, flowHashValue, requiredEntropyBits } from '../../src/flowcontrol/shuffle-sharding.ts';
import { FakeClock } from './fake-clock.ts';

/** Upstream's deal, on BigInt: mixed-radix digits, each shifted past the cards already dealt. */
function referenceDeal(hash: bigint, deckSize: number, handSize: number): number[] {
  const remainders: number[] = [];
  let h = hash;
  for (let i = 0; i < handSize; i++) {
    const d = BigInt(deckSize - i);
    remainders.push(Number(h % d));
    h /= d;
  }
  return remainders.map((r, i) => {
    let card = r;
    for (let j = i; j > 0; j--) if (card >= remainders[j - 1]!) card++;
    return card;
  });
}

const NO_OBSERVER: QueueSetObserver = {
  inQueue: () => undefined,
  executing: () => undefined,
  seatsInUse: () => undefined,
  rejected: () => undefined,
  queueLengthAfterEnqueue: () => undefined,
  seatDemand: () => undefined,
};

describe('dealer', () => {
  test('deals what the 64-bit reference deals, for random hashes and the sizes levels use', () => {
    for (const [deck, hand] of [
      [64, 6],
      [128, 6],
      [16, 4],
      [64, 8],
      [1, 1],
      [2, 2],
      [1 << 10, 6],
    ] as const) {
      const dealer = new Dealer(deck, hand);
      for (let i = 0; i < 500; i++) {
        const value = randomBytes(8).readBigUInt64LE();
        assert.deepEqual(dealer.deal(flowHashOf(value)), referenceDeal(value, deck, hand), `deck ${deck} hand ${hand} hash ${value}`);
      }
      // The extremes of the 64-bit range too.
      for (const value of [0n, 1n, 2n ** 64n - 1n, 2n ** 63n]) assert.deepEqual(dealer.deal(flowHashOf(value)), referenceDeal(value, deck, hand));
    }
  });

  test('a hand is handSize distinct cards of the deck', () => {
    const dealer = new Dealer(64, 8);
    for (let i = 0; i < 200; i++) {
      const hand = dealer.deal(flowHashOf(randomBytes(8).readBigUInt64LE()));
      assert.equal(hand.length, 8);
      assert.equal(new Set(hand).size, 8);
      for (const card of hand) assert.ok(card >= 0 && card < 64);
    }
  });

  test('a worked example: hash 1000 in a deck of 10, hand of 3', () => {
    // 1000 = 0 + 10·(100 = 1 + 9·(11 = 3 + 8·1)): picks 0, 1, 3, shifted past earlier cards → 0, 2, 5.
    assert.deepEqual(new Dealer(10, 3).deal(flowHashOf(1000n)), [0, 2, 5]);
  });

  test('sizes that cannot be dealt are refused with upstream\'s words', () => {
    assert.equal(dealerProblem(0, 1), 'deckSize 0 or handSize 1 is not positive');
    assert.equal(dealerProblem(4, 5), 'handSize 5 is greater than deckSize 4');
    assert.equal(dealerProblem(2 ** 27, 1), `deckSize ${2 ** 27} is impractically large`);
    assert.equal(requiredEntropyBits(512, 8), 72);
    assert.equal(dealerProblem(512, 8), 'required entropy bits of deckSize 512 and handSize 8 is greater than 60');
    assert.equal(dealerProblem(128, 8), undefined);
    assert.throws(() => new Dealer(4, 5), { message: 'handSize 5 is greater than deckSize 4' });
  });
});

describe('flow hash', () => {
  test('SHA-256 of schema name, a zero byte and the distinguisher: its first eight bytes little-endian', () => {
    const digest = createHash('sha256').update('global-default\u0000alice').digest();
    assert.equal(flowHashValue(flowHash('global-default', 'alice')), digest.readBigUInt64LE(0));
    // The separator matters: ("ab", "c") and ("a", "bc") are different flows.
    assert.notDeepEqual(flowHash('ab', 'c'), flowHash('a', 'bc'));
  });

  test('the same flow always gets the same hand; different flows mostly different ones', () => {
    const dealer = new Dealer(64, 6);
    const hand = (user: string) => dealer.deal(flowHash('global-default', user));
    assert.deepEqual(hand('alice'), hand('alice'));
    const hands = new Set(Array.from({ length: 50 }, (_, i) => hand(`user-${i}`).join(',')));
    assert.ok(hands.size >= 49, `50 users share hands too often (${hands.size} distinct)`);
  });

  test('a flow\'s requests all go to queues of its hand', () => {
    const clock = new FakeClock();
    const qs = new QueueSet({ name: 'pl', desiredNumQueues: 16, queueLengthLimit: 100, handSize: 3 }, clock, NO_OBSERVER);
    // No seats: everything waits, so the queue each request went to can be read back.
    qs.setConfiguration({ name: 'pl', desiredNumQueues: 16, queueLengthLimit: 100, handSize: 3 }, { concurrencyLimit: 0, concurrencyDenominator: 1 });
    const hash = flowHash('s', 'alice');
    const expected = new Dealer(16, 3).deal(hash);
    for (let i = 0; i < 30; i++) qs.startRequest({ initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 }, hash, 's\u0000alice', 'alice', 's');
    const used = qs.dump().queues.flatMap((q, index) => (q.waiting.length > 0 ? [index] : []));
    assert.deepEqual(used.sort((a, b) => a - b), [...expected].sort((a, b) => a - b));
    // Spread over the hand by least waiting work: 10 each.
    for (const index of expected) assert.equal(qs.dump().queues[index]!.waiting.length, 10);
  });
});
