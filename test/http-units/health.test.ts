import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pingCheck, runHealthChecks, type HealthCheck } from '../../src/http/health/health-checks.ts';

const ok = (name: string): HealthCheck => ({ name, check: () => {} });
const failing = (name: string, why = 'boom'): HealthCheck => ({
  name,
  check: async () => {
    throw new Error(why);
  },
});

describe('runHealthChecks', () => {
  it('answers ok when healthy and not verbose', async () => {
    const r = await runHealthChecks('readyz', [pingCheck, ok('etcd')]);
    assert.equal(r.status, 200);
    assert.equal(r.body, 'ok');
    assert.equal(r.contentType, 'text/plain; charset=utf-8');
  });

  it('lists every check when verbose', async () => {
    const r = await runHealthChecks('livez', [pingCheck, ok('log'), ok('etcd')], { verbose: true });
    assert.equal(r.status, 200);
    assert.equal(r.body, '[+]ping ok\n[+]log ok\n[+]etcd ok\nlivez check passed\n');
  });

  it('withholds the reason of a failure and answers 500 with the listing', async () => {
    const r = await runHealthChecks('readyz', [pingCheck, failing('etcd', 'connection refused'), ok('shutdown')]);
    assert.equal(r.status, 500);
    assert.equal(r.body, '[+]ping ok\n[-]etcd failed: reason withheld\n[+]shutdown ok\nreadyz check failed\n');
    assert.deepEqual(r.failures, [{ name: 'etcd', reason: 'connection refused' }]);
  });

  it('marks excluded checks and warns about unknown exclusions', async () => {
    const r = await runHealthChecks('healthz', [pingCheck, failing('etcd')], {
      verbose: true,
      exclude: ['etcd', 'zzz', 'aaa'],
    });
    assert.equal(r.status, 200);
    assert.equal(
      r.body,
      '[+]ping ok\n[+]etcd excluded: ok\nwarn: some health checks cannot be excluded: no matches for "aaa","zzz"\nhealthz check passed\n',
    );
  });

  it('installs ping when there are no checks', async () => {
    const r = await runHealthChecks('livez', [], { verbose: true });
    assert.equal(r.body, '[+]ping ok\nlivez check passed\n');
  });

  it('runs a single named check', async () => {
    const checks = [pingCheck, failing('etcd', 'no quorum')];
    assert.deepEqual(
      { ...(await runHealthChecks('readyz', checks, {}, 'ping')), failures: [] },
      { status: 200, body: 'ok', contentType: 'text/plain; charset=utf-8', failures: [] },
    );
    const bad = await runHealthChecks('readyz', checks, {}, 'etcd');
    assert.equal(bad.status, 500);
    assert.equal(bad.body, 'internal server error: no quorum\n');
    const missing = await runHealthChecks('readyz', checks, {}, 'nope');
    assert.equal(missing.status, 404);
  });
});
