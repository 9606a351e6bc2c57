import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { defaultWorkers, poolPerWorker, resolveWorkers, totalConnections } from '../../src/startup/workers/pool-split.ts';

test('one worker keeps the pool at --database-max-connections (LISTEN on top), as a single process always did', () => {
  assert.equal(poolPerWorker(20, 1), 20);
  assert.equal(totalConnections(20, 1), 21);
});

test('several workers share --database-max-connections, one LISTEN connection each included', () => {
  assert.equal(poolPerWorker(20, 2), 9);
  assert.equal(poolPerWorker(20, 3), 5);
  assert.equal(poolPerWorker(8, 4), 1);
  for (let max = 2; max <= 64; max++) {
    for (let workers = 2; workers <= max / 2; workers++) {
      const pool = poolPerWorker(max, workers);
      assert.ok(pool >= 1, `${workers} workers of ${max}: a pool of ${pool}`);
      assert.ok(totalConnections(max, workers) <= max, `${workers} workers of ${max}: ${totalConnections(max, workers)} connections`);
      assert.ok(totalConnections(max, workers) > max - workers, 'at most the remainder is left unused');
    }
  }
});

test('the default is the cores less one (left to PostgreSQL), as far as four connections a worker allow, and at least one', () => {
  assert.equal(defaultWorkers(2, 20), 1);
  assert.equal(defaultWorkers(4, 20), 3);
  assert.equal(defaultWorkers(64, 20), 5);
  assert.equal(defaultWorkers(8, 3), 1);
  assert.equal(defaultWorkers(1, 100), 1);
  assert.deepEqual(resolveWorkers('', 4, 20), { workers: 3 });
});

test('--workers below 1, not a number, or without two connections a worker is refused', () => {
  assert.deepEqual(resolveWorkers('0', 4, 20), { problem: 'invalid value "0" for --workers: must be an integer of at least 1' });
  assert.ok('problem' in resolveWorkers('-1', 4, 20));
  assert.ok('problem' in resolveWorkers('two', 4, 20));
  assert.ok('problem' in resolveWorkers('11', 4, 20));
  assert.deepEqual(resolveWorkers('10', 4, 20), { workers: 10 });
  assert.deepEqual(resolveWorkers('1', 4, 1), { workers: 1 });
});

test('--workers and WORKERS reach the Config, checked', () => {
  assert.equal(loadConfig(['--workers=3'], {}).workers, 3);
  assert.equal(loadConfig([], { WORKERS: '2' }).workers, 2);
  assert.ok(loadConfig([], {}).workers >= 1);
  assert.throws(() => loadConfig(['--workers=0'], {}), ConfigError);
  assert.throws(() => loadConfig(['--workers=4', '--database-max-connections=7'], {}), /--database-max-connections=7 is too small for --workers=4/);
});
