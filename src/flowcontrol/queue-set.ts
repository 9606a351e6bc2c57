/**
 * One priority level's queues and seats: upstream's fair queuing for server requests (the queueset
 * package), on one thread. Requests hold seats while they run (their initial seats, then their final
 * seats for their additional latency); past the level's concurrency limit they wait in queues, a
 * flow's requests in the least loaded queue of its shuffle-sharded hand; the next request served is
 * the head of the queue whose virtual finish time is earliest, so that each busy queue progresses at
 * the same rate whatever the number or size of requests behind it.
 *
 * A level without queues (limitResponse Reject) refuses what it cannot seat at once; the exempt
 * level (desiredNumQueues < 0) seats everything.
 */
import type { RequestInfo } from '../api/request-info.ts';
import { Fifo } from './fifo.ts';
import { seatsTimesMs, msPerSeat, formatSeatSeconds } from './seat-seconds.ts';
import { Dealer, type FlowHash } from './shuffle-sharding.ts';

export interface QueuingConfig {
  readonly name: string;
  /** Queues wanted; 0: reject what cannot run now; negative: exempt, never limited. */
  readonly desiredNumQueues: number;
  readonly queueLengthLimit: number;
  readonly handSize: number;
}

export interface DispatchingConfig {
  /** Seats the level may have in use at once (its current concurrency limit). */
  readonly concurrencyLimit: number;
  /** What utilization is measured against (the limit, or a tenth of the server's when the limit is 0). */
  readonly concurrencyDenominator: number;
}

/** What a request costs: seats while it runs, and seats for a while after it. */
export interface SeatWork {
  readonly initialSeats: number;
  readonly finalSeats: number;
  readonly additionalLatencyMs: number;
}

export type RejectReason = 'queue-full' | 'concurrency-limit' | 'time-out';

/** What the level reports as it goes (the apiserver_flowcontrol_* gauges and counters, the seat demand). */
export interface QueueSetObserver {
  inQueue(fsName: string, requests: number, seats: number): void;
  executing(fsName: string, requests: number): void;
  seatsInUse(fsName: string, seats: number): void;
  rejected(fsName: string, reason: RejectReason): void;
  queueLengthAfterEnqueue(fsName: string, length: number): void;
  /** Seats in use plus seats waiting, at each change (borrowing's input). */
  seatDemand(seats: number): void;
}

export interface Clock {
  /** Monotonic milliseconds. */
  now(): number;
  /** Wall clock milliseconds since the epoch (for the debug dump). */
  wallNow(): number;
  /** Runs `fn` after `ms` milliseconds. */
  after(ms: number, fn: () => void): void;
}

export const REAL_CLOCK: Clock = {
  now: () => performance.now(),
  wallNow: () => performance.timeOrigin + performance.now(),
  after: (ms, fn) => void setTimeout(fn, ms).unref(),
};

/** Who a request is, for the debug dump. */
export interface RequestDescription {
  readonly userName: string;
  readonly info: RequestInfo;
}

/** Upstream's guess at how long a request runs, for the virtual clock before it knows better. */
const ESTIMATED_SERVICE_MS = 3;

class Queue {
  index: number;
  readonly waiting = new Fifo<FairRequest>();
  /** Virtual time (work units) at which this queue's next request is due to start. */
  nextDispatchR = 0;
  readonly executing = new Set<FairRequest>();
  seatsInUse = 0;

  constructor(index: number) {
    this.index = index;
  }

  get idle(): boolean {
    return this.waiting.length === 0 && this.executing.size === 0;
  }
}

type Decision = 'execute' | 'cancel';

/** One request's passage through a level: queued (maybe), dispatched, finished. */
export class FairRequest {
  readonly fsName: string;
  readonly flowDistinguisher: string;
  readonly description: RequestDescription | undefined;
  initialSeats: number;
  finalSeats: number;
  additionalLatencyMs: number;
  readonly maxSeats: number;
  /** Work units: initial work plus final work. */
  readonly totalWork: number;
  readonly finalWork: number;
  readonly arrivalWall: number;
  readonly arrivalTime: number;
  arrivalR: number;
  startWall = 0;
  startTime = 0;
  queue: Queue | undefined;
  /** Takes the request out of its queue while it waits. */
  removeFromQueue: (() => FairRequest | undefined) | undefined;
  decision: Decision | undefined;
  #listeners: ((d: Decision) => void)[] = [];
  finished = false;

  constructor(init: { fsName: string; flowDistinguisher: string; description: RequestDescription | undefined; work: SeatWork; now: number; wall: number; r: number }) {
    this.fsName = init.fsName;
    this.flowDistinguisher = init.flowDistinguisher;
    this.description = init.description;
    this.initialSeats = init.work.initialSeats;
    this.finalSeats = init.work.finalSeats;
    this.additionalLatencyMs = init.work.additionalLatencyMs;
    this.maxSeats = Math.max(this.initialSeats, this.finalSeats);
    this.finalWork = seatsTimesMs(this.finalSeats, this.additionalLatencyMs);
    this.totalWork = seatsTimesMs(this.initialSeats, ESTIMATED_SERVICE_MS) + this.finalWork;
    this.arrivalTime = init.now;
    this.arrivalWall = init.wall;
    this.arrivalR = init.r;
  }

  /** Settles the request's decision once; later decisions are ignored. */
  decide(decision: Decision): boolean {
    if (this.decision) return false;
    this.decision = decision;
    for (const l of this.#listeners.splice(0)) l(decision);
    return true;
  }

  /** Resolves with the decision (at once when there already is one). */
  decided(): Promise<Decision> {
    if (this.decision) return Promise.resolve(this.decision);
    return new Promise((resolve) => this.#listeners.push(resolve));
  }
}

export interface QueueDump {
  readonly waiting: readonly FairRequest[];
  readonly executing: readonly FairRequest[];
  readonly seatsInUse: number;
  readonly nextDispatchR: string;
  readonly initialSeatsSum: number;
  readonly maxSeatsSum: number;
  readonly totalWorkSum: string;
}

export interface QueueSetDump {
  readonly queues: readonly QueueDump[];
  /** Requests running in a level without queues (reject and exempt levels). */
  readonly queuelessExecuting: readonly FairRequest[];
  readonly waiting: number;
  readonly executing: number;
  readonly seatsInUse: number;
  readonly seatsWaiting: number;
  readonly dispatched: number;
  readonly rejected: number;
  readonly timedOut: number;
  readonly cancelled: number;
}

/** Why a queuing configuration cannot be used, or undefined. */
export function queuingProblem(config: QueuingConfig): string | undefined {
  if (config.desiredNumQueues <= 0) return undefined;
  try {
    new Dealer(config.desiredNumQueues, config.handSize);
    return undefined;
  } catch (err) {
    return `the QueueSetConfig implies an invalid shuffle sharding config (DesiredNumQueues is deckSize): ${(err as Error).message}`;
  }
}

export class QueueSet {
  readonly #clock: Clock;
  readonly #observer: QueueSetObserver;
  #config: QueuingConfig;
  #dispatching: DispatchingConfig = { concurrencyLimit: 0, concurrencyDenominator: 1 };
  #dealer: Dealer | undefined;
  #queues: Queue[] = [];
  /** The virtual clock: work units each busy queue has been entitled to since start. */
  #currentR = 0;
  #lastRealTime: number;
  #robinIndex = -1;
  #enqueues = 0;
  /** Queues with a request waiting or executing (the virtual clock's divisor). */
  #activeQueues = 0;
  /** Where the last request was queued (when it is the only one waiting, dispatch needs no scan). */
  #lastEnqueued: Queue | undefined;
  #totRequestsWaiting = 0;
  #totRequestsExecuting = 0;
  #totSeatsInUse = 0;
  #totSeatsWaiting = 0;
  /** Requests running in a level without queues. */
  readonly #executingWithoutQueue = new Set<FairRequest>();
  #dispatched = 0;
  #rejected = 0;
  #cancelled = 0;
  /** Hands already dealt, by flow (a flow's hand never changes while the configuration stays). */
  #hands = new Map<string, number[]>();

  constructor(config: QueuingConfig, clock: Clock, observer: QueueSetObserver) {
    const problem = queuingProblem(config);
    if (problem) throw new Error(problem);
    this.#clock = clock;
    this.#observer = observer;
    this.#config = config;
    this.#lastRealTime = clock.now();
    this.setConfiguration(config, this.#dispatching);
  }

  get name(): string {
    return this.#config.name;
  }

  get concurrencyLimit(): number {
    return this.#dispatching.concurrencyLimit;
  }

  /**
   * A new queuing (validated by queuingProblem) or dispatching configuration. More queues are added
   * at once; extra queues go when they empty. A level switched to no queues keeps its old length
   * limit and hand size, as upstream.
   */
  setConfiguration(config: QueuingConfig, dispatching: DispatchingConfig): void {
    this.#syncTime();
    let next = config;
    if (config.desiredNumQueues > 0) {
      for (let i = this.#queues.length; i < config.desiredNumQueues; i++) this.#queues.push(new Queue(i));
    } else {
      next = { ...config, queueLengthLimit: this.#config.queueLengthLimit, handSize: this.#config.handSize };
    }
    const dealerChanged = next.desiredNumQueues !== this.#config.desiredNumQueues || next.handSize !== this.#config.handSize || !this.#dealer;
    this.#config = next;
    this.#dispatching = dispatching;
    if (dealerChanged) {
      this.#dealer = next.desiredNumQueues > 0 ? new Dealer(next.desiredNumQueues, next.handSize) : undefined;
      this.#hands = new Map();
    }
    this.#dispatchAsMuchAsPossible();
  }

  /**
   * A request arrives. Returns undefined when it is rejected at once (queue full, or no seat in a
   * level without queues); otherwise the request, executing already or waiting for its decision.
   * `flowKey` names the flow (its hand is cached under it).
   */
  startRequest(work: SeatWork, hash: FlowHash, flowKey: string, flowDistinguisher: string, fsName: string, description?: RequestDescription): FairRequest | undefined {
    this.#syncTime();
    const now = this.#clock.now();
    const req = new FairRequest({ fsName, flowDistinguisher, description, work, now, wall: this.#clock.wallNow(), r: this.#currentR });
    if (this.#config.desiredNumQueues < 1) {
      if (!this.#canAccommodate(req.maxSeats)) {
        this.#rejected++;
        this.#observer.rejected(fsName, 'concurrency-limit');
        return undefined;
      }
      req.decide('execute');
      this.#startExecuting(req, now);
      this.#executingWithoutQueue.add(req);
      return req;
    }
    const queue = this.#queues[this.#shuffleShard(hash, flowKey)]!;
    req.queue = queue;
    // Full: every seat is taken and this queue is at its length limit.
    if (this.#totSeatsInUse >= this.#dispatching.concurrencyLimit && queue.waiting.length >= this.#config.queueLengthLimit) {
      this.#boundNextDispatch(queue);
      this.#rejected++;
      this.#observer.rejected(fsName, 'queue-full');
      return undefined;
    }
    this.#enqueue(req);
    this.#boundNextDispatch(queue);
    this.#observer.queueLengthAfterEnqueue(fsName, queue.waiting.length);
    this.#dispatchAsMuchAsPossible();
    return req;
  }

  /**
   * A waiting request gives up (its wait limit passed, or its client left). Returns false when it
   * had been dispatched meanwhile: it is to run.
   */
  cancelWaiting(req: FairRequest): boolean {
    this.#syncTime();
    if (!req.decide('cancel')) return req.decision === 'cancel';
    const queue = req.queue;
    if (req.removeFromQueue?.()) {
      req.removeFromQueue = undefined;
      this.#totRequestsWaiting--;
      this.#totSeatsWaiting -= req.maxSeats;
      this.#rejected++;
      this.#cancelled++;
      this.#observer.rejected(req.fsName, 'time-out');
      this.#observer.inQueue(req.fsName, -1, -req.maxSeats);
      this.#observer.seatDemand(this.#totSeatsInUse + this.#totSeatsWaiting);
      if (queue) {
        if (queue.idle) this.#activeQueues--;
        this.#boundNextDispatch(queue);
      }
    }
    return true;
  }

  /** A dispatched request is done: its seats go (its final seats after its additional latency). */
  finish(req: FairRequest): void {
    if (req.finished || req.decision !== 'execute') return;
    req.finished = true;
    this.#syncTime();
    const now = this.#clock.now();
    this.#totRequestsExecuting--;
    this.#observer.executing(req.fsName, -1);
    const serviceMs = now - req.startTime;
    const queue = req.queue;
    if (queue) {
      queue.executing.delete(req);
      if (queue.idle) this.#activeQueues--;
      // The queue was charged the estimated service time at dispatch; correct it by the actual one.
      queue.nextDispatchR -= seatsTimesMs(req.initialSeats, ESTIMATED_SERVICE_MS - serviceMs);
      this.#boundNextDispatch(queue);
    } else {
      this.#executingWithoutQueue.delete(req);
    }
    if (req.additionalLatencyMs <= 0) {
      this.#releaseSeats(req);
      this.#dispatchAsMuchAsPossible();
      return;
    }
    // The final seats stay taken for the additional latency (the watch notifications a write causes).
    this.#dispatchAsMuchAsPossible();
    this.#clock.after(req.additionalLatencyMs, () => {
      this.#syncTime();
      this.#releaseSeats(req);
      this.#dispatchAsMuchAsPossible();
    });
  }

  isIdle(): boolean {
    return this.#totRequestsWaiting === 0 && this.#totRequestsExecuting === 0;
  }

  get seatsInUse(): number {
    return this.#totSeatsInUse;
  }

  get requestsWaiting(): number {
    return this.#totRequestsWaiting;
  }

  get requestsExecuting(): number {
    return this.#totRequestsExecuting;
  }

  dump(): QueueSetDump {
    return {
      queues: this.#queues.map((q) => ({
        waiting: [...q.waiting],
        executing: [...q.executing],
        seatsInUse: q.seatsInUse,
        nextDispatchR: formatSeatSeconds(q.nextDispatchR),
        initialSeatsSum: q.waiting.initialSeatsSum,
        maxSeatsSum: q.waiting.maxSeatsSum,
        totalWorkSum: formatSeatSeconds(q.waiting.totalWorkSum),
      })),
      queuelessExecuting: [...this.#executingWithoutQueue],
      waiting: this.#totRequestsWaiting,
      executing: this.#totRequestsExecuting,
      seatsInUse: this.#totSeatsInUse,
      seatsWaiting: this.#totSeatsWaiting,
      dispatched: this.#dispatched,
      rejected: this.#rejected,
      // Upstream counts a request that gave up waiting as cancelled, whether its wait limit passed or its client left.
      timedOut: 0,
      cancelled: this.#cancelled,
    };
  }

  /** The request ran (counted as dispatched, as upstream counts it when execution begins). */
  noteDispatched(): void {
    this.#dispatched++;
  }

  #canAccommodate(seats: number): boolean {
    if (this.#config.desiredNumQueues < 0) return true;
    const limit = this.#dispatching.concurrencyLimit;
    // A request wider than the whole limit runs alone rather than never.
    if (seats > limit) return this.#totRequestsExecuting === 0;
    return this.#totSeatsInUse + seats <= limit;
  }

  /**
   * The queue for a request of this flow: of the hand's queues, the one with the least work waiting;
   * the scan starts at a rotating offset so that ties do not always favour the same queue.
   */
  #shuffleShard(hash: FlowHash, flowKey: string): number {
    let hand = this.#hands.get(flowKey);
    if (!hand) {
      hand = this.#dealer!.deal(hash);
      // Bounded: a flood of distinct flows (users, namespaces) costs a deal each rather than memory.
      if (this.#hands.size >= 10_000) this.#hands.clear();
      this.#hands.set(flowKey, hand);
    }
    const size = hand.length;
    const offset = this.#enqueues % size;
    this.#enqueues++;
    let best = -1;
    let least = Infinity;
    for (let i = 0; i < size; i++) {
      const index = hand[(offset + i) % size]!;
      const work = this.#queues[index]!.waiting.totalWorkSum;
      if (work < least) {
        least = work;
        best = index;
      }
    }
    return best;
  }

  #enqueue(req: FairRequest): void {
    const queue = req.queue!;
    this.#lastEnqueued = queue;
    // An idle queue starts at the current virtual time, not where it stopped.
    if (queue.idle) {
      queue.nextDispatchR = this.#currentR;
      this.#activeQueues++;
    }
    req.removeFromQueue = queue.waiting.enqueue(req);
    this.#totRequestsWaiting++;
    this.#totSeatsWaiting += req.maxSeats;
    this.#observer.inQueue(req.fsName, 1, req.maxSeats);
    this.#observer.seatDemand(this.#totSeatsInUse + this.#totSeatsWaiting);
  }

  #dispatchAsMuchAsPossible(): void {
    while (this.#totRequestsWaiting !== 0 && this.#totSeatsInUse < this.#dispatching.concurrencyLimit && this.#dispatchOne()) {
      // each round dispatches one request
    }
  }

  /** Serves the head of the queue whose virtual finish is earliest, if it fits; false otherwise. */
  #dispatchOne(): boolean {
    const n = this.#queues.length;
    let minFinish = Infinity;
    let minQueue: Queue | undefined;
    if (this.#totRequestsWaiting === 1 && this.#lastEnqueued?.waiting.length === 1) {
      // One request waits: its queue is the only candidate, as a scan would find (and end on).
      minQueue = this.#lastEnqueued;
    } else {
      for (let k = 0; k < n; k++) {
        this.#robinIndex = (this.#robinIndex + 1) % n;
        const queue = this.#queues[this.#robinIndex]!;
        const oldest = queue.waiting.peek();
        if (!oldest) continue;
        const finish = queue.nextDispatchR + oldest.totalWork;
        if (finish < minFinish) {
          minFinish = finish;
          minQueue = queue;
        }
      }
    }
    const req = minQueue?.waiting.peek();
    if (!minQueue || !req) return false;
    if (!this.#canAccommodate(req.maxSeats)) return false;
    minQueue.waiting.dequeue();
    req.removeFromQueue = undefined;
    const limit = this.#dispatching.concurrencyLimit;
    // Final seats beyond the level's limit are cut to it, the latency stretched to keep the work.
    if (req.finalSeats > limit) {
      req.additionalLatencyMs = msPerSeat(req.finalWork, limit);
      req.finalSeats = limit;
    }
    // The next round starts after this queue: the others win ties.
    this.#robinIndex = minQueue.index;
    this.#totRequestsWaiting--;
    this.#totSeatsWaiting -= req.maxSeats;
    this.#observer.inQueue(req.fsName, -1, -req.maxSeats);
    if (!req.decide('execute')) {
      // It gave up at the same moment: nothing runs.
      this.#observer.seatDemand(this.#totSeatsInUse + this.#totSeatsWaiting);
      this.#boundNextDispatch(minQueue);
      return true;
    }
    this.#startExecuting(req, this.#clock.now());
    minQueue.executing.add(req);
    minQueue.seatsInUse += req.maxSeats;
    minQueue.nextDispatchR += req.totalWork;
    this.#boundNextDispatch(minQueue);
    return true;
  }

  #startExecuting(req: FairRequest, now: number): void {
    req.startTime = now;
    req.startWall = this.#clock.wallNow();
    this.#totRequestsExecuting++;
    this.#totSeatsInUse += req.maxSeats;
    this.#observer.executing(req.fsName, 1);
    this.#observer.seatsInUse(req.fsName, req.maxSeats);
    this.#observer.seatDemand(this.#totSeatsInUse + this.#totSeatsWaiting);
  }

  #releaseSeats(req: FairRequest): void {
    this.#totSeatsInUse -= req.maxSeats;
    this.#observer.seatsInUse(req.fsName, -req.maxSeats);
    this.#observer.seatDemand(this.#totSeatsInUse + this.#totSeatsWaiting);
    const queue = req.queue;
    if (!queue) return;
    queue.seatsInUse -= req.maxSeats;
    // A queue beyond the wanted number goes once it is empty.
    if (this.#queues.length > this.#config.desiredNumQueues && queue.idle && this.#queues[queue.index] === queue) {
      this.#queues.splice(queue.index, 1);
      for (let i = queue.index; i < this.#queues.length; i++) this.#queues[i]!.index = i;
      if (this.#robinIndex >= queue.index) this.#robinIndex--;
    }
  }

  /** Anti-windup: a queue's virtual start never precedes its oldest waiting request's arrival. */
  #boundNextDispatch(queue: Queue): void {
    const oldest = queue.waiting.peek();
    if (oldest && queue.nextDispatchR < oldest.arrivalR) queue.nextDispatchR = oldest.arrivalR;
  }

  /**
   * Advances the virtual clock for the time since the last change: each busy queue is entitled to
   * an equal share of the seats the level can use (its limit, or less when less is asked for).
   */
  #syncTime(): void {
    const now = this.#clock.now();
    const elapsedMs = now - this.#lastRealTime;
    this.#lastRealTime = now;
    if (elapsedMs <= 0 || this.#activeQueues === 0) return;
    // Seats asked for: those in use and those waiting, over every queue.
    const seatsRequested = this.#totSeatsInUse + this.#totSeatsWaiting;
    this.#currentR += seatsTimesMs(Math.min(seatsRequested, this.#dispatching.concurrencyLimit) / this.#activeQueues, elapsedMs);
  }

}
