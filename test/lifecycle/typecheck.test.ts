import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../helpers/npm-start.ts';

// The build strips types without checking them (scripts/compile.mjs), so the suite holds the type check:
// `npm run typecheck` over everything tsconfig.json includes (sources, tests, bench, scripts).
test('the whole project type-checks (npm run typecheck)', { timeout: 300_000 }, () => {
  const tsc = path.join(path.dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '--noEmit', '-p', path.join(ROOT, 'tsconfig.json')], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
});
