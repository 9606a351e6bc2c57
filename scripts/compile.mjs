// TypeScript → JavaScript for both dist/ (scripts/build.mjs) and the test tree (scripts/test.mjs), the
// one way: esbuild, file by file (no bundling), ES modules for Node 20, linked source maps. esbuild only
// strips types; `npm run typecheck` (and test/lifecycle/typecheck.test.ts) is where types are checked.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

// esbuild is loaded only when something is compiled: `npm start` imports this module through
// build.mjs on every start, and most starts find dist/ current (loading esbuild costs ~45 ms).
const require = createRequire(import.meta.url);

/** Whether the compiler is installed (it is a dev dependency: a production install has none). */
export function compilerInstalled() {
  try {
    require.resolve('esbuild');
    return true;
  } catch {
    return false;
  }
}

/**
 * Relative imports name .ts files (allowImportingTsExtensions); the compiled tree loads their .js
 * twins. esbuild prints every import with double quotes, so the specifiers are found reliably.
 */
function rewriteImports(code) {
  return code.replace(/((?:\bfrom|\bimport)\s*\(?\s*)"(\.\.?\/[^"]*?)\.ts"/g, '$1"$2.js"');
}

/**
 * Compiles `files` (paths relative to `root`) into `outDir`, keeping their place under `root`.
 * Throws esbuild's error (with the file, line and message of each problem) when a file does not parse.
 */
export function compileTypeScript(root, files, outDir) {
  const { buildSync } = require('esbuild');
  const result = buildSync({
    entryPoints: files.map((f) => path.join(root, f)),
    outdir: outDir,
    outbase: root,
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    tsconfig: path.join(root, 'tsconfig.json'),
    write: false,
    logLevel: 'silent',
  });
  for (const file of result.outputFiles) {
    mkdirSync(path.dirname(file.path), { recursive: true });
    writeFileSync(file.path, file.path.endsWith('.js') ? rewriteImports(file.text) : file.contents);
  }
  return result.outputFiles.length;
}
