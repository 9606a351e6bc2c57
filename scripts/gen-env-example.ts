import { writeFileSync } from 'node:fs';
import { envExample } from '../src/config.ts';

/** Regenerates .env.example from the flag table (a test checks they agree). */
writeFileSync(new URL('../.env.example', import.meta.url), envExample());
