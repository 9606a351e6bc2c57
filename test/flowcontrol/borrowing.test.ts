/**
 * Concurrency limits: nominal limits from shares, lendable and borrowing bounds, the allocation
 * problem, and the periodic adjustment that lets a busy level borrow from idle ones.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pino from 'pino';
import { ApfController } from '../../src/flowcontrol/apf-controller.ts';
import { MANDATORY_PRIORITY_LEVELS, SUGGESTED_PRIORITY_LEVELS } from '../../src/flowcontrol/bootstrap/default-objects.ts';
import { computeConcurrencyAllocation } from '../../src/flowcontrol/concurrency-allocation.ts';
import { readPriorityLevel } from '../../src/flowcontrol/config-objects.ts';
import { FakeClock } from './fake-clock.ts';

const silent = pino({ level: 'silent' });
const LEVELS = [...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS].map((c) => readPriorityLevel({ metadata: { name: c.name, uid: `${c.name}-uid` }, spec: structuredClone(c.spec) }));

function controller(total = 600) {
  const clock = new FakeClock();
  const c = new ApfController({ serverConcurrencyLimit: total, logger: silent, clock });
  c.setConfiguration(LEVELS, []);
  return { c, clock };
}

const limits = (c: ApfController, field: 'nominalCL' | 'minCL' | 'maxCL' | 'currentCL') =>
  Object.fromEntries([...c.levels.values()].map((l) => [l.name, l[field]]).sort(([a], [b]) => String(a).localeCompare(String(b))));

describe('nominal limits', () => {
  test('600 seats shared by the 1.34 levels\' shares (sum 245), rounded up; exempt has none', () => {
    const { c } = controller();
    assert.deepEqual(limits(c, 'nominalCL'), {
      'catch-all': 13,
      exempt: 0,
      'global-default': 49,
      'leader-election': 25,
      'node-high': 98,
      system: 74,
      'workload-high': 98,
      'workload-low': 245,
    });
  });

  test('lower bounds keep all but lendablePercent; without borrowingLimitPercent a level may borrow the whole server', () => {
    const { c } = controller();
    assert.deepEqual(limits(c, 'minCL'), {
      'catch-all': 13,
      exempt: 0,
      'global-default': 24,
      'leader-election': 25,
      'node-high': 73,
      system: 50,
      'workload-high': 49,
      'workload-low': 24,
    });
    assert.equal(c.levels.get('workload-low')!.maxCL, 245 + 600);
  });

  test('the per-request seat cap: 15% of the nominal limit, at most nominal / handSize', () => {
    const { c } = controller();
    assert.equal(c.levels.get('workload-low')!.maxSeats, 37);
    assert.equal(c.levels.get('global-default')!.maxSeats, 8);
    assert.equal(c.levels.get('leader-election')!.maxSeats, 4);
    assert.equal(c.levels.get('catch-all')!.maxSeats, 0);
    assert.equal(c.levels.get('exempt')!.maxSeats, 0);
  });
});

describe('current limits', () => {
  test('idle: the nominal sum (602) spread in proportion to the lower bounds', () => {
    const { c } = controller();
    assert.deepEqual(limits(c, 'currentCL'), {
      'catch-all': 30,
      exempt: 0,
      'global-default': 56,
      'leader-election': 58,
      'node-high': 170,
      system: 117,
      'workload-high': 114,
      'workload-low': 56,
    });
    assert.equal(c.levels.get('workload-low')!.queues!.concurrencyLimit, 56);
  });

  test('a level busy for a period borrows: its demand becomes its floor and its target', () => {
    const { c, clock } = controller();
    c.levels.get('workload-low')!.demand.set(200);
    clock.advance(10_000);
    c.updateBorrowing();
    const current = limits(c, 'currentCL');
    assert.deepEqual(current, {
      'catch-all': 18,
      exempt: 0,
      'global-default': 33,
      'leader-election': 35,
      'node-high': 101,
      system: 69,
      'workload-high': 68,
      'workload-low': 277,
    });
    // Nobody drops under what it keeps.
    for (const level of c.levels.values()) assert.ok(level.currentCL >= level.minCL, level.name);
  });

  test('with no spare seats beyond the floors, everyone gets its floor', () => {
    const { c, clock } = controller();
    // The exempt level used far more than the server has: nothing is left to share.
    c.levels.get('exempt')!.demand.set(10_000);
    clock.advance(10_000);
    c.updateBorrowing();
    for (const level of c.levels.values()) if (level.name !== 'exempt') assert.equal(level.currentCL, level.minCL, level.name);
    assert.equal(c.levels.get('exempt')!.currentCL, 10_000);
  });

  test('borrowingLimitPercent caps what a level may take', () => {
    const clock = new FakeClock();
    const c = new ApfController({ serverConcurrencyLimit: 100, logger: silent, clock });
    const limited = (name: string, shares: number, lendablePercent: number, borrowingLimitPercent?: number) =>
      readPriorityLevel({
        metadata: { name },
        spec: {
          type: 'Limited',
          limited: { nominalConcurrencyShares: shares, lendablePercent, ...(borrowingLimitPercent === undefined ? {} : { borrowingLimitPercent }), limitResponse: { type: 'Reject' } },
        },
      });
    c.setConfiguration([limited('greedy', 50, 0, 10), limited('lender', 45, 100), limited('catch-all', 5, 0)], []);
    assert.equal(c.levels.get('greedy')!.maxCL, 55);
    c.levels.get('greedy')!.demand.set(1000);
    clock.advance(10_000);
    c.updateBorrowing();
    assert.equal(c.levels.get('greedy')!.currentCL, 55);
  });
});

describe('the allocation problem', () => {
  test('unbounded: in proportion to the targets', () => {
    const { allocs, fairProp } = computeConcurrencyAllocation(60, [
      { target: 10, lowerBound: 0, upperBound: 100 },
      { target: 20, lowerBound: 0, upperBound: 100 },
    ]);
    assert.deepEqual(allocs, [20, 40]);
    assert.equal(fairProp, 2);
  });

  test('bounds hold: a capped item gives the rest to the others at one fair proportion', () => {
    const { allocs, fairProp } = computeConcurrencyAllocation(100, [
      { target: 10, lowerBound: 0, upperBound: 15 },
      { target: 10, lowerBound: 0, upperBound: 100 },
      { target: 30, lowerBound: 30, upperBound: 100 },
    ]);
    assert.deepEqual(allocs.map((a) => Math.round(a * 1000) / 1000), [15, 21.25, 63.75]);
    assert.equal(fairProp, 2.125);
  });

  test('impossible problems are refused with upstream\'s words', () => {
    assert.throws(() => computeConcurrencyAllocation(5, [{ target: 10, lowerBound: 10, upperBound: 20 }]), { message: 'lower bounds sum to 10, which is higher than the required sum of 5' });
    assert.throws(() => computeConcurrencyAllocation(50, [{ target: 10, lowerBound: 10, upperBound: 20 }]), { message: 'upper bounds sum to 20, which is lower than the required sum of 50' });
    assert.throws(() => computeConcurrencyAllocation(50, [{ target: 1, lowerBound: 10, upperBound: 20 }]), { message: 'target 0 is 1, which is below its lower bound of 10' });
  });
});
