import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';

/** CPU seconds used so far by the server process, this process, the bench databases' backends, the machine. */
interface CpuSnapshot {
  readonly at: number;
  readonly server: number;
  readonly bench: number;
  /** Per backend pid: PostgreSQL backends serving the bench's databases. */
  readonly backends: Map<number, number>;
  /** Per peer pid (etcd, the bare HTTPS baseline): the comparison servers the bench started. */
  readonly peers: Map<number, number>;
  readonly machineBusy: number;
}

export interface PhaseCpu {
  readonly phase: string;
  readonly seconds: number;
  /** Operations done in the phase, when the measure says (for CPU per operation). */
  readonly ops?: number;
  /** Cores' worth of CPU (1.0 = one core busy for the whole phase). */
  readonly serverCores: number | null;
  readonly benchCores: number;
  /** PostgreSQL backends connected to the bench's databases (the server's and the raw one). */
  readonly postgresCores: number;
  /** Peer processes the bench started for comparison (etcd, the bare HTTPS server); absent without peers. */
  readonly peerCores?: number;
  /** Everything else on the machine: PostgreSQL's WAL writer and checkpointer, other users. */
  readonly otherCores: number;
  /**
   * Operations per second this machine could reach in the phase if the server's own CPU were zero:
   * its cores divided by what everything else spent per operation (the load generator, PostgreSQL,
   * the rest). A goal above it cannot be met by any server on this machine, however cheap.
   */
  readonly freeServerCeiling?: number;
}

/** See PhaseCpu.freeServerCeiling; undefined for phases without a server or an operation count. */
export function freeServerCeiling(p: Omit<PhaseCpu, 'freeServerCeiling'>, cores = os.cpus().length): number | undefined {
  if (p.ops === undefined || p.serverCores === null || p.serverCores < 0.05) return undefined;
  const othersPerOp = ((p.benchCores + p.postgresCores + (p.peerCores ?? 0) + p.otherCores) * p.seconds) / p.ops;
  return othersPerOp > 0 ? Math.round(cores / othersPerOp) : undefined;
}

const HZ = 100; // USER_HZ on Linux

export function processSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the full line (11 and 12 after the command).
    return (Number(fields[11]) + Number(fields[12])) / HZ;
  } catch {
    return 0;
  }
}

/**
 * CPU seconds of a process and every process below it: the server with --workers is a primary and
 * its cluster workers, and the workers do the serving.
 */
export function treeSeconds(root: number): number {
  const parents = new Map<number, number>();
  try {
    for (const d of readdirSync('/proc')) {
      if (!/^\d+$/.test(d)) continue;
      try {
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        // ppid is the second field after the command.
        parents.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      } catch {
        // gone in between
      }
    }
  } catch {
    return processSeconds(root);
  }
  const inTree = new Set([root]);
  // Parents usually have lower pids, but not always: repeat until nothing joins.
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, ppid] of parents) {
      if (!inTree.has(pid) && inTree.has(ppid)) {
        inTree.add(pid);
        grew = true;
      }
    }
  }
  let total = 0;
  for (const pid of inTree) total += processSeconds(pid);
  return total;
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

/** Backends whose process title names one of the databases ("postgres: 15/main: user db host state"). */
function backendSeconds(databases: readonly string[]): Map<number, number> {
  const out = new Map<number, number>();
  if (databases.length === 0) return out;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return out;
  }
  for (const p of pids) {
    try {
      const title = readFileSync(`/proc/${p}/cmdline`, 'utf8');
      if (!title.startsWith('postgres:')) continue;
      if (!databases.some((db) => title.includes(` ${db} `))) continue;
      out.set(Number(p), processSeconds(Number(p)));
    } catch {
      // gone in between
    }
  }
  return out;
}

/**
 * Attributes CPU to phases (a phase runs from one mark to the next), so the report can say who was
 * busy: the server, this load generator, PostgreSQL, or something else. Linux only; elsewhere zero.
 * A backend that exits within a phase loses its CPU since the last mark (the bench's pools are long-lived).
 */
export class CpuPhases {
  readonly #serverPid: number | undefined;
  readonly #databases: readonly string[];
  readonly #peers = new Set<number>();
  readonly phases: PhaseCpu[] = [];
  #current: { name: string; ops?: number; start: CpuSnapshot } | null = null;

  constructor(serverPid: number | undefined, databases: readonly string[]) {
    this.#serverPid = serverPid;
    this.#databases = databases;
  }

  /** Counts `pid`'s CPU as a peer's (not as other load) from the next mark on. */
  addPeer(pid: number): void {
    this.#peers.add(pid);
  }

  #snapshot(): CpuSnapshot {
    return {
      at: performance.now(),
      server: this.#serverPid === undefined ? 0 : treeSeconds(this.#serverPid),
      bench: processSeconds(process.pid),
      backends: backendSeconds(this.#databases),
      peers: new Map([...this.#peers].map((pid) => [pid, processSeconds(pid)])),
      machineBusy: machineBusySeconds(),
    };
  }

  /** Ends the current phase (if any) and starts `name` (undefined: just end), which will do `ops` operations. */
  mark(name?: string, ops?: number): void {
    const now = this.#snapshot();
    const cur = this.#current;
    if (cur) {
      const secs = (now.at - cur.start.at) / 1000;
      if (secs > 0.05) {
        const server = now.server - cur.start.server;
        const bench = now.bench - cur.start.bench;
        let postgres = 0;
        for (const [pid, s] of now.backends) postgres += s - (cur.start.backends.get(pid) ?? 0);
        let peer = 0;
        // A peer that stopped within the phase reads 0 now: its CPU since the last mark is lost, not negative.
        for (const [pid, s] of now.peers) if (s >= (cur.start.peers.get(pid) ?? Infinity)) peer += s - cur.start.peers.get(pid)!;
        const busy = now.machineBusy - cur.start.machineBusy;
        const r = (x: number) => Number((x / secs).toFixed(2));
        this.phases.push({
          phase: cur.name,
          seconds: Number(secs.toFixed(2)),
          ...(cur.ops !== undefined ? { ops: cur.ops } : {}),
          serverCores: this.#serverPid === undefined ? null : r(server),
          benchCores: r(bench),
          postgresCores: r(postgres),
          ...(this.#peers.size > 0 ? { peerCores: r(peer) } : {}),
          otherCores: r(Math.max(0, busy - server - bench - postgres - peer)),
        });
      }
    }
    this.#current = name === undefined ? null : { name, ops, start: now };
  }

  /** Phases of the same name (interleaved rounds) merged: seconds summed, cores weighted by time. */
  aggregated(): PhaseCpu[] {
    const byName = new Map<string, PhaseCpu[]>();
    for (const p of this.phases) byName.set(p.phase, [...(byName.get(p.phase) ?? []), p]);
    return [...byName].map(([phase, list]) => {
      const seconds = list.reduce((s, p) => s + p.seconds, 0);
      const w = (f: (p: PhaseCpu) => number) => Number((list.reduce((s, p) => s + f(p) * p.seconds, 0) / seconds).toFixed(2));
      const ops = list.every((p) => p.ops !== undefined) ? list.reduce((s, p) => s + (p.ops ?? 0), 0) : undefined;
      const merged = {
        phase,
        seconds: Number(seconds.toFixed(2)),
        ...(ops !== undefined ? { ops } : {}),
        serverCores: list[0].serverCores === null ? null : w((p) => p.serverCores ?? 0),
        benchCores: w((p) => p.benchCores),
        postgresCores: w((p) => p.postgresCores),
        ...(list.some((p) => p.peerCores !== undefined) ? { peerCores: w((p) => p.peerCores ?? 0) } : {}),
        otherCores: w((p) => p.otherCores),
      };
      const ceiling = freeServerCeiling(merged);
      return { ...merged, ...(ceiling !== undefined ? { freeServerCeiling: ceiling } : {}) };
    });
  }

  format(): string {
    const withPeer = this.#peers.size > 0;
    const head = ['phase', 'secs', 'server', 'bench', 'postgres', ...(withPeer ? ['peer'] : []), 'other', 'µs CPU/op: server', 'bench', 'postgres', ...(withPeer ? ['peer'] : []), 'ops/s with a free server'];
    const perOp = (p: PhaseCpu, cores: number | null) =>
      p.ops === undefined || cores === null ? '' : String(Math.round((cores * p.seconds * 1e6) / p.ops));
    const rows = this.aggregated().filter((p) => !p.phase.endsWith('(warm-up)')).map((p) => [
      p.phase,
      p.seconds.toFixed(1),
      p.serverCores === null ? '(in bench)' : p.serverCores.toFixed(2),
      p.benchCores.toFixed(2),
      p.postgresCores.toFixed(2),
      ...(withPeer ? [(p.peerCores ?? 0).toFixed(2)] : []),
      p.otherCores.toFixed(2),
      perOp(p, p.serverCores),
      perOp(p, p.benchCores),
      perOp(p, p.postgresCores),
      ...(withPeer ? [perOp(p, p.peerCores ?? 0)] : []),
      p.freeServerCeiling === undefined ? '' : p.freeServerCeiling.toLocaleString('en-US'),
    ]);
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    const pad = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
    return [pad(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(pad)].join('\n');
  }
}
