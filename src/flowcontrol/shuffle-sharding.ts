import { createHash } from 'node:crypto';

/**
 * Shuffle sharding as kube-apiserver's priority levels use it: a flow's 64-bit hash deals it a hand
 * of `handSize` distinct queues out of `deckSize`, always the same hand for the same flow, so that a
 * heavy flow only ever crowds the few queues of its own hand.
 *
 * The hash is kept as four 16-bit limbs (least significant first) so that dividing it by a deck size
 * (at most 2^26) stays within exact double arithmetic: no BigInt on the request path.
 */
export type FlowHash = readonly [number, number, number, number];

/** Upstream limits the entropy a deal may consume, so that the last card is dealt evenly enough. */
export const MAX_HASH_BITS = 60;
const MAX_DECK_SIZE = 1 << 26;

/** Bits of hash a deal of `handSize` cards out of `deckSize` consumes (slightly conservative, as upstream). */
export function requiredEntropyBits(deckSize: number, handSize: number): number {
  return Math.ceil(Math.log2(deckSize) * handSize);
}

/** Why a deck and hand size cannot be dealt, or undefined when they can. */
export function dealerProblem(deckSize: number, handSize: number): string | undefined {
  if (deckSize <= 0 || handSize <= 0) return `deckSize ${deckSize} or handSize ${handSize} is not positive`;
  if (handSize > deckSize) return `handSize ${handSize} is greater than deckSize ${deckSize}`;
  if (deckSize > MAX_DECK_SIZE) return `deckSize ${deckSize} is impractically large`;
  if (requiredEntropyBits(deckSize, handSize) > MAX_HASH_BITS) {
    return `required entropy bits of deckSize ${deckSize} and handSize ${handSize} is greater than ${MAX_HASH_BITS}`;
  }
  return undefined;
}

export class Dealer {
  readonly deckSize: number;
  readonly handSize: number;

  constructor(deckSize: number, handSize: number) {
    const problem = dealerProblem(deckSize, handSize);
    if (problem) throw new Error(problem);
    this.deckSize = deckSize;
    this.handSize = handSize;
  }

  /**
   * The hand for a hash, in the order dealt. The hash is read as a mixed-radix number: its digit in
   * base deckSize picks the first card, the next digit (base deckSize-1) picks among the cards left,
   * and so on; each pick is then shifted past the cards already taken, which keeps the cards distinct.
   */
  deal(hash: FlowHash): number[] {
    const limbs = [hash[0], hash[1], hash[2], hash[3]];
    const picks = new Array<number>(this.handSize);
    for (let i = 0; i < this.handSize; i++) picks[i] = divideInPlace(limbs, this.deckSize - i);
    const hand = new Array<number>(this.handSize);
    for (let i = 0; i < this.handSize; i++) {
      let card = picks[i]!;
      // Walking back over the earlier picks in reverse order places this card among the cards left.
      for (let j = i; j > 0; j--) if (card >= picks[j - 1]!) card++;
      hand[i] = card;
    }
    return hand;
  }
}

/** Divides the 64-bit number in `limbs` by `divisor` (≤ 2^26) in place; returns the remainder. */
function divideInPlace(limbs: number[], divisor: number): number {
  let remainder = 0;
  for (let i = 3; i >= 0; i--) {
    // remainder < divisor ≤ 2^26, so this stays below 2^42: exact in a double.
    const current = remainder * 65536 + limbs[i]!;
    const q = Math.floor(current / divisor);
    remainder = current - q * divisor;
    limbs[i] = q;
  }
  return remainder;
}

/**
 * The hash upstream shuffle-shards a flow with: SHA-256 of the FlowSchema's name, a zero byte and
 * the flow distinguisher, its first eight bytes read little-endian.
 */
export function flowHash(flowSchemaName: string, distinguisher: string): FlowHash {
  const digest = createHash('sha256').update(flowSchemaName).update(ZERO).update(distinguisher).digest();
  return [digest.readUInt16LE(0), digest.readUInt16LE(2), digest.readUInt16LE(4), digest.readUInt16LE(6)];
}

const ZERO = Buffer.from([0]);

/** The hash as one unsigned 64-bit number (tests and diagnostics). */
export function flowHashValue(hash: FlowHash): bigint {
  return (BigInt(hash[3]) << 48n) | (BigInt(hash[2]) << 32n) | (BigInt(hash[1]) << 16n) | BigInt(hash[0]);
}

/** The limbs of an unsigned 64-bit number (tests). */
export function flowHashOf(value: bigint): FlowHash {
  const limb = (shift: bigint) => Number((value >> shift) & 0xffffn);
  return [limb(0n), limb(16n), limb(32n), limb(48n)];
}
