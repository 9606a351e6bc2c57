// What the compiled output in dist/ is made from, and a digest of it: the build records the digest,
// and the launcher rebuilds when the sources no longer match it. Plain JavaScript, so that it runs
// before anything is compiled and without tsx.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '..');
export const DIST = path.join(ROOT, 'dist');
export const STAMP = path.join(DIST, '.build-digest');

/** Directories compiled (TypeScript) or copied (JSON read at run time) into dist/. */
export const SOURCE_DIRS = ['src', 'migrations', 'seeds', 'proto'];
const CONFIG_FILES = ['tsconfig.json', 'scripts/build.mjs', 'scripts/compile.mjs', 'scripts/build-inputs.mjs'];

/**
 * A .js (or its map) beside a .ts of the same name is that file compiled: the test tree of
 * scripts/test.mjs holds both, and its sources are the same as the checkout's.
 */
function isCompiledTwin(dir, name) {
  const stem = name.endsWith('.js') ? name.slice(0, -3) : name.endsWith('.js.map') ? name.slice(0, -7) : undefined;
  return stem !== undefined && existsSync(path.join(dir, `${stem}.ts`));
}

function walk(dir, out) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, out);
    else if (entry.isFile() && !isCompiledTwin(dir, entry.name)) out.push(full);
  }
  return out;
}

/** Every input file, relative to the root, in a stable order. */
export function inputFiles() {
  const files = [];
  for (const dir of SOURCE_DIRS) if (existsSync(path.join(ROOT, dir))) walk(path.join(ROOT, dir), files);
  for (const f of CONFIG_FILES) if (existsSync(path.join(ROOT, f))) files.push(path.join(ROOT, f));
  return files.map((f) => path.relative(ROOT, f)).sort();
}

/** sha256 over the names and contents of the inputs; undefined when the sources are not here (a deployed dist/). */
export function sourceDigest() {
  const files = inputFiles();
  if (!files.some((f) => f.startsWith('src' + path.sep))) return undefined;
  const hash = createHash('sha256');
  for (const f of files) {
    hash.update(f).update('\0').update(readFileSync(path.join(ROOT, f))).update('\0');
  }
  return hash.digest('hex');
}

/** The digest the last successful build recorded, if any. */
export function builtDigest() {
  try {
    return readFileSync(STAMP, 'utf8').trim();
  } catch {
    return undefined;
  }
}
