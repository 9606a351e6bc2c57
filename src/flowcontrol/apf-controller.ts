/**
 * The dispatcher's state, digested from the FlowSchema and PriorityLevelConfiguration objects as
 * upstream's config controller digests them: every change rebuilds the classifier and the levels'
 * limits at once (never per request), and every 10 s the levels' current limits are re-derived from
 * their recent seat demand, so that busy levels borrow the seats idle ones may lend.
 */
import type { Logger } from 'pino';
import type { RequestInfo } from '../api/request-info.ts';
import type { UserInfo } from '../auth/user.ts';
import type { FlowcontrolMetrics } from '../metrics/flowcontrol-metrics.ts';
import { Classifier, compareSchemas, distinguisherOf } from './classifier.ts';
import { computeConcurrencyAllocation, type AllocationItem } from './concurrency-allocation.ts';
import { levelCommons, type FlowSchemaConfig, type PriorityLevelConfig } from './config-objects.ts';
import {
  CATCH_ALL,
  EXEMPT,
  MANDATORY_CATCH_ALL_LEVEL,
  MANDATORY_CATCH_ALL_SCHEMA,
  MANDATORY_EXEMPT_LEVEL,
  MANDATORY_EXEMPT_SCHEMA,
} from './mandatory-config.ts';
import { PriorityLevelState, queuingConfigOf } from './priority-level.ts';
import { QueueSet, REAL_CLOCK, type Clock, type QueuingConfig } from './queue-set.ts';
import { flowHash, type FlowHash } from './shuffle-sharding.ts';
import { priorityLevelMaxSeats } from './work-estimator.ts';

/** How often the levels' current limits are re-derived from their seat demand. */
export const BORROWING_ADJUSTMENT_PERIOD_MS = 10_000;

export interface ApfControllerOptions {
  /** --max-requests-inflight plus --max-mutating-requests-inflight: the seats all levels share. */
  readonly serverConcurrencyLimit: number;
  readonly logger: Logger;
  readonly metrics?: FlowcontrolMetrics;
  readonly clock?: Clock;
}

/** Where a request goes: its schema, its level, and its flow in that level. */
export interface Classification {
  readonly schema: FlowSchemaConfig;
  readonly level: PriorityLevelState;
  readonly distinguisher: string;
  /** The flow's shuffle-sharding hash and its name (both unused by levels without several queues). */
  readonly hash: FlowHash;
  readonly flowKey: string;
}

const NO_HASH: FlowHash = [0, 0, 0, 0];
/** Flows' hashes are kept (SHA-256 per request would cost more than the rest of classification). */
const MAX_CACHED_HASHES = 10_000;

export class ApfController {
  readonly #serverConcurrencyLimit: number;
  readonly #logger: Logger;
  readonly #metrics: FlowcontrolMetrics | undefined;
  readonly #clock: Clock;
  #states = new Map<string, PriorityLevelState>();
  #classifier: Classifier;
  /** The nominal limits' sum (a little over the server's limit: each is rounded up). */
  #nominalCLSum = 0;
  /** The objects last given, digested again when an undesired level drains. */
  #levels: readonly PriorityLevelConfig[] = [];
  #schemas: readonly FlowSchemaConfig[] = [];
  #hashes = new Map<string, FlowHash>();
  #timer: NodeJS.Timeout | undefined;
  #reapScheduled = false;

  constructor(options: ApfControllerOptions) {
    this.#serverConcurrencyLimit = options.serverConcurrencyLimit;
    this.#logger = options.logger;
    this.#metrics = options.metrics;
    this.#clock = options.clock ?? REAL_CLOCK;
    this.#classifier = new Classifier([]);
    // The mandatory configuration is in force from the start.
    this.setConfiguration([], []);
  }

  get serverConcurrencyLimit(): number {
    return this.#serverConcurrencyLimit;
  }

  /** Re-derives the current limits every adjustment period until stop(). */
  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => this.updateBorrowing(), BORROWING_ADJUSTMENT_PERIOD_MS);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** The levels in force (and draining), by name. */
  get levels(): ReadonlyMap<string, PriorityLevelState> {
    return this.#states;
  }

  /** The schemas in matching order, mandatory ones imagined when missing. */
  get schemas(): readonly FlowSchemaConfig[] {
    return this.#classifier.schemas.map((s) => s.schema);
  }

  /**
   * Takes the whole configuration (upstream digests it as a whole: references between the objects
   * make that the simple way). Broken levels and the schemas that point at a missing or broken
   * level are ignored; missing mandatory objects are imagined; a level whose object went away
   * drains its queued and running requests before it goes.
   */
  setConfiguration(levels: readonly PriorityLevelConfig[], schemas: readonly FlowSchemaConfig[]): void {
    this.#levels = levels;
    this.#schemas = schemas;
    const next = new Map<string, PriorityLevelState>();
    let shareSum = 0;
    let haveExempt = false;
    let haveCatchAll = false;
    const take = (state: PriorityLevelState) => {
      next.set(state.name, state);
      shareSum += levelCommons(state.config).shares;
      haveExempt ||= state.name === EXEMPT;
      haveCatchAll ||= state.name === CATCH_ALL;
    };

    for (const pl of levels) {
      const queuing = queuingConfigOf(pl);
      if ('problem' in queuing) {
        this.#logger.warn({ priorityLevel: pl.name, problem: queuing.problem }, 'ignoring a PriorityLevelConfiguration whose spec is broken');
        continue;
      }
      let state = this.#states.get(pl.name);
      if (state) {
        state.config = pl;
        state.queuing = queuing;
        // Wanted again while it drained.
        state.quiescing = false;
      } else {
        state = new PriorityLevelState(pl, queuing, this.#clock, this.#metrics);
      }
      take(state);
    }

    this.#classifier = new Classifier(this.#orderSchemas(schemas, next));

    for (const [name, state] of this.#states) {
      if (next.has(name)) continue;
      const mandatory = (name === EXEMPT && !haveExempt) || (name === CATCH_ALL && !haveCatchAll);
      if (!mandatory) {
        if (!state.queues || state.queues.isIdle()) continue;
        state.quiescing = true;
      }
      // Lingering levels keep their share so that their queues drain.
      take(state);
    }
    if (!haveExempt) take(this.#imagine(MANDATORY_EXEMPT_LEVEL));
    if (!haveCatchAll) take(this.#imagine(MANDATORY_CATCH_ALL_LEVEL));

    this.#setNominalLimits(next, shareSum);
    this.#states = next;
    this.#adjustLimits(false);
  }

  /** The schema and flow of a request (the catch-all when nothing matches), and its level. */
  classify(user: UserInfo, info: RequestInfo): Classification {
    const schema = this.#classifier.classify(user, info);
    const level = this.#states.get(schema.priorityLevelName)!;
    const queuing = level.queuing;
    // Only levels with several queues tell flows apart.
    if (queuing.desiredNumQueues <= 1) return { schema, level, distinguisher: '', hash: NO_HASH, flowKey: '' };
    const distinguisher = distinguisherOf(schema, user, info);
    const flowKey = `${schema.name}\u0000${distinguisher}`;
    let hash = this.#hashes.get(flowKey);
    if (!hash) {
      hash = flowHash(schema.name, distinguisher);
      if (this.#hashes.size >= MAX_CACHED_HASHES) this.#hashes.clear();
      this.#hashes.set(flowKey, hash);
    }
    return { schema, level, distinguisher, hash, flowKey };
  }

  /** A request of this level ended: a draining level that is now idle goes at the next digest. */
  requestEnded(level: PriorityLevelState): void {
    if (!level.quiescing || !level.queues?.isIdle() || this.#reapScheduled) return;
    this.#reapScheduled = true;
    setImmediate(() => {
      this.#reapScheduled = false;
      this.setConfiguration(this.#levels, this.#schemas);
    });
  }

  /** One borrowing adjustment (every BORROWING_ADJUSTMENT_PERIOD_MS; tests call it directly). */
  updateBorrowing(): void {
    this.#adjustLimits(true);
  }

  /** Valid schemas in matching order, with the mandatory ones imagined where missing. */
  #orderSchemas(schemas: readonly FlowSchemaConfig[], levels: ReadonlyMap<string, PriorityLevelState>): FlowSchemaConfig[] {
    const seen = new Set<string>();
    const usable: FlowSchemaConfig[] = [];
    for (const fs of schemas) {
      if (seen.has(fs.name)) continue;
      seen.add(fs.name);
      // A schema whose level is missing or broken is not used (its Dangling condition says so).
      if (!levels.has(fs.priorityLevelName)) continue;
      usable.push(fs);
    }
    usable.sort(compareSchemas);
    if (!usable.some((fs) => fs.name === EXEMPT)) usable.unshift(MANDATORY_EXEMPT_SCHEMA);
    if (!usable.some((fs) => fs.name === CATCH_ALL)) usable.push(MANDATORY_CATCH_ALL_SCHEMA);
    return usable;
  }

  /** A mandatory level nothing stands for yet (a previous one, real or imagined, is retained instead). */
  #imagine(config: PriorityLevelConfig): PriorityLevelState {
    return new PriorityLevelState(config, queuingConfigOf(config) as QueuingConfig, this.#clock, this.#metrics);
  }

  /**
   * Each level's nominal limit is its share of the server's seats, rounded up; it may lend
   * lendablePercent of it and borrow up to borrowingLimitPercent of it (without one, up to the
   * whole server's). A level's queues start at its nominal limit less half what it may lend.
   */
  #setNominalLimits(states: ReadonlyMap<string, PriorityLevelState>, shareSum: number): void {
    const total = this.#serverConcurrencyLimit;
    let sum = 0;
    for (const state of states.values()) {
      const { shares, lendablePercent, borrowingLimitPercent } = levelCommons(state.config);
      const nominal = shareSum > 0 ? Math.ceil((total * shares) / shareSum) : 0;
      const lendable = lendablePercent === undefined ? 0 : Math.round((nominal * lendablePercent) / 100);
      const borrowable = borrowingLimitPercent === undefined ? total : Math.round((nominal * borrowingLimitPercent) / 100);
      state.nominalCL = nominal;
      state.minCL = nominal - lendable;
      state.maxCL = nominal + borrowable;
      this.#metrics?.levelLimits(state.name, nominal, state.minCL, state.maxCL);
      sum += nominal;
      const queuing = state.config.limited?.limitResponse.queuing;
      state.maxSeats = queuing ? priorityLevelMaxSeats(nominal, queuing.handSize) : 0;
      if (!state.queues) state.currentCL = nominal - Math.floor(lendable / 2);
    }
    this.#nominalCLSum = sum;
  }

  /**
   * Re-derives each level's current limit (upstream's updateBorrowingLocked). Each level's seat
   * demand over the period gives it a lower bound (its high watermark, within its nominal limit
   * and no lower than what it keeps) and a target (its smoothed demand); the exempt level takes
   * what it used; the rest is allocated fairly between bounds. Then the queues get their limits.
   */
  #adjustLimits(periodic: boolean): void {
    const states = [...this.#states.values()];
    const items: AllocationItem[] = [];
    const itemOf = new Map<PriorityLevelState, number>();
    const exemptCurrent = new Map<PriorityLevelState, number>();
    let minCLSum = 0;
    let minCurrentCLSum = 0;
    let remaining = this.#nominalCLSum;
    for (const state of states) {
      state.demandStats.update(state.demand.reset());
      const hwm = state.demandStats.highWatermark;
      if (state.exempt) {
        const minCurrent = Math.max(state.minCL, hwm);
        exemptCurrent.set(state, minCurrent);
        remaining -= minCurrent;
        continue;
      }
      const minCurrent = Math.max(state.minCL, Math.min(state.nominalCL, hwm));
      itemOf.set(state, items.length);
      items.push({ lowerBound: minCurrent, upperBound: state.maxCL, target: Math.max(minCurrent, state.demandStats.smoothed) });
      minCLSum += state.minCL;
      minCurrentCLSum += minCurrent;
    }
    if (items.length === 0 && this.#nominalCLSum > 0) {
      this.#logger.error('API priority and fairness: no priority levels to allocate seats to');
      return;
    }
    let allocs: number[] | undefined;
    let shareFrac = 0;
    let fairFrac = 0;
    if (remaining <= minCLSum) {
      // Not even the lower bounds fit: everyone gets what it keeps.
    } else if (remaining <= minCurrentCLSum) {
      shareFrac = (remaining - minCLSum) / (minCurrentCLSum - minCLSum);
    } else {
      try {
        const allocation = computeConcurrencyAllocation(this.#nominalCLSum, items);
        allocs = allocation.allocs;
        fairFrac = allocation.fairProp;
      } catch (err) {
        this.#logger.error({ err, items }, 'unable to derive new concurrency limits; keeping the current ones');
        allocs = states.filter((s) => !s.exempt).map((s) => s.currentCL);
      }
    }
    this.#metrics?.fairFrac(fairFrac);
    for (const state of states) {
      const index = itemOf.get(state);
      let currentCL: number;
      if (index === undefined) currentCL = exemptCurrent.get(state)!;
      else if (remaining <= minCLSum) currentCL = state.minCL;
      else if (allocs === undefined) currentCL = state.minCL + Math.round((items[index]!.lowerBound - state.minCL) * shareFrac);
      else currentCL = Math.round(allocs[index]!);
      state.currentCL = currentCL;
      const stats = state.demandStats;
      this.#metrics?.levelAdjustment(state.name, {
        highWatermark: stats.highWatermark,
        average: stats.average,
        stdDev: stats.stdDev,
        smoothed: stats.smoothed,
        ...(index === undefined ? {} : { target: items[index]!.target }),
        currentLimit: currentCL,
      });
      // Utilization of a level that may use nothing is measured against a tenth of the server.
      const denominator = currentCL > 0 ? currentCL : Math.max(1, Math.round(this.#serverConcurrencyLimit / 10));
      const dispatching = { concurrencyLimit: currentCL, concurrencyDenominator: denominator };
      if (state.queues) state.queues.setConfiguration(state.queuing, dispatching);
      else {
        state.queues = new QueueSet(state.queuing, this.#clock, state.observer);
        state.queues.setConfiguration(state.queuing, dispatching);
      }
      if (periodic) this.#logger.debug({ priorityLevel: state.name, currentCL, seatDemandHighWatermark: stats.highWatermark, seatDemandSmoothed: stats.smoothed, fairFrac }, 'update CurrentCL');
    }
  }
}
