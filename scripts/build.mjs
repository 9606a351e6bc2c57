// `npm run build`: compiles src/, migrations/ and seeds/ into dist/ with source maps (the command
// entries bundled, see scripts/compile.mjs), copies the JSON files the server reads at run time, and
// records the digest of the sources it was built from.
// The build goes to a temporary directory that replaces dist/ only when it succeeded, so a failed or
// concurrent build never leaves a half-written dist/ behind.
import { cpSync, existsSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DIST, ROOT, SOURCE_DIRS, STAMP, builtDigest, inputFiles, sourceDigest } from './build-inputs.mjs';
import { bundleEntries, compileTypeScript, compilerInstalled } from './compile.mjs';
import { isRunning } from './is-running.mjs';

/** JSON files under the source directories: read with fs at run time, so they are copied as they are. */
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

/** The TypeScript files of the source directories, relative to the root. */
function typeScriptSources() {
  return inputFiles().filter((f) => SOURCE_DIRS.some((d) => f.startsWith(d + path.sep)) && f.endsWith('.ts') && !f.endsWith('.d.ts'));
}

/**
 * Builds dist/ (or `outDir`); returns an exit code. With `ifPossible` (the `prepare` step of
 * `npm install`), a missing compiler (a production install) is not an error: a shipped dist/ is used
 * as it is. The compiler strips types without checking them (`npm run typecheck` does), so a start
 * never waits for a whole-program type check.
 */
export async function build({ ifPossible = false, quiet = false, outDir = DIST } = {}) {
  const digest = sourceDigest();
  // `npm ci` in a container's first stage runs before the sources are copied in: nothing to build yet.
  if (ifPossible && digest === undefined) return 0;
  if (!compilerInstalled()) {
    if (ifPossible) return 0;
    process.stderr.write('build: esbuild is not installed; run "npm install" (with dev dependencies) first\n');
    return 1;
  }
  const staging = `${outDir}.build-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  const started = Date.now();
  try {
    compileTypeScript(ROOT, typeScriptSources(), staging);
    // The command entries (dist/src/main.js …) then run as one file each (see bundleEntries for why).
    await bundleEntries(ROOT, staging);
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    const problems = (err.errors ?? []).map((e) => `${e.location ? `${e.location.file}:${e.location.line}:${e.location.column}: ` : ''}${e.text}`);
    process.stderr.write(`${problems.length > 0 ? problems.join('\n') : String(err)}\nbuild: compiling failed; dist/ is unchanged\n`);
    return 1;
  }
  copyJsonAssets(staging);
  if (digest) writeFileSync(path.join(staging, path.basename(STAMP)), `${digest}\n`);
  try {
    rmSync(outDir, { recursive: true, force: true });
    renameSync(staging, outDir);
  } catch (err) {
    // Another build finished first; its output is as good as ours when it was built from the same sources.
    rmSync(staging, { recursive: true, force: true });
    if (outDir !== DIST || builtDigest() !== digest) throw err;
  }
  if (!quiet) process.stderr.write(`build: dist/ compiled in ${Date.now() - started} ms\n`);
  return 0;
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
  process.exit(await build({ ifPossible: process.argv.includes('--if-possible') }));
}
