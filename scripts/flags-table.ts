import { readFileSync, writeFileSync } from 'node:fs';
import { FLAGS } from '../src/config.ts';

/**
 * The flag table the README carries (a test checks the README lists every flag): printed, or with
 * `--write` put in place of the README's current table.
 */
const table = FLAGS.map((f) => `| \`--${f.name}\` | \`${f.env}\` | \`${f.default || '""'}\` | ${f.help} |`);
if (process.argv.includes('--write')) {
  const lines = readFileSync('README.md', 'utf8').split('\n');
  const row = /^\| `--[a-z0-9-]+` \| `[A-Z0-9_]+` \|/;
  const first = lines.findIndex((l) => row.test(l));
  let last = first;
  while (row.test(lines[last + 1] ?? '')) last++;
  if (first < 0) throw new Error('README.md has no flag table');
  lines.splice(first, last - first + 1, ...table);
  writeFileSync('README.md', lines.join('\n'));
} else {
  process.stdout.write(table.join('\n') + '\n');
}
