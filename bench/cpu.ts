import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

/** CPU seconds used so far: by the server process, by this process, and by the whole machine. */
interface CpuSnapshot {
  readonly at: number;
  readonly server: number;
  readonly bench: number;
  readonly machineBusy: number;
}

export interface PhaseCpu {
  readonly phase: string;
  readonly seconds: number;
  /** Cores' worth of CPU (1.0 = one core busy for the whole phase). */
  readonly serverCores: number | null;
  readonly benchCores: number;
  /** Everything else on the machine: mostly PostgreSQL. */
  readonly otherCores: number;
}

const HZ = 100; // USER_HZ on Linux

function processSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the full line (11 and 12 after the command).
    return (Number(fields[11]) + Number(fields[12])) / HZ;
  } catch {
    return 0;
  }
}

function machineBusySeconds(): number {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    const idle = v[3] + (v[4] ?? 0);
    return (v.slice(0, 8).reduce((s, x) => s + x, 0) - idle) / HZ;
  } catch {
    return 0;
  }
}

/**
 * Attributes CPU to phases (a phase runs from one mark to the next), so the report can say who was
 * busy: the server, this load generator, or PostgreSQL. Linux only; elsewhere the figures are zero.
 */
export class CpuPhases {
  readonly #serverPid: number | undefined;
  readonly phases: PhaseCpu[] = [];
  #current: { name: string; start: CpuSnapshot } | null = null;

  constructor(serverPid: number | undefined) {
    this.#serverPid = serverPid;
  }

  #snapshot(): CpuSnapshot {
    return {
      at: performance.now(),
      server: this.#serverPid === undefined ? 0 : processSeconds(this.#serverPid),
      bench: processSeconds(process.pid),
      machineBusy: machineBusySeconds(),
    };
  }

  /** Ends the current phase (if any) and starts `name` (undefined: just end). */
  mark(name?: string): void {
    const now = this.#snapshot();
    const cur = this.#current;
    if (cur) {
      const secs = (now.at - cur.start.at) / 1000;
      if (secs > 0.05) {
        const server = now.server - cur.start.server;
        const bench = now.bench - cur.start.bench;
        const busy = now.machineBusy - cur.start.machineBusy;
        const r = (x: number) => Number((x / secs).toFixed(2));
        this.phases.push({
          phase: cur.name,
          seconds: Number(secs.toFixed(2)),
          serverCores: this.#serverPid === undefined ? null : r(server),
          benchCores: r(bench),
          otherCores: r(Math.max(0, busy - server - bench)),
        });
      }
    }
    this.#current = name === undefined ? null : { name, start: now };
  }

  format(): string {
    const head = ['phase', 'secs', 'server', 'bench', 'other (≈PostgreSQL)'];
    const rows = this.phases.map((p) => [p.phase, p.seconds.toFixed(1), p.serverCores === null ? '(in bench)' : p.serverCores.toFixed(2), p.benchCores.toFixed(2), p.otherCores.toFixed(2)]);
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    const pad = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
    return [pad(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(pad)].join('\n');
  }
}
