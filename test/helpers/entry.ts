import path from 'node:path';
import { ROOT } from './npm-start.ts';

/**
 * Whether this module runs compiled (scripts/test.mjs's tree, where every .ts has a .js beside it)
 * rather than through tsx from the checkout.
 */
const COMPILED = import.meta.url.endsWith('.js');

/**
 * The node arguments that run the project's TypeScript files (`src/main.ts`, test files) in a child
 * process: its compiled twin when the tests run compiled, as the parent does, or the source
 * through tsx. The compiled twin is a bundle for the server's entries and the test files, so a child
 * server does not pay tsx's per-module hooks or the loading of ~1,300 modules one by one.
 */
export function nodeArgsFor(...files: string[]): string[] {
  const full = files.map((f) => path.resolve(ROOT, f));
  return COMPILED ? full.map((f) => f.replace(/\.ts$/, '.js')) : ['--import', 'tsx', ...full];
}
