/** Types for parse-prometheus-text-format (it ships none): families as prom2json prints them. */
declare module 'parse-prometheus-text-format' {
  export interface ParsedSample {
    readonly labels?: Record<string, string>;
    /** Counters, gauges and untyped samples. */
    readonly value?: string;
    /** Histograms: cumulative counts by upper bound (the `le` label as written). */
    readonly buckets?: Record<string, string>;
    readonly quantiles?: Record<string, string>;
    readonly count?: string;
    readonly sum?: string;
  }
  export interface ParsedFamily {
    readonly name: string;
    readonly help: string;
    readonly type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    readonly metrics: readonly ParsedSample[];
  }
  export default function parsePrometheusTextFormat(text: string): ParsedFamily[];
}
