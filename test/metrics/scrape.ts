import assert from 'node:assert/strict';
import parsePrometheusTextFormat, { type ParsedFamily, type ParsedSample } from 'parse-prometheus-text-format';
import type { Api } from '../helpers/fixtures.ts';

/** A histogram series rebuilt from its samples: cumulative counts by `le` (as written), sum and count. */
export interface HistogramSample {
  readonly labels: Record<string, string>;
  readonly buckets: Record<string, string>;
  sum?: string;
  count?: string;
}

/**
 * One scrape of /metrics, read with a Prometheus text-format parser (parse-prometheus-text-format).
 * That parser folds every series of a histogram family into one (it was written for histograms
 * without labels), so histograms are read a second time with their TYPE given as untyped: the parser
 * then returns their `_bucket`, `_sum` and `_count` samples with all their labels, which are grouped
 * back into series here.
 */
export class Scrape {
  readonly families: ReadonlyMap<string, ParsedFamily>;
  readonly #histograms = new Map<string, HistogramSample[]>();

  constructor(readonly text: string) {
    this.families = new Map(parsePrometheusTextFormat(text).map((f) => [f.name, f]));
    const histograms = [...this.families.values()].filter((f) => f.type === 'HISTOGRAM').map((f) => f.name);
    const untyped = text.replace(/^# TYPE (\S+) histogram$/gm, '# TYPE $1 untyped');
    const samples = new Map<string, ParsedSample[]>();
    for (const f of parsePrometheusTextFormat(untyped)) samples.set(f.name, [...(samples.get(f.name) ?? []), ...f.metrics]);
    for (const name of histograms) {
      const series = new Map<string, HistogramSample>();
      const seriesOf = (labels: Record<string, string>) => {
        const key = JSON.stringify(Object.entries(labels).sort());
        let s = series.get(key);
        if (!s) series.set(key, (s = { labels, buckets: {} }));
        return s;
      };
      for (const m of samples.get(`${name}_bucket`) ?? []) {
        const { le, ...labels } = m.labels ?? {};
        seriesOf(labels).buckets[le!] = m.value!;
      }
      for (const m of samples.get(`${name}_sum`) ?? []) seriesOf(m.labels ?? {}).sum = m.value;
      for (const m of samples.get(`${name}_count`) ?? []) seriesOf(m.labels ?? {}).count = m.value;
      this.#histograms.set(name, [...series.values()]);
    }
  }

  family(name: string): ParsedFamily | undefined {
    return this.families.get(name);
  }

  /** The sample whose labels are exactly these (every label named, as the series has them). */
  sample(name: string, labels: Record<string, string>): ParsedSample | undefined {
    const histogram = this.#histograms.get(name);
    if (histogram) return histogram.find((m) => sameLabels(m.labels, labels));
    return this.family(name)?.metrics.find((m) => sameLabels(m.labels ?? {}, labels));
  }

  /** A histogram family's series (labels without `le`). */
  histogram(name: string): readonly HistogramSample[] {
    return this.#histograms.get(name) ?? [];
  }

  /** A counter's or gauge's value; 0 for a series not there yet. */
  value(name: string, labels: Record<string, string>): number {
    const s = this.sample(name, labels);
    return s?.value === undefined ? 0 : Number(s.value);
  }

  /** A histogram series' count; 0 for a series not there yet. */
  count(name: string, labels: Record<string, string>): number {
    const s = this.sample(name, labels);
    return s?.count === undefined ? 0 : Number(s.count);
  }

  /** Every label value of every sample, for cardinality checks. */
  labelValues(): Set<string> {
    const values = new Set<string>();
    for (const f of this.families.values()) for (const m of f.metrics) for (const v of Object.values(m.labels ?? {})) values.add(v);
    for (const series of this.#histograms.values()) for (const m of series) for (const v of Object.values(m.labels)) values.add(v);
    return values;
  }
}

function sameLabels(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}

export async function scrape(api: Api): Promise<Scrape> {
  const res = await api.get('/metrics');
  assert.equal(res.status, 200, res.text);
  assert.equal(res.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
  return new Scrape(res.text);
}

/** The labels of an apiserver_request_total series of a resource request (component apiserver). */
export function resourceRequest(labels: { verb: string; resource: string; scope: string; code?: string; group?: string; version?: string; subresource?: string; dry_run?: string }): Record<string, string> {
  return {
    verb: labels.verb,
    dry_run: labels.dry_run ?? '',
    group: labels.group ?? '',
    version: labels.version ?? 'v1',
    resource: labels.resource,
    subresource: labels.subresource ?? '',
    scope: labels.scope,
    component: 'apiserver',
    ...(labels.code !== undefined ? { code: labels.code } : {}),
  };
}
