// `npm test`: compiles the project's TypeScript to JavaScript once, into .test-build/, and runs the
// test files from there with plain `node --test`.
//
// Why: every test file is its own Node process, and under `--import tsx` each of the ~700 modules a
// server test loads goes through tsx's resolve and load hooks, which Node 20 runs on a separate
// thread (a round trip per import). That costs 1.5–2 s of CPU per file even with tsx's transform
// cache warm, about half of the whole suite's CPU on a 2-core machine. Compiling once with esbuild
// (the transformer tsx itself uses, so the JavaScript is the same) and loading plain .js removes it.
//
// The tree is a full copy of the project (sources beside their .js), so paths computed from
// import.meta.url, JSON and proto files, and child processes started as
// `node --import tsx src/main.ts` all find what they find in the repository; its node_modules is a
// link to the project's.
//
// Arguments are passed to `node --test`; test files may be named by their .ts paths
// (`npm test -- test/http/watch.test.ts`). With none, every test/*/*.test.ts runs.
// TEST_CONCURRENCY (default 3) and TEST_SOURCE_MAPS=1 (stack traces in .ts lines) adjust the run.
import { spawn } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build as buildDist } from './build.mjs';
import { bundleTests } from './bundle-tests.mjs';
import { compileTypeScript } from './compile.mjs';
import { DIST, builtDigest, sourceDigest } from './build-inputs.mjs';
import { dropRunDatabases, newRunId } from './test-run-databases.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, '.test-build');
/** Directories that are not the project's sources (or are this build's own output). */
const SKIP = new Set(['node_modules', '.git', 'dist', 'data', '.test-build', 'tmp']);

/** Every file of the project, relative to ROOT. */
function projectFiles(dir = '') {
  const files = [];
  for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (SKIP.has(entry.name) || entry.name.startsWith('dist.build-') || entry.name.startsWith('.test-build')) continue;
      files.push(...projectFiles(rel));
    } else if (entry.isFile()) {
      files.push(rel);
    }
  }
  return files;
}

async function compile() {
  const started = Date.now();
  // Built beside the final place and swapped in, so that a run stopped half-way leaves no half tree.
  const staging = `${OUT}-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  const files = projectFiles();
  for (const rel of files) {
    mkdirSync(path.join(staging, path.dirname(rel)), { recursive: true });
    copyFileSync(path.join(ROOT, rel), path.join(staging, rel));
  }
  const sources = files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
  compileTypeScript(ROOT, sources, staging);
  // The test files and the server's entries then run as bundles (see bundle-tests.mjs for why).
  await bundleTests(ROOT, sources.filter(isTestFile), staging, OUT);
  // The checkout's dist/, when it is built from these sources (npm install builds it), spares the
  // tests that run `npm start` a build of their own.
  // Without one (an install that skipped its scripts), the tree gets its own: a few seconds once, where
  // every such test building it would cost each of them as much.
  if (existsSync(DIST) && builtDigest() === sourceDigest()) cpSync(DIST, path.join(staging, 'dist'), { recursive: true });
  else if ((await buildDist({ quiet: true, outDir: path.join(staging, 'dist') })) !== 0) process.exit(1);
  // Tests that build a checkout of their own link the project's node_modules from beside the sources.
  if (existsSync(path.join(ROOT, 'node_modules'))) symlinkSync(path.join(ROOT, 'node_modules'), path.join(staging, 'node_modules'), 'dir');
  rmSync(OUT, { recursive: true, force: true });
  renameSync(staging, OUT);
  process.stderr.write(`test: compiled ${sources.length} files into .test-build/ in ${Date.now() - started} ms\n`);
}

/** A test file the runner starts: test/<dir>/<name>.test.ts. */
function isTestFile(rel) {
  const parts = rel.split(path.sep);
  return parts.length === 3 && parts[0] === 'test' && parts[2].endsWith('.test.ts');
}

/** `test/x/y.test.ts` (as a user names it) → `.test-build/test/x/y.test.js`; options pass through. */
function mapArgument(arg) {
  if (arg.startsWith('-') || !arg.endsWith('.ts')) return arg;
  return path.join(OUT, path.relative(ROOT, path.resolve(arg))).replace(/\.ts$/, '.js');
}

function defaultTestFiles() {
  const dir = path.join(OUT, 'test');
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) =>
      readdirSync(path.join(dir, d.name))
        .filter((f) => f.endsWith('.test.js'))
        .sort()
        .map((f) => path.join(dir, d.name, f)),
    )
    .sort();
}

await compile();
const args = process.argv.slice(2).map(mapArgument);
const named = args.some((a) => !a.startsWith('-') && a.endsWith('.js'));
// Files run side by side: most of a file's time is spent waiting on PostgreSQL, a server or kubectl.
const concurrency = process.env.TEST_CONCURRENCY ?? '3';
// Source maps are written beside the .js, but not applied by default: reading them costs ~0.3 s of
// CPU per test file. TEST_SOURCE_MAPS=1 maps stack traces back to the .ts lines.
const maps = process.env.TEST_SOURCE_MAPS === '1' ? ['--enable-source-maps'] : [];
// Without a reporter named, Node's own default (spec on a terminal, TAP otherwise) goes on, and a
// summary of the failures is printed after it, where the tail of a CI log shows it.
const reporters = args.some((a) => a.startsWith('--test-reporter'))
  ? []
  : [
      `--test-reporter=${process.stdout.isTTY ? 'spec' : 'tap'}`,
      '--test-reporter-destination=stdout',
      `--test-reporter=${path.join(ROOT, 'scripts', 'failure-summary-reporter.mjs')}`,
      '--test-reporter-destination=stdout',
    ];
const testArgs = [...maps, '--test', `--test-concurrency=${concurrency}`, ...reporters, ...args, ...(named ? [] : defaultTestFiles())];
const run = newRunId();
const child = spawn(process.execPath, testArgs, { cwd: ROOT, stdio: 'inherit', env: { ...process.env, PGKUBE_TEST_RUN: run } });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', async (code, signal) => {
  await dropRunDatabases(run);
  process.exit(code ?? (signal ? 1 : 0));
});
