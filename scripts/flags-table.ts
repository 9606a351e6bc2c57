import { FLAGS } from '../src/config.ts';

/** Prints the flag table the README carries (a test checks the README lists every flag). */
for (const f of FLAGS) process.stdout.write(`| \`--${f.name}\` | \`${f.env}\` | \`${f.default || '""'}\` | ${f.help} |\n`);
