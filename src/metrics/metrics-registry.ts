import { Registry, type Metric } from 'prom-client';
import { CounterFamily, GaugeFamily, HistogramFamily } from './families.ts';
import { processRegistry } from './process-metrics.ts';
import { exposedHelp, visibilityOf, type HistogramDefinition, type MetricDefinition } from './stability.ts';

export interface MetricsRegistryOptions {
  /** --show-hidden-metrics-for-version was given (validated at start): hidden metrics are exposed again. */
  readonly showHidden: boolean;
}

/**
 * One server's metrics (tests run several servers in one process, each with its own), with
 * component-base's stability rules: help texts carry `[LEVEL]` and, once deprecated, the deprecation
 * notice; a metric deprecated before this minor release is hidden (made, so callers need not care,
 * but never exposed) unless hidden metrics are shown. Like upstream's registry it counts what it
 * registered and hid (registered_metrics_total, hidden_metrics_total).
 */
export class MetricsRegistry {
  readonly #registry = new Registry();
  readonly #showHidden: boolean;
  readonly #registeredTotal: CounterFamily;
  readonly #hiddenTotal: CounterFamily;

  constructor(options: MetricsRegistryOptions) {
    this.#showHidden = options.showHidden;
    this.#registeredTotal = this.#expose(
      new CounterFamily(REGISTERED_METRICS_TOTAL, exposedHelp(REGISTERED_METRICS_TOTAL, false)),
    );
    this.#hiddenTotal = this.#expose(new CounterFamily(HIDDEN_METRICS_TOTAL, exposedHelp(HIDDEN_METRICS_TOTAL, false)));
    // A counter without labels is printed as 0 before anything is hidden, as upstream's is.
    this.#hiddenTotal.series();
  }

  counter(definition: MetricDefinition): CounterFamily {
    return this.#add(definition, (help) => new CounterFamily(definition, help));
  }

  gauge(definition: MetricDefinition): GaugeFamily {
    return this.#add(definition, (help) => new GaugeFamily(definition, help));
  }

  histogram(definition: HistogramDefinition): HistogramFamily {
    return this.#add(definition, (help) => new HistogramFamily(definition, help));
  }

  /** The Prometheus text format content type the scrape is answered with. */
  get contentType(): string {
    return this.#registry.contentType;
  }

  /** One scrape: the process's runtime metrics, then this server's. */
  async text(): Promise<string> {
    const [process, own] = await Promise.all([processRegistry().metrics(), this.#registry.metrics()]);
    return process + own;
  }

  #add<F extends CounterFamily | GaugeFamily | HistogramFamily>(definition: MetricDefinition, make: (help: string) => F): F {
    const visibility = visibilityOf(definition, this.#showHidden);
    const family = make(exposedHelp(definition, visibility.deprecated));
    if (visibility.hidden) {
      this.#hiddenTotal.series().inc();
      return family;
    }
    this.#registeredTotal.series(definition.stabilityLevel ?? 'ALPHA', definition.deprecatedVersion ?? '').inc();
    return this.#expose(family);
  }

  #expose<F extends CounterFamily | GaugeFamily | HistogramFamily>(family: F): F {
    // The registry reads metrics through get() only; these families give it prom-client's shape.
    this.#registry.registerMetric(family as unknown as Metric);
    return family;
  }
}

const REGISTERED_METRICS_TOTAL: MetricDefinition = {
  name: 'registered_metrics_total',
  help: 'The count of registered metrics broken by stability level and deprecation version.',
  stabilityLevel: 'BETA',
  labelNames: ['stability_level', 'deprecated_version'],
};

const HIDDEN_METRICS_TOTAL: MetricDefinition = {
  name: 'hidden_metrics_total',
  help: 'The count of hidden metrics.',
  stabilityLevel: 'BETA',
  labelNames: [],
};
