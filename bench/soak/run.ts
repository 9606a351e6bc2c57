/**
 * `npm run soak [scenario …]`: the load scenarios of issue #7 at full size, each against a server of
 * its own (the compiled server as a child process, with the scenario's flags), printing their figures.
 * Default: every scenario. The scenarios are files beside this one, registered in SCENARIOS.
 */
import { performance } from 'node:perf_hooks';
import { startBenchServer } from '../server.ts';
import { concurrentLists } from './concurrent-lists.ts';
import { frozenDatabase } from './frozen-database.ts';
import type { SoakScenario } from './scenario.ts';
import { stalledWatchers } from './stalled-watchers.ts';
import { tricklingBodies } from './trickling-bodies.ts';

export const SCENARIOS: SoakScenario[] = [stalledWatchers, concurrentLists, frozenDatabase, tricklingBodies];

const started = performance.now();
function log(message: string): void {
  process.stderr.write(`[soak ${((performance.now() - started) / 1000).toFixed(1).padStart(6)}s] ${message}\n`);
}

async function main(): Promise<void> {
  const names = process.argv.slice(2);
  const unknown = names.filter((n) => !SCENARIOS.some((s) => s.name === n));
  if (unknown.length > 0) throw new Error(`unknown scenario ${unknown.join(', ')}; known: ${SCENARIOS.map((s) => s.name).join(', ')}`);
  const chosen = names.length > 0 ? SCENARIOS.filter((s) => names.includes(s.name)) : SCENARIOS;
  for (const scenario of chosen) {
    log(`${scenario.name}: ${scenario.description}`);
    const server = await startBenchServer('child', [...(scenario.flags ?? [])]);
    try {
      const figures = await scenario.run({ server, log: (m) => log(`${scenario.name}: ${m}`) });
      const width = Math.max(...figures.map((f) => f.name.length));
      process.stdout.write(`\n${scenario.name}: ${scenario.description}\n`);
      for (const f of figures) process.stdout.write(`  ${f.name.padEnd(width)}  ${f.value}${f.unit ? ` ${f.unit}` : ''}\n`);
      process.stdout.write('\n');
    } finally {
      await server.stop();
    }
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
