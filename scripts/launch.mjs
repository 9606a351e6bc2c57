// The production entry point behind `npm start`, `npm run migrate` and `npm run psql`:
//   node scripts/launch.mjs <command> [flags…]
// runs the compiled dist/src/<entry>.js with source maps in this very process (no tsx, no child
// process, so signals sent to npm's child reach the server itself). When the sources changed since
// dist/ was built, it builds first.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from './build.mjs';
import { DIST, builtDigest, sourceDigest } from './build-inputs.mjs';

const ENTRIES = { server: 'src/main.js', migrate: 'src/migrate-cli.js', psql: 'src/psql-cli.js' };

const [command, ...rest] = process.argv.slice(2);
const entry = ENTRIES[command];
if (!entry) {
  process.stderr.write(`usage: node scripts/launch.mjs ${Object.keys(ENTRIES).join('|')} [flags…]\n`);
  process.exit(2);
}

const digest = sourceDigest();
// No sources beside dist/ (a deployed build): run what is there.
if (digest !== undefined && builtDigest() !== digest) {
  process.stderr.write('dist/ is missing or older than the sources; building it first\n');
  if ((await build()) !== 0) process.exit(1);
}

// The entry reads its flags from process.argv.slice(2), as when it is run directly.
process.argv = [process.argv[0], path.join(DIST, entry), ...rest];
process.setSourceMapsEnabled(true);
await import(pathToFileURL(path.join(DIST, entry)).href);
