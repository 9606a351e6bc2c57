/**
 * The debug dumps' text: upstream's columns, joined by ",\t" and aligned as Go's tabwriter aligns
 * them (minimum width 8, padding 1, the last cell left as it is).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { parseRequestInfo } from '../../src/api/request-info.ts';
import { ApfController } from '../../src/flowcontrol/apf-controller.ts';
import { readPriorityLevel } from '../../src/flowcontrol/config-objects.ts';
import { alignColumns, dumpPriorityLevels, dumpQueues, dumpRequests } from '../../src/flowcontrol/debug-dump.ts';
import { FakeClock } from './fake-clock.ts';

test('columns are padded to their widest cell plus one, at least 8 wide; the last cell is not padded', () => {
  assert.equal(alignColumns([['a,', 'bb,', 'c'], ['longer-cell,', 'x,', 'yyyyyyyyyyyy']]), 'a,           bb,     c\nlonger-cell, x,      yyyyyyyyyyyy\n');
});

function controller() {
  const clock = new FakeClock();
  const c = new ApfController({ serverConcurrencyLimit: 10, logger: pino({ level: 'silent' }), clock });
  const queued = readPriorityLevel({
    metadata: { name: 'q', uid: 'q-uid' },
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: 5, lendablePercent: 0, borrowingLimitPercent: 0, limitResponse: { type: 'Queue', queuing: { queues: 2, handSize: 1, queueLengthLimit: 5 } } } },
  });
  c.setConfiguration([queued], []);
  return { c, clock };
}

test('dump_priority_levels: one row per level, by name', () => {
  const { c } = controller();
  assert.equal(
    dumpPriorityLevels(c),
    [
      'PriorityLevelName, ActiveQueues, IsIdle, IsQuiescing, WaitingRequests, ExecutingRequests, DispatchedRequests, RejectedRequests, TimedoutRequests, CancelledRequests',
      'catch-all,         0,            true,   false,       0,               0,                 0,                  0,                0,                0',
      'exempt,            0,            true,   false,       0,               0,                 0,                  0,                0,                0',
      'q,                 0,            true,   false,       0,               0,                 0,                  0,                0,                0',
      '',
    ].join('\n'),
  );
});

test('dump_queues and dump_requests show what waits and what runs', () => {
  const { c, clock } = controller();
  const level = c.levels.get('q')!;
  // 10 seats, 5 shares of 10 (with catch-all's 5): nominal 5, fixed.
  assert.equal(level.currentCL, 5);
  const info = parseRequestInfo('GET', '/api/v1/namespaces/ns/configmaps/cm', new URLSearchParams());
  const work = { initialSeats: 5, finalSeats: 0, additionalLatencyMs: 0 };
  const running = level.queues!.startRequest(work, [0, 0, 0, 0], 'f', 'alice', 'fs', { userName: 'alice', info })!;
  clock.advance(1.5);
  level.queues!.startRequest({ initialSeats: 1, finalSeats: 2, additionalLatencyMs: 5 }, [0, 0, 0, 0], 'f', 'alice', 'fs', { userName: 'alice', info });
  assert.equal(running.decision, 'execute');
  const queues = dumpQueues(c).split('\n');
  assert.equal(queues[0], 'PriorityLevelName, Index,  PendingRequests, ExecutingRequests, SeatsInUse, NextDispatchR, InitialSeatsSum, MaxSeatsSum, TotalWorkSum');
  // Both requests are in queue 0 (the flow's one-queue hand): 5 seats × 3 ms dispatched; 1 × 3 ms + 2 × 5 ms waiting.
  assert.equal(queues[1], 'q,                 0,      1,               1,                 5,          0.01500000ss,  1,               2,           0.01300000ss');
  assert.equal(queues[2], 'q,                 1,      0,               0,                 0,          0.00000000ss,  0,               0,           0.00000000ss');
  const requests = dumpRequests(c, true).split('\n');
  assert.equal(
    requests[0],
    'PriorityLevelName, FlowSchemaName, QueueIndex, RequestIndexInQueue, FlowDistingsher, ArriveTime,                InitialSeats, FinalSeats, AdditionalLatency, StartTime,              UserName, Verb,   APIPath,                             Namespace, Name,   APIVersion, Resource,   SubResource',
  );
  // Waiting (index 0 in its queue, not started: Go's zero time), then running (-1); the empty subresource ends each row.
  assert.equal(
    requests[1],
    'q,                 fs,             0,          0,                   alice,           2025-01-02T03:04:05.6015Z, 1,            2,          5ms,               0001-01-01T00:00:00Z,   alice,    get,    /api/v1/namespaces/ns/configmaps/cm, ns,        cm,     v1,         configmaps, ',
  );
  assert.equal(
    requests[2],
    'q,                 fs,             0,          -1,                  alice,           2025-01-02T03:04:05.6Z,    5,            0,          0s,                2025-01-02T03:04:05.6Z, alice,    get,    /api/v1/namespaces/ns/configmaps/cm, ns,        cm,     v1,         configmaps, ',
  );
  // Without details the rows stop at StartTime, its cells unpadded.
  assert.equal(dumpRequests(c, false).split('\n')[2], 'q,                 fs,             0,          -1,                  alice,           2025-01-02T03:04:05.6Z,    5,            0,          0s,                2025-01-02T03:04:05.6Z');
});
