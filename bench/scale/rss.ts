import { readFileSync } from 'node:fs';

/** A process's resident set in MiB (VmRSS), or NaN once it is gone. Linux only. */
export function rssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/**
 * Samples a process's RSS every `everyMs` and keeps the peak per phase, so the report can say what
 * holding N objects, opening W watchers or answering one big list cost in memory.
 */
export class RssSampler {
  #pid: number;
  #phase = 'start';
  readonly peaks = new Map<string, { peakMiB: number; lastMiB: number; samples: number }>();
  readonly #timer: NodeJS.Timeout;

  constructor(pid: number, everyMs = 250) {
    this.#pid = pid;
    this.#timer = setInterval(() => this.sample(), everyMs);
    this.#timer.unref();
  }

  /** Follows another process (the server after a restart). */
  follow(pid: number): void {
    this.#pid = pid;
  }

  phase(name: string): void {
    this.sample();
    this.#phase = name;
    this.sample();
  }

  sample(): number {
    const mib = rssMiB(this.#pid);
    if (Number.isNaN(mib)) return mib;
    const p = this.peaks.get(this.#phase) ?? { peakMiB: 0, lastMiB: 0, samples: 0 };
    p.peakMiB = Math.max(p.peakMiB, mib);
    p.lastMiB = mib;
    p.samples++;
    this.peaks.set(this.#phase, p);
    return mib;
  }

  stop(): Record<string, { peakMiB: number; lastMiB: number }> {
    clearInterval(this.#timer);
    return Object.fromEntries([...this.peaks].map(([k, v]) => [k, { peakMiB: Math.round(v.peakMiB), lastMiB: Math.round(v.lastMiB) }]));
  }
}
