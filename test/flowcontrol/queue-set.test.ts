/**
 * The fair queuing of one priority level on a clock the test moves: dispatch order across flows,
 * limits, rejections (queue full, concurrency limit, time-out), and seats held after a request.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { QueueSet, type FairRequest, type QueueSetObserver, type QueuingConfig, type SeatWork } from '../../src/flowcontrol/queue-set.ts';
import { Dealer, flowHashOf, type FlowHash } from '../../src/flowcontrol/shuffle-sharding.ts';
import { FakeClock } from './fake-clock.ts';

const ONE: SeatWork = { initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 };

/** Counts what the level reports, by flow schema. */
class Recorder implements QueueSetObserver {
  inQueueRequests = 0;
  executingRequests = 0;
  seats = 0;
  demand = 0;
  readonly rejections: string[] = [];
  inQueue(_fs: string, requests: number): void {
    this.inQueueRequests += requests;
  }
  executing(_fs: string, requests: number): void {
    this.executingRequests += requests;
  }
  seatsInUse(_fs: string, seats: number): void {
    this.seats += seats;
  }
  rejected(fs: string, reason: string): void {
    this.rejections.push(`${fs}:${reason}`);
  }
  queueLengthAfterEnqueue(): void {}
  seatDemand(seats: number): void {
    this.demand = seats;
  }
}

function level(queuing: Omit<QueuingConfig, 'name'>, limit: number) {
  const clock = new FakeClock();
  const recorder = new Recorder();
  const config = { name: 'pl', ...queuing };
  const qs = new QueueSet(config, clock, recorder);
  qs.setConfiguration(config, { concurrencyLimit: limit, concurrencyDenominator: Math.max(1, limit) });
  return { qs, clock, recorder };
}

/** Hashes whose hands (of size 1) are distinct queues, one per flow name. */
function flowsOnDistinctQueues(deck: number, names: string[]): Map<string, FlowHash> {
  const dealer = new Dealer(deck, 1);
  const out = new Map<string, FlowHash>();
  const used = new Set<number>();
  for (let v = 1n; out.size < names.length; v++) {
    const hash = flowHashOf(v * 7919n);
    const queue = dealer.deal(hash)[0]!;
    if (used.has(queue)) continue;
    used.add(queue);
    out.set(names[out.size]!, hash);
  }
  return out;
}

describe('fair queuing', () => {
  test('a flow that arrives behind a long backlog of another is served next, not last', () => {
    const { qs, clock } = level({ desiredNumQueues: 8, queueLengthLimit: 50, handSize: 1 }, 1);
    const flows = flowsOnDistinctQueues(8, ['heavy', 'light']);
    const start = (flow: string) => qs.startRequest(ONE, flows.get(flow)!, flow, flow, `fs-${flow}`)!;
    const order: string[] = [];
    const all: [string, FairRequest][] = [];
    for (let i = 0; i < 5; i++) all.push(['heavy', start('heavy')]);
    all.push(['light', start('light')]);
    // Serve one at a time, 10 ms each, and note who ran.
    for (let round = 0; round < 6; round++) {
      const running = all.find(([, r]) => r.decision === 'execute' && !r.finished)!;
      order.push(running[0]);
      clock.advance(10);
      qs.finish(running[1]);
    }
    assert.deepEqual(order, ['heavy', 'light', 'heavy', 'heavy', 'heavy', 'heavy']);
  });

  test('two backlogged flows alternate', () => {
    const { qs, clock } = level({ desiredNumQueues: 8, queueLengthLimit: 50, handSize: 1 }, 1);
    const flows = flowsOnDistinctQueues(8, ['blocker', 'a', 'b']);
    const blocker = qs.startRequest(ONE, flows.get('blocker')!, 'blocker', 'blocker', 'x')!;
    const reqs: [string, FairRequest][] = [];
    for (let i = 0; i < 4; i++) reqs.push(['a', qs.startRequest(ONE, flows.get('a')!, 'a', 'a', 'x')!]);
    for (let i = 0; i < 4; i++) reqs.push(['b', qs.startRequest(ONE, flows.get('b')!, 'b', 'b', 'x')!]);
    clock.advance(5);
    qs.finish(blocker);
    const order: string[] = [];
    for (let i = 0; i < 8; i++) {
      const running = reqs.find(([, r]) => r.decision === 'execute' && !r.finished)!;
      order.push(running[0]);
      clock.advance(5);
      qs.finish(running[1]);
    }
    for (let i = 1; i < order.length; i++) assert.notEqual(order[i], order[i - 1], `served twice in a row: ${order.join(' ')}`);
  });

  test('wider requests cost more: a 4-seat flow gets about a quarter of the dispatches of a 1-seat flow', () => {
    const { qs, clock } = level({ desiredNumQueues: 8, queueLengthLimit: 100, handSize: 1 }, 4);
    const flows = flowsOnDistinctQueues(8, ['wide', 'narrow']);
    const wideWork = { initialSeats: 4, finalSeats: 0, additionalLatencyMs: 0 };
    const reqs: [string, FairRequest][] = [];
    for (let i = 0; i < 30; i++) reqs.push(['wide', qs.startRequest(wideWork, flows.get('wide')!, 'wide', 'wide', 'x')!]);
    for (let i = 0; i < 30; i++) reqs.push(['narrow', qs.startRequest(ONE, flows.get('narrow')!, 'narrow', 'narrow', 'x')!]);
    const served = { wide: 0, narrow: 0 };
    // While both flows have a backlog: serve what runs, 3 ms each.
    while (reqs.some(([flow, r]) => flow === 'narrow' && !r.finished)) {
      const running = reqs.filter(([, r]) => r.decision === 'execute' && !r.finished);
      clock.advance(3);
      for (const [flow, r] of running) {
        served[flow as 'wide' | 'narrow']++;
        qs.finish(r);
      }
    }
    // Equal seat-time: four narrow requests for each wide one.
    assert.ok(served.narrow >= 3.5 * served.wide && served.narrow <= 4.5 * served.wide, `narrow ${served.narrow}, wide ${served.wide}`);
  });
});

describe('limits and rejections', () => {
  test('seats: requests run while seats are free, the rest wait; a finish lets the next one in', () => {
    const { qs, recorder } = level({ desiredNumQueues: 4, queueLengthLimit: 10, handSize: 2 }, 2);
    const hash = flowHashOf(42n);
    const a = qs.startRequest(ONE, hash, 'f', 'f', 's')!;
    const b = qs.startRequest(ONE, hash, 'f', 'f', 's')!;
    const c = qs.startRequest(ONE, hash, 'f', 'f', 's')!;
    assert.deepEqual([a.decision, b.decision, c.decision], ['execute', 'execute', undefined]);
    assert.equal(recorder.seats, 2);
    assert.equal(recorder.inQueueRequests, 1);
    assert.equal(recorder.demand, 3);
    qs.finish(a);
    assert.equal(c.decision, 'execute');
    assert.equal(recorder.executingRequests, 2);
  });

  test('queue full: all seats taken and the chosen queue at its length limit', () => {
    const { qs, recorder } = level({ desiredNumQueues: 1, queueLengthLimit: 2, handSize: 1 }, 1);
    const hash = flowHashOf(1n);
    const started = [0, 1, 2].map(() => qs.startRequest(ONE, hash, 'f', 'f', 's'));
    assert.ok(started.every((r) => r !== undefined));
    assert.equal(qs.startRequest(ONE, hash, 'f', 'f', 's'), undefined);
    assert.deepEqual(recorder.rejections, ['s:queue-full']);
    assert.equal(qs.dump().rejected, 1);
  });

  test('a level without queues (Reject) refuses what it cannot seat at once', () => {
    const { qs, recorder } = level({ desiredNumQueues: 0, queueLengthLimit: 0, handSize: 0 }, 2);
    const hash = flowHashOf(0n);
    assert.ok(qs.startRequest(ONE, hash, '', '', 's'));
    assert.ok(qs.startRequest(ONE, hash, '', '', 's'));
    assert.equal(qs.startRequest(ONE, hash, '', '', 's'), undefined);
    assert.deepEqual(recorder.rejections, ['s:concurrency-limit']);
    // A request wider than the whole limit runs when nothing else does.
    const idle = level({ desiredNumQueues: 0, queueLengthLimit: 0, handSize: 0 }, 2);
    assert.ok(idle.qs.startRequest({ initialSeats: 5, finalSeats: 0, additionalLatencyMs: 0 }, hash, '', '', 's'));
  });

  test('the exempt level (negative queues) seats everything, but counts it', () => {
    const { qs, recorder } = level({ desiredNumQueues: -1, queueLengthLimit: 0, handSize: 0 }, 0);
    for (let i = 0; i < 50; i++) assert.equal(qs.startRequest(ONE, flowHashOf(0n), '', '', 'exempt')?.decision, 'execute');
    assert.equal(recorder.executingRequests, 50);
    assert.equal(qs.dump().queuelessExecuting.length, 50);
  });

  test('a waiting request that gives up leaves its queue and counts as rejected for time-out', () => {
    const { qs, recorder } = level({ desiredNumQueues: 2, queueLengthLimit: 5, handSize: 1 }, 1);
    const hash = flowHashOf(9n);
    const running = qs.startRequest(ONE, hash, 'f', 'f', 's')!;
    const waiting = qs.startRequest(ONE, hash, 'f', 'f', 's')!;
    assert.equal(qs.cancelWaiting(waiting), true);
    assert.equal(waiting.decision, 'cancel');
    assert.deepEqual(recorder.rejections, ['s:time-out']);
    assert.equal(recorder.inQueueRequests, 0);
    const dump = qs.dump();
    assert.deepEqual([dump.rejected, dump.cancelled, dump.timedOut, dump.waiting], [1, 1, 0, 0]);
    // A request dispatched before it gave up runs.
    const next = qs.startRequest(ONE, hash, 'f', 'f', 's')!;
    qs.finish(running);
    assert.equal(qs.cancelWaiting(next), false);
    assert.equal(next.decision, 'execute');
  });
});

describe('seats after a request', () => {
  test('final seats stay taken for the additional latency, then go', () => {
    const { qs, clock, recorder } = level({ desiredNumQueues: 0, queueLengthLimit: 0, handSize: 0 }, 3);
    const write = qs.startRequest({ initialSeats: 1, finalSeats: 3, additionalLatencyMs: 50 }, flowHashOf(0n), '', '', 's')!;
    assert.equal(recorder.seats, 3);
    qs.finish(write);
    // Executing no more, but its seats are still held: nothing else fits.
    assert.equal(recorder.executingRequests, 0);
    assert.equal(qs.startRequest(ONE, flowHashOf(0n), '', '', 's'), undefined);
    clock.advance(49);
    assert.equal(recorder.seats, 3);
    clock.advance(1);
    assert.equal(recorder.seats, 0);
    assert.ok(qs.startRequest(ONE, flowHashOf(0n), '', '', 's'));
  });

  test('final seats above the level\'s limit are cut to it, the latency stretched to keep the work', () => {
    const { qs } = level({ desiredNumQueues: 1, queueLengthLimit: 5, handSize: 1 }, 2);
    const blocker = qs.startRequest({ initialSeats: 2, finalSeats: 0, additionalLatencyMs: 0 }, flowHashOf(0n), 'f', 'f', 's')!;
    const write = qs.startRequest({ initialSeats: 1, finalSeats: 8, additionalLatencyMs: 10 }, flowHashOf(0n), 'f', 'f', 's')!;
    qs.finish(blocker);
    // 8 seats × 10 ms = 80 seat-ms of final work, on 2 seats: 40 ms.
    assert.equal(write.decision, 'execute');
    assert.equal(write.finalSeats, 2);
    assert.equal(write.additionalLatencyMs, 40);
  });

  test('a wider limit dispatches what waits; more queues are added at once', () => {
    const { qs } = level({ desiredNumQueues: 2, queueLengthLimit: 5, handSize: 1 }, 0);
    const r = qs.startRequest(ONE, flowHashOf(3n), 'f', 'f', 's')!;
    assert.equal(r.decision, undefined);
    qs.setConfiguration({ name: 'pl', desiredNumQueues: 6, queueLengthLimit: 5, handSize: 2 }, { concurrencyLimit: 1, concurrencyDenominator: 1 });
    assert.equal(r.decision, 'execute');
    assert.equal(qs.dump().queues.length, 6);
  });
});
