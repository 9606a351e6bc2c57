import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRequestInfo } from '../../src/api/request-info.ts';
import { FeatureGateSet } from '../../src/features/feature-gates.ts';
import {
  DEFAULT_WORK_ESTIMATOR_CONFIG,
  INFINITE_OBJECT_COUNT,
  MAX_OBJECT_SIZE,
  ONE_SEAT,
  estimateWork,
  maxSeatsOf,
  priorityLevelMaxSeats,
  workEstimatorConfig,
  type WorkEstimate,
  type WorkEstimatorConfig,
} from '../../src/flowcontrol/work-estimator.ts';

/** How the object count source answers: figures, not counted, or gone stale (work-inputs reports it so). */
type Stored = { count: number; size?: number } | 'not counted' | 'stale';

interface Case {
  readonly method?: string;
  /** Path and query, as upstream's table writes its request URIs. */
  readonly uri: string;
  readonly stored?: Stored;
  readonly watchers?: number;
  readonly maxSeats?: number;
  readonly config?: WorkEstimatorConfig;
}

/** The resource the request names must be the one asked about; anything else is a bug. */
function estimate(c: Case): WorkEstimate {
  const url = new URL(c.uri, 'http://server');
  const info = parseRequestInfo(c.method ?? 'GET', url.pathname, url.searchParams);
  const stored = c.stored ?? 'not counted';
  const check = (group: string, resource: string) => {
    assert.equal(group, info.apiGroup);
    assert.equal(resource, info.resource);
  };
  return estimateWork({
    info,
    query: url.searchParams,
    objectCount: (group, resource) => {
      check(group, resource);
      if (stored === 'not counted') return undefined;
      return stored === 'stale' ? INFINITE_OBJECT_COUNT : stored.count;
    },
    averageObjectSize: (group, resource) => {
      check(group, resource);
      if (stored === 'not counted') return undefined;
      return stored === 'stale' ? MAX_OBJECT_SIZE : stored.size;
    },
    watchersOf: (group, resource) => {
      check(group, resource);
      return c.watchers ?? 0;
    },
    maxSeats: c.maxSeats,
    config: c.config,
  });
}

function seats(c: Case): number {
  const e = estimate(c);
  assert.equal(e.finalSeats, 0, 'a read holds no seats after it finishes');
  assert.equal(e.additionalLatencyMs, 0);
  return e.initialSeats;
}

/**
 * Upstream's own table runs without etcd, whose support for progress notifications is what lets
 * the cache serve consistent lists: there, a list without resourceVersion is read from storage.
 */
const UPSTREAM_TEST = Object.freeze({ ...DEFAULT_WORK_ESTIMATOR_CONFIG, consistentReadsFromCache: false });
/** The same with SizeBasedListCostEstimate off: 1.33's estimate by object count. */
const BY_COUNT = Object.freeze({
  ...workEstimatorConfig(new FeatureGateSet(new Map([['SizeBasedListCostEstimate', false]]))),
  consistentReadsFromCache: false,
});

const EVENTS = '/apis/foo.bar/v1/events';
const KB10 = 10_000;

describe('list work by object size (kube-apiserver 1.34 default)', () => {
  const cfg = UPSTREAM_TEST;
  it('a query the ListOptions conversion refuses costs the cap', () => {
    assert.equal(seats({ uri: `${EVENTS}?limit=invalid`, stored: { count: 799, size: KB10 }, maxSeats: 100, config: cfg }), 100);
    // Stricter than the request decoding: an empty integer, or one past int64, fails the conversion.
    assert.equal(seats({ uri: `${EVENTS}?limit=`, stored: { count: 799, size: KB10 }, maxSeats: 100, config: cfg }), 100);
    assert.equal(seats({ uri: `${EVENTS}?timeoutSeconds=9223372036854775808`, stored: { count: 1, size: 1 }, maxSeats: 7, config: cfg }), 7);
    assert.equal(seats({ uri: `${EVENTS}?timeoutSeconds=9223372036854775807&limit=-1`, stored: { count: 1, size: 1 }, maxSeats: 7, config: cfg }), 1);
  });

  it('reads from storage cost the bytes they load, one seat per 100 kB', () => {
    // resourceVersion with a limit is the legacy exact match: storage.
    assert.equal(seats({ uri: `${EVENTS}?limit=399&resourceVersion=1`, stored: { count: 699, size: KB10 }, maxSeats: 100, config: cfg }), 40);
    assert.equal(seats({ uri: `${EVENTS}?limit=399`, stored: { count: 699, size: KB10 }, maxSeats: 100, config: cfg }), 40);
    assert.equal(seats({ uri: EVENTS, stored: { count: 399, size: KB10 }, maxSeats: 100, config: cfg }), 40);
    assert.equal(seats({ uri: `${EVENTS}?continue=token&limit=399`, stored: { count: 699, size: KB10 }, maxSeats: 100, config: cfg }), 40);
    assert.equal(seats({ uri: `${EVENTS}?resourceVersion=1&resourceVersionMatch=Exact&limit=399`, stored: { count: 699, size: KB10 }, maxSeats: 100, config: cfg }), 40);
    // An unknown match goes to storage (validation refuses it there).
    assert.equal(seats({ uri: `${EVENTS}?resourceVersionMatch=foo`, stored: { count: 200, size: KB10 }, maxSeats: 100, config: cfg }), 20);
    assert.equal(seats({ uri: `${EVENTS}?resourceVersion=foo&resourceVersionMatch=Exact&limit=399`, stored: { count: 699, size: KB10 }, maxSeats: 100, config: cfg }), 40);
  });

  it("reads from the cache are streamed: at most 1 MB, 10 seats", () => {
    assert.equal(seats({ uri: `${EVENTS}?resourceVersion=1`, stored: { count: 699, size: KB10 }, maxSeats: 100, config: cfg }), 10);
    assert.equal(seats({ uri: `${EVENTS}?resourceVersion=1`, stored: { count: 69, size: KB10 }, maxSeats: 100, config: cfg }), 7);
    assert.equal(seats({ uri: `${EVENTS}?limit=299&resourceVersion=0`, stored: { count: 399, size: KB10 }, maxSeats: 100, config: cfg }), 10);
    assert.equal(seats({ uri: `${EVENTS}?limit=20&resourceVersion=0`, stored: { count: 399, size: KB10 }, maxSeats: 100, config: cfg }), 2);
    assert.equal(seats({ uri: `${EVENTS}?resourceVersion=0`, stored: { count: 799, size: KB10 }, maxSeats: 100, config: cfg }), 10);
    assert.equal(seats({ uri: `${EVENTS}?resourceVersion=0`, stored: { count: 79, size: KB10 }, maxSeats: 100, config: cfg }), 8);
    assert.equal(seats({ uri: `${EVENTS}?resourceVersion=1&resourceVersionMatch=NotOlderThan`, stored: { count: 799, size: KB10 }, maxSeats: 100, config: cfg }), 10);
    assert.equal(seats({ uri: `${EVENTS}?resourceVersion=1&resourceVersionMatch=NotOlderThan`, stored: { count: 79, size: KB10 }, maxSeats: 100, config: cfg }), 8);
  });

  it("the priority level's cap bounds the cost", () => {
    assert.equal(seats({ uri: `${EVENTS}?resourceVersion=1&resourceVersionMatch=Exact`, stored: { count: 5000, size: KB10 }, maxSeats: 20, config: cfg }), 20);
  });

  it('a resource that is not counted costs the least; a stale count the most', () => {
    for (const q of ['', '?resourceVersion=0', '?resourceVersion=0&limit=1', '?limit=1', '?resourceVersion=0&limit=499', '?limit=499']) {
      assert.equal(seats({ uri: `${EVENTS}${q}`, stored: 'not counted', maxSeats: 100, config: cfg }), 1, q);
    }
    assert.equal(seats({ uri: EVENTS, stored: 'stale', maxSeats: 100, config: cfg }), 100);
    assert.equal(seats({ uri: `${EVENTS}?limit=499`, stored: 'stale', maxSeats: 100, config: cfg }), 100);
    // One object of the largest size allowed.
    assert.equal(seats({ uri: `${EVENTS}?limit=1`, stored: 'stale', maxSeats: 100, config: cfg }), 15);
  });

  it('objects of unknown size count as the largest allowed', () => {
    assert.equal(seats({ uri: EVENTS, stored: { count: 1 }, maxSeats: 100, config: cfg }), 15);
    assert.equal(seats({ uri: `${EVENTS}?limit=1`, stored: { count: 1 }, maxSeats: 100, config: cfg }), 15);
    assert.equal(seats({ uri: `${EVENTS}?limit=499`, stored: { count: 1 }, maxSeats: 100, config: cfg }), 15);
    assert.equal(seats({ uri: `${EVENTS}?resourceVersion=0&limit=499`, stored: { count: 1 }, maxSeats: 100, config: cfg }), 10);
    // Nothing stored, nothing to load.
    assert.equal(seats({ uri: EVENTS, stored: { count: 0 }, maxSeats: 100, config: cfg }), 1);
  });

  it('a list naming one object (metadata.name=) loads one object', () => {
    const named = `${EVENTS}?fieldSelector=metadata.name%3Dtest`;
    assert.equal(seats({ uri: named, stored: { count: 799, size: 200_000 }, maxSeats: 100, config: cfg }), 2);
    assert.equal(seats({ uri: named, stored: { count: 799, size: 1_500_000 }, maxSeats: 100, config: cfg }), 15);
    assert.equal(seats({ uri: `${named}&limit=500&resourceVersion=0`, stored: { count: 799, size: 200_000 }, maxSeats: 100, config: cfg }), 2);
    assert.equal(seats({ uri: `${named}&limit=500&resourceVersion=0`, stored: { count: 799, size: MAX_OBJECT_SIZE }, maxSeats: 100, config: cfg }), 10);
  });

  it('storage with a selector reads at least half the objects to find the matching ones', () => {
    const labelled = `${EVENTS}?labelSelector=app%3Dtest`;
    assert.equal(seats({ uri: labelled, stored: { count: 799, size: KB10 }, maxSeats: 100, config: cfg }), 80);
    assert.equal(seats({ uri: `${labelled}&limit=49`, stored: { count: 799, size: KB10 }, maxSeats: 100, config: cfg }), 40);
    assert.equal(seats({ uri: `${labelled}&limit=699`, stored: { count: 799, size: KB10 }, maxSeats: 100, config: cfg }), 70);
    assert.equal(seats({ uri: `${labelled}&resourceVersion=0`, stored: { count: 799, size: KB10 }, maxSeats: 100, config: cfg }), 10);
    assert.equal(seats({ uri: `${labelled}&resourceVersion=0&limit=29`, stored: { count: 799, size: KB10 }, maxSeats: 100, config: cfg }), 3);
    const fielded = `${EVENTS}?fieldSelector=type%3DWarning&limit=10`;
    assert.equal(seats({ uri: fielded, stored: { count: 799, size: KB10 }, maxSeats: 100, config: cfg }), 40);
  });

  it('a watch costs its initial list only when it asks for initial events', () => {
    const stored = { count: 799, size: KB10 };
    assert.equal(seats({ uri: `${EVENTS}?watch=true`, stored, config: cfg }), 1);
    assert.equal(seats({ uri: `${EVENTS}?watch=true&sendInitialEvents=false`, stored, maxSeats: 100, config: cfg }), 1);
    assert.equal(seats({ uri: `${EVENTS}?watch=true&sendInitialEvents=FALSE`, stored, maxSeats: 100, config: cfg }), 1);
    assert.equal(seats({ uri: `${EVENTS}?watch=true&sendInitialEvents=0`, stored, maxSeats: 100, config: cfg }), 1);
    assert.equal(seats({ uri: `${EVENTS}?watch=true&sendInitialEvents=true`, stored: { count: 799, size: 1_000 }, maxSeats: 100, config: cfg }), 8);
    // Initial events come from the cache, whatever the resourceVersion says.
    assert.equal(
      seats({ uri: `${EVENTS}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`, stored, maxSeats: 100, config: cfg }),
      10,
    );
    // The legacy watch path and any spelling the conversion reads as true.
    assert.equal(seats({ uri: `/apis/foo.bar/v1/watch/events?sendInitialEvents=yes`, stored: { count: 799, size: 1_000 }, maxSeats: 100, config: cfg }), 8);
  });

  it('without WatchList a watch always costs one seat', () => {
    const config = { ...cfg, watchListCost: false };
    assert.equal(seats({ uri: `${EVENTS}?watch=true&sendInitialEvents=true`, stored: { count: 799, size: 1_000 }, maxSeats: 100, config }), 1);
  });

  it('the configured limit applies when the level has no cap (exempt, Reject)', () => {
    assert.equal(seats({ uri: `${EVENTS}?resourceVersionMatch=foo`, stored: { count: 5000, size: KB10 }, config: cfg }), 100);
    assert.equal(seats({ uri: `${EVENTS}?resourceVersionMatch=foo`, stored: { count: 5000, size: KB10 }, maxSeats: 0, config: cfg }), 100);
    // A level cap above the limit does not raise it.
    assert.equal(seats({ uri: `${EVENTS}?resourceVersionMatch=foo`, stored: { count: 5000, size: KB10 }, maxSeats: 500, config: cfg }), 100);
  });
});

describe('consistent lists as a current 1.34 cluster serves them (the default)', () => {
  it('a list without resourceVersion is served by the cache', () => {
    assert.equal(seats({ uri: EVENTS, stored: { count: 399, size: KB10 }, maxSeats: 100 }), 10);
    assert.equal(seats({ uri: `${EVENTS}?limit=20`, stored: { count: 399, size: KB10 }, maxSeats: 100 }), 2);
    // Continuations and exact reads still go to storage.
    assert.equal(seats({ uri: `${EVENTS}?limit=399&continue=abc`, stored: { count: 699, size: KB10 }, maxSeats: 100 }), 40);
  });

  it('the gates decide: ConsistentListFromCache is locked on in 1.34', () => {
    assert.equal(workEstimatorConfig(new FeatureGateSet(new Map())).consistentReadsFromCache, true);
    assert.deepEqual(workEstimatorConfig(new FeatureGateSet(new Map())), DEFAULT_WORK_ESTIMATOR_CONFIG);
  });
});

describe('list work by object count (SizeBasedListCostEstimate off)', () => {
  const cfg = BY_COUNT;
  it('caps lists at 10 seats', () => {
    assert.equal(cfg.maximumListSeatsLimit, 10);
    assert.equal(seats({ uri: `${EVENTS}?limit=invalid`, stored: { count: 799 }, maxSeats: 10, config: cfg }), 10);
  });

  it('storage without a selector reads and returns the limit: two passes', () => {
    assert.equal(seats({ uri: `${EVENTS}?limit=399&resourceVersion=1`, stored: { count: 699 }, maxSeats: 10, config: cfg }), 8);
    assert.equal(seats({ uri: `${EVENTS}?limit=399`, stored: { count: 699 }, maxSeats: 10, config: cfg }), 8);
    assert.equal(seats({ uri: EVENTS, stored: { count: 399 }, maxSeats: 10, config: cfg }), 8);
    assert.equal(seats({ uri: `${EVENTS}?continue=token&limit=399`, stored: { count: 699 }, maxSeats: 10, config: cfg }), 8);
    assert.equal(seats({ uri: `${EVENTS}?resourceVersion=foo&resourceVersionMatch=Exact&limit=399`, stored: { count: 699 }, maxSeats: 10, config: cfg }), 8);
  });

  it('the cache walks every object', () => {
    assert.equal(seats({ uri: `${EVENTS}?resourceVersion=1`, stored: { count: 699 }, maxSeats: 10, config: cfg }), 7);
    assert.equal(seats({ uri: `${EVENTS}?limit=299&resourceVersion=0`, stored: { count: 399 }, maxSeats: 10, config: cfg }), 4);
    assert.equal(seats({ uri: `${EVENTS}?resourceVersion=0`, stored: { count: 799 }, config: cfg }), 8);
    assert.equal(seats({ uri: `${EVENTS}?resourceVersion=foo&resourceVersionMatch=NotOlderThan`, stored: { count: 799 }, maxSeats: 10, config: cfg }), 8);
    assert.equal(seats({ uri: `${EVENTS}?resourceVersion=foo`, stored: { count: 1999 }, maxSeats: 10, config: cfg }), 10);
    assert.equal(seats({ uri: `${EVENTS}?resourceVersion=foo`, stored: { count: 1999 }, maxSeats: 5, config: cfg }), 5);
  });

  it('storage with a selector reads everything and returns up to the limit', () => {
    assert.equal(seats({ uri: `${EVENTS}?labelSelector=a%3Db&limit=100`, stored: { count: 350 }, maxSeats: 10, config: cfg }), 5);
  });

  it('not counted, stale, and named lists', () => {
    assert.equal(seats({ uri: `${EVENTS}`, stored: 'not counted', maxSeats: 10, config: cfg }), 1);
    assert.equal(seats({ uri: `${EVENTS}?resourceVersion=0&limit=799`, stored: 'not counted', maxSeats: 10, config: cfg }), 1);
    assert.equal(seats({ uri: `${EVENTS}?limit=499`, stored: 'stale', maxSeats: 10, config: cfg }), 10);
    assert.equal(seats({ uri: `${EVENTS}?fieldSelector=metadata.name%3Dtest`, stored: { count: 799 }, maxSeats: 10, config: cfg }), 1);
    assert.equal(seats({ uri: `${EVENTS}?fieldSelector=metadata.name%3Dtest&limit=500&resourceVersion=0`, stored: { count: 799 }, maxSeats: 10, config: cfg }), 1);
  });

  it('watches with initial events', () => {
    assert.equal(seats({ uri: `${EVENTS}?watch=true`, stored: { count: 799 }, config: cfg }), 1);
    assert.equal(seats({ uri: `${EVENTS}?watch=true&sendInitialEvents=false`, stored: { count: 799 }, config: cfg }), 1);
    assert.equal(seats({ uri: `${EVENTS}?watch=true&sendInitialEvents=true`, stored: { count: 799 }, config: cfg }), 8);
  });
});

describe('write work by watchers', () => {
  const FOOS = '/apis/foo.bar/v1/foos';
  const write = (method: string, uri: string, watchers: number, maxSeats?: number) => {
    const e = estimate({ method, uri, watchers, maxSeats });
    return [e.initialSeats, e.finalSeats, e.additionalLatencyMs];
  };

  it('fewer than 10 watchers: one seat, nothing after', () => {
    assert.deepEqual(write('POST', FOOS, 0, 10), [1, 0, 0]);
    assert.deepEqual(write('POST', FOOS, 5, 10), [1, 0, 0]);
    assert.deepEqual(write('POST', FOOS, 9, 10), [1, 0, 0]);
    assert.deepEqual(write('PUT', `${FOOS}/myfoo`, 0, 10), [1, 0, 0]);
    assert.deepEqual(write('PATCH', `${FOOS}/myfoo`, 0, 10), [1, 0, 0]);
    assert.deepEqual(write('DELETE', `${FOOS}/myfoo`, 0, 10), [1, 0, 0]);
  });

  it('a seat per 10 watchers for 5 ms after the write', () => {
    assert.deepEqual(write('POST', FOOS, 10, 10), [1, 1, 5]);
    assert.deepEqual(write('POST', FOOS, 29, 10), [1, 3, 5]);
    assert.deepEqual(write('PUT', `${FOOS}/myfoo`, 29, 10), [1, 3, 5]);
    assert.deepEqual(write('PATCH', `${FOOS}/myfoo`, 29, 10), [1, 3, 5]);
    assert.deepEqual(write('DELETE', `${FOOS}/myfoo`, 29, 10), [1, 3, 5]);
  });

  it('beyond the cap the same work is held by fewer seats for longer', () => {
    assert.deepEqual(write('POST', FOOS, 199, 10), [1, 10, 10]);
    assert.deepEqual(write('PATCH', `${FOOS}/myfoo`, 100, 5), [1, 5, 10]);
    assert.deepEqual(write('POST', '/api/v1/namespaces/foo/serviceaccounts', 1000, 20), [1, 10, 50]);
    // Not a whole number of milliseconds: 3 seats of 5 ms on 2 seats.
    assert.deepEqual(write('POST', FOOS, 29, 2), [1, 2, 7.5]);
    // No level cap: the write limit of 10.
    assert.deepEqual(write('POST', FOOS, 1000), [1, 10, 50]);
  });

  it('minting a service account token writes nothing watchers hear of', () => {
    assert.deepEqual(write('POST', '/api/v1/namespaces/foo/serviceaccounts/default/token', 5777, 10), [1, 0, 0]);
  });

  it('deletecollection is not estimated as a write, as upstream', () => {
    assert.deepEqual(write('DELETE', FOOS, 500, 10), [1, 0, 0]);
  });

  it('can be switched off', () => {
    const config = { ...DEFAULT_WORK_ESTIMATOR_CONFIG, mutatingEstimatorEnabled: false };
    const e = estimate({ method: 'POST', uri: FOOS, watchers: 500, config });
    assert.deepEqual([e.initialSeats, e.finalSeats, e.additionalLatencyMs], [1, 0, 0]);
  });

  it("a request's max seats is the larger of its two phases", () => {
    assert.equal(maxSeatsOf(estimate({ method: 'POST', uri: FOOS, watchers: 199, maxSeats: 10 })), 10);
    assert.equal(maxSeatsOf(ONE_SEAT), 1);
  });
});

describe('everything else costs one seat, without allocating', () => {
  it('gets, non-resource requests and other verbs share one frozen estimate', () => {
    const cases: Case[] = [
      { uri: `${EVENTS}/x`, stored: { count: 799, size: KB10 }, maxSeats: 10 },
      { uri: '/healthz' },
      { uri: '/apis' },
      { method: 'DELETE', uri: '/some/non-resource', watchers: 100 },
      { method: 'POST', uri: '/api/v1/namespaces/foo/pods/p/eviction', watchers: 5 },
      { method: 'GET', uri: '/api/v1/namespaces/foo/pods/p/log' },
    ];
    for (const c of cases) {
      const e = estimate(c);
      assert.equal(e, ONE_SEAT, c.uri);
    }
    assert.ok(Object.isFrozen(ONE_SEAT));
    assert.deepEqual({ ...ONE_SEAT }, { initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 });
  });

  it('list estimates are shared frozen objects too', () => {
    const a = estimate({ uri: `${EVENTS}?resourceVersion=0`, stored: { count: 79, size: KB10 } });
    const b = estimate({ uri: `${EVENTS}?resourceVersion=0`, stored: { count: 79, size: KB10 } });
    assert.equal(a, b);
    assert.ok(Object.isFrozen(a));
  });
});

describe("a priority level's cap from its nominal concurrency", () => {
  it('15% of it, at most nominal / hand size, at least 1', () => {
    const table: [number, number, number][] = [
      [5, 6, 1],
      [10, 6, 1],
      [15, 6, 2],
      [20, 6, 3],
      [35, 6, 5],
      [100, 6, 15],
      [200, 6, 30],
      [10, 1, 2],
      [100, 20, 5],
    ];
    for (const [nominal, handSize, expected] of table) {
      assert.equal(priorityLevelMaxSeats(nominal, handSize), expected, `nominal ${nominal}, hand ${handSize}`);
    }
  });
});
