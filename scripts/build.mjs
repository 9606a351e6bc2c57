// `npm run build`: compiles src/, migrations/ and seeds/ into dist/ with source maps, copies the JSON
// files the server reads at run time, and records the digest of the sources it was built from.
// The build goes to a temporary directory that replaces dist/ only when it succeeded, so a failed or
// concurrent build never leaves a half-written dist/ behind.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DIST, ROOT, SOURCE_DIRS, STAMP, builtDigest, sourceDigest } from './build-inputs.mjs';

/** The TypeScript compiler's entry point, or undefined where dev dependencies were not installed. */
function findTsc() {
  try {
    const pkg = createRequire(import.meta.url).resolve('typescript/package.json');
    return path.join(path.dirname(pkg), 'bin', 'tsc');
  } catch {
    return undefined;
  }
}

/** JSON files under the source directories: read with fs at run time, so tsc does not copy them. */
function copyJsonAssets(outDir) {
  for (const dir of SOURCE_DIRS) {
    const from = path.join(ROOT, dir);
    if (!existsSync(from)) continue;
    cpSync(from, path.join(outDir, dir), {
      recursive: true,
      filter: (src) => statSync(src).isDirectory() || src.endsWith('.json'),
    });
  }
}

/**
 * Builds dist/; returns an exit code. With `ifPossible` (the `prepare` step of `npm install`), a
 * missing TypeScript (a production install) is not an error: a shipped dist/ is used as it is.
 */
export function build({ ifPossible = false, quiet = false } = {}) {
  const digest = sourceDigest();
  // `npm ci` in a container's first stage runs before the sources are copied in: nothing to build yet.
  if (ifPossible && digest === undefined) return 0;
  const tsc = findTsc();
  if (!tsc) {
    if (ifPossible) return 0;
    process.stderr.write('build: TypeScript is not installed; run "npm install" (with dev dependencies) first\n');
    return 1;
  }
  const outDir = `${DIST}.build-${process.pid}`;
  rmSync(outDir, { recursive: true, force: true });
  const started = Date.now();
  const result = spawnSync(process.execPath, [tsc, '-p', path.join(ROOT, 'tsconfig.build.json'), '--outDir', outDir], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (result.status !== 0) {
    rmSync(outDir, { recursive: true, force: true });
    process.stderr.write(`build: tsc failed (exit ${result.status ?? result.signal}); dist/ is unchanged\n`);
    return 1;
  }
  copyJsonAssets(outDir);
  if (digest) writeFileSync(path.join(outDir, path.basename(STAMP)), `${digest}\n`);
  try {
    rmSync(DIST, { recursive: true, force: true });
    renameSync(outDir, DIST);
  } catch (err) {
    // Another build finished first; its output is as good as ours when it was built from the same sources.
    rmSync(outDir, { recursive: true, force: true });
    if (builtDigest() !== digest) throw err;
  }
  if (!quiet) process.stderr.write(`build: dist/ compiled in ${Date.now() - started} ms\n`);
  return 0;
}

function isRunning(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

/** Outputs of builds that were killed half-way (their process is gone). */
function removeStrayBuilds() {
  for (const name of readdirSync(ROOT)) {
    const m = /^dist\.build-(\d+)$/.exec(name);
    if (m && !isRunning(Number(m[1]))) rmSync(path.join(ROOT, name), { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  removeStrayBuilds();
  process.exit(build({ ifPossible: process.argv.includes('--if-possible') }));
}
