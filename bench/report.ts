import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { PhaseCpu } from './cpu.ts';

/** One line of the results table: the server's figure beside raw PostgreSQL's. */
export interface Row {
  readonly id: string;
  readonly metric: string;
  readonly unit: string;
  readonly server: number | null;
  readonly raw: number | null;
  /** Which way is better, so the ratio can be read either way. */
  readonly better: 'higher' | 'lower';
  /** What the raw figure is (and anything else needed to read the row). */
  readonly note?: string;
  readonly details?: unknown;
  /** The same work done by etcd as kube-apiserver drives it (`--peer etcd`); null: no etcd equivalent. */
  readonly etcd?: number | null;
  readonly etcdNote?: string;
  readonly etcdDetails?: unknown;
}

export interface Report {
  readonly startedAt: string;
  readonly wallClockSeconds: number;
  readonly machine: Record<string, string | number>;
  readonly config: Record<string, unknown>;
  readonly rows: readonly (Row & { ratio: number | null; ratioEtcd?: number | null })[];
  /** CPU by phase (see cpu.ts). */
  readonly cpu?: readonly PhaseCpu[];
  /** Measured phases during which other work on the machine took more than a quarter core. */
  readonly disturbedRounds?: readonly { phase: string; round: number; seconds: number; otherCores: number }[];
  readonly failures?: readonly string[];
}

/** server / raw: above 1 is slower for latencies, below 1 is slower for throughputs. */
export function ratioOf(row: Row): number | null {
  // NaN: a figure without samples (a p99 of a client none of whose requests succeeded).
  if (row.server === null || row.raw === null || row.raw === 0 || Number.isNaN(row.server) || Number.isNaN(row.raw)) return null;
  return Number((row.server / row.raw).toFixed(2));
}

function fmt(n: number | null): string {
  if (n === null || Number.isNaN(n)) return '—';
  if (Math.abs(n) >= 100) return Math.round(n).toLocaleString('en-US');
  if (Math.abs(n) >= 10) return n.toFixed(1);
  return n.toFixed(2);
}

/** server / etcd, read like ratioOf; null when the row has no etcd figure. */
export function ratioEtcdOf(row: Row): number | null {
  if (row.server === null || row.etcd === undefined || row.etcd === null || row.etcd === 0 || Number.isNaN(row.server) || Number.isNaN(row.etcd)) return null;
  return Number((row.server / row.etcd).toFixed(2));
}

/**
 * A plain-text table: metric, server figure, raw PostgreSQL figure, ratio (and, when any row has one,
 * the etcd figure and the ratio to it); notes underneath.
 */
export function formatTable(rows: readonly Row[]): string {
  const withEtcd = rows.some((r) => r.etcd !== undefined);
  const header = ['metric', 'unit', 'server', 'raw PostgreSQL', 'server/raw', ...(withEtcd ? ['etcd', 'server/etcd'] : [])];
  const verdict = (ratio: number | null, r: Row, what: string) =>
    ratio === null ? '—' : `${ratio}${r.better === 'higher' ? ` (${fmt(ratio * 100)}% of ${what})` : ` (${fmt(ratio)}x ${what})`}`;
  const lines = rows.map((r) => [
    r.metric,
    r.unit,
    fmt(r.server),
    fmt(r.raw),
    verdict(ratioOf(r), r, 'raw'),
    ...(withEtcd ? [fmt(r.etcd ?? null), verdict(ratioEtcdOf(r), r, 'etcd')] : []),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const pad = (cells: string[]) => cells.map((c, i) => (i === 2 || i === 3 || i === 5 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ');
  const out = [pad(header), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.map(pad)];
  const notes = rows.filter((r) => r.note).map((r) => `  - ${r.metric}: ${r.note}`);
  if (notes.length > 0) out.push('', 'raw PostgreSQL figures and notes:', ...notes);
  const etcdNotes = rows.filter((r) => r.etcdNote).map((r) => `  - ${r.metric}: ${r.etcdNote}`);
  if (etcdNotes.length > 0) out.push('', 'etcd figures:', ...etcdNotes);
  return out.join('\n');
}

export async function writeReport(file: string, report: Report): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
}

/** The report a previous run left at `file`, if any (read before it is overwritten). */
export async function readPreviousReport(file: string): Promise<Report | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as Report;
  } catch {
    return undefined;
  }
}

/** This run's server figures beside the previous run's, metric by metric (same id). */
export function formatComparison(previous: Report, rows: readonly Row[], scale: number): string {
  const before = new Map(previous.rows.map((r) => [r.id, r]));
  const lines = rows
    .filter((r) => before.has(r.id) && r.server !== null && before.get(r.id)!.server !== null)
    .map((r) => {
      const p = before.get(r.id)!.server!;
      const change = ((r.server! - p) / p) * 100;
      const sign = change >= 0 ? '+' : '';
      return `  ${r.metric.padEnd(44)} ${fmt(p).padStart(9)} → ${fmt(r.server).padStart(9)} ${r.unit.padEnd(5)} (${sign}${change.toFixed(0)}%)`;
    });
  if (lines.length === 0) return '';
  const prevScale = previous.config.scale;
  const caveat = prevScale !== scale ? `; it ran at scale ${String(prevScale)}, this one at ${scale}: not comparable` : '';
  return [`server figures against the previous run (${previous.startedAt}, other load ${previous.machine.otherLoadCores ?? '?'} cores${caveat}):`, ...lines].join('\n');
}
