/**
 * The seat-borrowing allocation problem upstream solves every adjustment period: share `requiredSum`
 * seats among the priority levels so that each gets `fairProp × target`, clipped to its bounds, with
 * one fair proportion for all the levels that no bound holds.
 */

export interface AllocationItem {
  /** What the level would like (its smoothed seat demand, at least its lower bound). */
  readonly target: number;
  readonly lowerBound: number;
  readonly upperBound: number;
}

export interface Allocation {
  readonly allocs: number[];
  readonly fairProp: number;
}

/** Targets below this count as this much, so that no target divides by zero. */
export const MIN_TARGET = 0.001;
const EPSILON = 0.0000001;
const MAX_FLOAT32 = 3.4028234663852886e38;

/**
 * The unique allocation (up to floating point) that sums to `requiredSum`, keeps every item within
 * its bounds, and gives each item either `fairProp × target` or the bound that `fairProp × target`
 * crosses. Throws when the bounds make that impossible, as upstream returns an error.
 */
export function computeConcurrencyAllocation(requiredSum: number, items: readonly AllocationItem[]): Allocation {
  if (requiredSum < 0) throw new Error('negative sums are not supported');
  let lowSum = 0;
  let highSum = 0;
  let targetSum = 0;
  // Ranges start as upstream's: minimum at the largest float32, maximum at zero.
  let lbMin = MAX_FLOAT32;
  let lbMax = 0;
  let ubMin = MAX_FLOAT32;
  let ubMax = 0;
  // Bounds relative to the (non-zero) target: the fair proportion at which each bound starts to hold.
  const targets: number[] = [];
  const relLower: number[] = [];
  const relUpper: number[] = [];
  items.forEach((item, i) => {
    if (item.lowerBound < 0) throw new Error(`lower bound ${i} is ${item.lowerBound} but negative lower bounds are not allowed`);
    if (item.target < item.lowerBound) throw new Error(`target ${i} is ${item.target}, which is below its lower bound of ${item.lowerBound}`);
    if (item.upperBound < item.lowerBound) throw new Error(`upper bound ${i} is ${item.upperBound} but should not be less than the lower bound ${item.lowerBound}`);
    const target = Math.max(item.target, MIN_TARGET);
    lowSum += item.lowerBound;
    highSum += item.upperBound;
    targetSum += target;
    targets.push(target);
    relLower.push(item.lowerBound / target);
    relUpper.push(item.upperBound / target);
    lbMin = Math.min(lbMin, relLower[i]!);
    lbMax = Math.max(lbMax, relLower[i]!);
    ubMin = Math.min(ubMin, relUpper[i]!);
    ubMax = Math.max(ubMax, relUpper[i]!);
  });
  if (lbMax > 1) throw new Error(`lbRange.max-1=${lbMax - 1}, which is impossible because lbRange.max can not be greater than 1`);
  if (lowSum - requiredSum > EPSILON) throw new Error(`lower bounds sum to ${lowSum}, which is higher than the required sum of ${requiredSum}`);
  if (requiredSum - highSum > EPSILON) throw new Error(`upper bounds sum to ${highSum}, which is lower than the required sum of ${requiredSum}`);
  if (requiredSum === 0) return { allocs: items.map(() => 0), fairProp: 0 };
  // No room to move: every item sits on its lower (or its upper) bound.
  if (lowSum - requiredSum > -EPSILON) return { allocs: items.map((i) => i.lowerBound), fairProp: lbMin };
  if (requiredSum - highSum > -EPSILON) return { allocs: items.map((i) => i.upperBound), fairProp: ubMax };
  let fairProp = requiredSum / targetSum;
  if (lbMax <= fairProp && fairProp <= ubMin) return { allocs: targets.map((t) => t * fairProp), fairProp };

  // Some bounds hold. Walk the bounds in ascending order of the proportion at which they start or
  // stop holding, raising fairProp until the items' sum reaches the required one.
  const bounds: { value: number; item: number; lower: boolean }[] = [];
  items.forEach((_, i) => {
    bounds.push({ value: relLower[i]!, item: i, lower: true });
    bounds.push({ value: relUpper[i]!, item: i, lower: false });
  });
  bounds.sort((a, b) => a.value - b.value);
  let sumSoFar = lowSum;
  fairProp = lbMin;
  // The items between their bounds at the current fairProp (their allocation follows fairProp) and
  // the sum of their targets; a bound crossed changes both.
  let sensitiveTargetSum = 0;
  let sensitiveCount = 0;
  let deltaTargetSum = 0;
  let deltaCount = 0;
  let next = 0;
  while (sumSoFar < requiredSum) {
    let nextBound: number;
    for (;;) {
      sensitiveTargetSum += deltaTargetSum;
      sensitiveCount += deltaCount;
      if (next >= bounds.length) throw new Error('impossible: ran out of bounds to consider in bound-constrained problem');
      const b = bounds[next++]!;
      nextBound = b.value;
      deltaCount = b.lower ? 1 : -1;
      deltaTargetSum = b.lower ? targets[b.item]! : -targets[b.item]!;
      if (nextBound > fairProp) break;
    }
    if (sensitiveCount === 0) {
      fairProp = nextBound;
      continue;
    }
    const reached = fairProp + (requiredSum - sumSoFar) / sensitiveTargetSum;
    if (reached <= nextBound) {
      fairProp = reached;
      break;
    }
    sumSoFar += (nextBound - fairProp) * sensitiveTargetSum;
    fairProp = nextBound;
  }
  return { allocs: items.map((item, i) => Math.max(item.lowerBound, Math.min(item.upperBound, fairProp * targets[i]!))), fairProp };
}
