import type { HistogramDefinition, MetricDefinition } from './stability.ts';

/**
 * Metric families whose series are plain objects the request path keeps and bumps: a counter's
 * `inc()` is one addition, a histogram's `observe()` a short scan of its bounds. prom-client's own
 * metrics hash their label values into a string on every call; these do the label work once, when a
 * series is first asked for, and the caller keeps the series. At scrape time each family hands the
 * prom-client registry the same shape prom-client's metrics do (`get()`), so the registry writes the
 * text format for all of them, the Node runtime's metrics included.
 */

/** One value with labels, as prom-client's registry prints it. */
interface Sample {
  readonly labels: Record<string, string>;
  readonly value: number;
  readonly metricName?: string;
}

/** What prom-client's registry reads from a metric at scrape time. */
export interface FamilySnapshot {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
  readonly values: Sample[];
  readonly aggregator: 'sum';
}

export class CounterSeries {
  value = 0;
  inc(by = 1): void {
    this.value += by;
  }
}

export class GaugeSeries {
  value = 0;
  set(value: number): void {
    this.value = value;
  }
  inc(by = 1): void {
    this.value += by;
  }
  dec(by = 1): void {
    this.value -= by;
  }
}

export class HistogramSeries {
  readonly #bounds: readonly number[];
  /** Observations per bucket (not cumulative); the last slot is above every bound (+Inf). */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(bounds: readonly number[]) {
    this.#bounds = bounds;
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const bounds = this.#bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += value;
    this.count++;
  }
}

interface Entry<S> {
  readonly labels: Record<string, string>;
  readonly series: S;
}

abstract class Family<S> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  /** prom-client's registry sums series across cluster workers with this; unused here. */
  readonly aggregator = 'sum' as const;
  readonly #entries = new Map<string, Entry<S>>();

  constructor(definition: MetricDefinition, help: string) {
    this.name = definition.name;
    this.help = help;
    this.labelNames = definition.labelNames;
  }

  protected abstract create(): S;

  /**
   * The series for these label values (in labelNames order), made on first use. Callers on a hot
   * path keep what this returns instead of asking again.
   */
  series(...values: string[]): S {
    if (values.length !== this.labelNames.length) {
      throw new Error(`${this.name}: ${this.labelNames.length} label values expected, got ${values.length}`);
    }
    const key = values.join('\u0000');
    let entry = this.#entries.get(key);
    if (!entry) {
      const labels: Record<string, string> = {};
      this.labelNames.forEach((name, i) => (labels[name] = values[i]!));
      entry = { labels, series: this.create() };
      this.#entries.set(key, entry);
    }
    return entry.series;
  }

  /** Drops every series (a gauge refilled from scratch at each scrape). */
  clear(): void {
    this.#entries.clear();
  }

  protected entries(): IterableIterator<Entry<S>> {
    return this.#entries.values();
  }

  /** Runs before each scrape (a gauge that reads its values when asked). */
  collect?: () => Promise<void> | void;

  abstract snapshot(): Sample[];

  /** prom-client's registry calls this for the text of each scrape. */
  async get(): Promise<FamilySnapshot> {
    await this.collect?.();
    return { name: this.name, help: this.help, type: this.type, values: this.snapshot(), aggregator: this.aggregator };
  }

  abstract readonly type: FamilySnapshot['type'];
}

export class CounterFamily extends Family<CounterSeries> {
  readonly type = 'counter' as const;
  protected create(): CounterSeries {
    return new CounterSeries();
  }
  snapshot(): Sample[] {
    return [...this.entries()].map((e) => ({ labels: e.labels, value: e.series.value }));
  }
}

export class GaugeFamily extends Family<GaugeSeries> {
  readonly type = 'gauge' as const;
  protected create(): GaugeSeries {
    return new GaugeSeries();
  }
  snapshot(): Sample[] {
    return [...this.entries()].map((e) => ({ labels: e.labels, value: e.series.value }));
  }
}

export class HistogramFamily extends Family<HistogramSeries> {
  readonly type = 'histogram' as const;
  readonly buckets: readonly number[];
  /** The `le` label of each bound, written as Go writes floats (`1e+06`), so queries match upstream's. */
  readonly #le: readonly string[];

  constructor(definition: HistogramDefinition, help: string) {
    super(definition, help);
    this.buckets = definition.buckets;
    this.#le = definition.buckets.map(formatGoFloat);
  }

  protected create(): HistogramSeries {
    return new HistogramSeries(this.buckets);
  }

  snapshot(): Sample[] {
    const out: Sample[] = [];
    const bucket = `${this.name}_bucket`;
    for (const { labels, series } of this.entries()) {
      let cumulative = 0;
      for (let i = 0; i < this.#le.length; i++) {
        cumulative += series.counts[i]!;
        out.push({ labels: { ...labels, le: this.#le[i]! }, value: cumulative, metricName: bucket });
      }
      out.push({ labels: { ...labels, le: '+Inf' }, value: series.count, metricName: bucket });
      out.push({ labels, value: series.sum, metricName: `${this.name}_sum` });
      out.push({ labels, value: series.count, metricName: `${this.name}_count` });
    }
    return out;
  }
}

/**
 * A float as Go's strconv.FormatFloat(v, 'g', -1, 64) writes it, which is how client_golang writes
 * bucket bounds: the shortest digits, in exponent form below 1e-4 and from 1e+06 up.
 */
export function formatGoFloat(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  if (value === 0) return '0';
  const [mantissa, exponentText] = value.toExponential().split('e') as [string, string];
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 6) {
    const sign = exponent < 0 ? '-' : '+';
    const digits = String(Math.abs(exponent)).padStart(2, '0');
    return `${mantissa}e${sign}${digits}`;
  }
  return String(value);
}
