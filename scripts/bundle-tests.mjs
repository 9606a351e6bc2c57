// Bundles the test tree's entry points (every test file, and the server's command-line entries that
// tests start as child processes) over their file-by-file compiled twins, for scripts/test.mjs.
//
// Why: every test file is its own Node process, and so is every server a test starts. Loading the
// ~1,300 modules a server test imports one by one (resolve, stat, read, compile, link each) costs
// about 1.4 s of CPU per process on this machine; loaded as a bundle split into shared chunks it
// costs about 0.5 s. Over the suite's ~350 files and the servers they start, that is minutes of CPU
// on a 2-core machine where the suite is CPU-bound.
//
// What stays as it was: every module keeps the `import.meta.url` of its place in the tree (pinned at
// build time), so paths computed from it (proto/, migrations/, the checkout's root) find what they
// found before; packages that find their own files at run time stay outside the bundle.
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { COMMAND_ENTRIES, bundleOptions, pinImportMeta } from './compile.mjs';

const require = createRequire(import.meta.url);

/** The chunks the entries share, under the tree's root. */
export const CHUNK_DIR = '.bundle-chunks';

/**
 * Bundles `testFiles` (paths relative to `root`) and the command entries into `outDir`, each at its own
 * place (`test/x/y.test.js`, `src/main.js`), replacing the file-by-file output there. `finalRoot` is
 * where `outDir` will be when the run starts (it is built under another name and renamed).
 */
export async function bundleTests(root, testFiles, outDir, finalRoot) {
  const { build } = require('esbuild');
  await build({
    entryPoints: [...testFiles, ...COMMAND_ENTRIES].map((f) => path.join(root, f)),
    outdir: outDir,
    outbase: root,
    chunkNames: `${CHUNK_DIR}/[name]-[hash]`,
    splitting: true,
    ...bundleOptions(root),
    // A chunk's own URL says nothing of where its modules' twins are: each gets its twin's, absolute.
    plugins: [pinImportMeta(root, (file) => JSON.stringify(pathToFileURL(path.join(finalRoot, file)).href))],
  });
}
