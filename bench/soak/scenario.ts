import { readFileSync } from 'node:fs';
import type { BenchServer } from '../server.ts';

/** One figure a scenario reports. */
export interface SoakFigure {
  readonly name: string;
  readonly value: number | string;
  readonly unit?: string;
}

export interface SoakOptions {
  /** The server the runner started for this scenario (with the scenario's flags). */
  readonly server: BenchServer;
  /** Progress lines (stderr). */
  log(message: string): void;
}

/** A load scenario of `npm run soak`: one file each, registered in run.ts's SCENARIOS. */
export interface SoakScenario {
  readonly name: string;
  readonly description: string;
  /** Server flags this scenario needs. */
  readonly flags?: readonly string[];
  run(options: SoakOptions): Promise<SoakFigure[]>;
}

/** Resident memory of a process, in MiB (Linux /proc). */
export function rssMiB(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid ?? process.pid}/status`, 'utf8');
  const kb = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1] ?? Number.NaN);
  return Math.round((kb / 1024) * 10) / 10;
}

/** Samples a process's RSS every `everyMs` until stopped; reports the highest. */
export function rssPeak(pid: number | undefined, everyMs = 50): { stop(): number } {
  let peak = rssMiB(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssMiB(pid));
    } catch {
      // the process is gone
    }
  }, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      return peak;
    },
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
