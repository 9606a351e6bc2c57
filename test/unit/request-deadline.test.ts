import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseGoDurationStrict } from '../../src/api/go/duration.ts';
import { requestDeadlineMs } from '../../src/http/request-timeout.ts';

test('Go durations parse as time.ParseDuration does', () => {
  const ns = (text: string) => {
    const r = parseGoDurationStrict(text);
    assert.ok('ns' in r, `${text}: ${'error' in r ? r.error : ''}`);
    return r.ns;
  };
  assert.equal(ns('0'), 0n);
  assert.equal(ns('300ms'), 300_000_000n);
  assert.equal(ns('1h2m3.5s'), 3_723_500_000_000n);
  assert.equal(ns('1.5µs'), 1_500n);
  assert.equal(ns('-2s'), -2_000_000_000n);
  assert.equal(ns('.5s'), 500_000_000n);
  assert.equal(ns('2562047h47m16.854775807s'), (1n << 63n) - 1n);
});

test('a duration Go refuses carries Go\'s own error text', () => {
  const error = (text: string) => {
    const r = parseGoDurationStrict(text);
    assert.ok('error' in r, text);
    return r.error;
  };
  assert.equal(error('abc'), 'time: invalid duration "abc"');
  assert.equal(error(''), 'time: invalid duration ""');
  assert.equal(error('.s'), 'time: invalid duration ".s"');
  assert.equal(error('1'), 'time: missing unit in duration "1"');
  assert.equal(error('1.5.5s'), 'time: missing unit in duration "1.5.5s"');
  assert.equal(error('5d'), 'time: unknown unit "d" in duration "5d"');
  assert.equal(error('9999999999999999999h'), 'time: invalid duration "9999999999999999999h"');
  assert.equal(error('2562048h'), 'time: invalid duration "2562048h"');
  assert.equal(error('1"s'), 'time: unknown unit "\\"s" in duration "1\\"s"');
});

test('the timeout parameter shortens the request timeout, never lengthens it, and 0 or negative mean none of its own', () => {
  const max = 60_000;
  assert.equal(requestDeadlineMs(null, max), max);
  assert.equal(requestDeadlineMs('', max), max);
  assert.equal(requestDeadlineMs('5s', max), 5_000);
  assert.equal(requestDeadlineMs('1ns', max), 1);
  assert.equal(requestDeadlineMs('2m', max), max);
  assert.equal(requestDeadlineMs('0s', max), max);
  assert.equal(requestDeadlineMs('-5s', max), max);
  assert.throws(() => requestDeadlineMs('5', max), {
    name: 'ApiError',
    message: 'invalid timeout specified in the request URL - time: missing unit in duration "5"',
  });
});
