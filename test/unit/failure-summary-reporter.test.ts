import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const REPORTER = fileURLToPath(new URL('../../scripts/failure-summary-reporter.mjs', import.meta.url));

/** Runs `node --test` on the given files with only the summary reporter; returns its output. */
function summaryOf(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'summary-'));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
    // Without the parent runner's NODE_TEST_CONTEXT, or the child would report to it instead of through the reporter.
    const { NODE_TEST_CONTEXT: _parent, ...env } = process.env;
    const run = spawnSync(process.execPath, ['--test', `--test-reporter=${REPORTER}`, '--test-reporter-destination=stdout', ...Object.keys(files)], { cwd: dir, env, encoding: 'utf8' });
    return run.stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('the summary names each failed test once, with its suites, file and error; passing runs print nothing', () => {
  const out = summaryOf({
    'a.test.mjs': `import { describe, it } from 'node:test'; import assert from 'node:assert';
describe('outer', () => { describe('inner', () => { it('breaks', () => assert.equal(1, 2)); }); it('holds', () => {}); });`,
    'b.test.mjs': `import test from 'node:test'; test('fine', () => {});`,
  });
  assert.match(out, /# 1 failed:/);
  assert.match(out, /✖ outer › inner › breaks/);
  assert.match(out, /a\.test\.mjs:2/);
  assert.match(out, /1 == 2|1 !== 2/);
  // The enclosing suites fail only because of it: not listed again.
  assert.doesNotMatch(out, /✖ outer\n|✖ outer › inner\n/);
  assert.equal(summaryOf({ 'c.test.mjs': `import test from 'node:test'; test('fine', () => {});` }), '');
});
