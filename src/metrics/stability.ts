import { KUBERNETES_VERSION } from '../http/routes/version-route.ts';

/**
 * The stability classes of Kubernetes metrics (component-base's): ALPHA and INTERNAL promise
 * nothing, BETA and STABLE follow the metrics deprecation policy. The level is printed in front of
 * the help text, as `[STABLE] …`.
 */
export type StabilityLevel = 'INTERNAL' | 'ALPHA' | 'BETA' | 'STABLE';

/** What defines one metric family: upstream's options, names and help texts as they are. */
export interface MetricDefinition {
  readonly name: string;
  readonly help: string;
  /** ALPHA when not given, as upstream defaults it. */
  readonly stabilityLevel?: StabilityLevel;
  /** `major.minor.patch` of the release that deprecated the metric; absent while it is not deprecated. */
  readonly deprecatedVersion?: string;
  readonly labelNames: readonly string[];
}

export interface HistogramDefinition extends MetricDefinition {
  /** Upper bounds, ascending; +Inf is implied. */
  readonly buckets: readonly number[];
}

/** How a registry treats a definition in this release. */
export interface MetricVisibility {
  /** Deprecated in this release or an earlier one: the help starts with the deprecation notice. */
  readonly deprecated: boolean;
  /** Deprecated before this minor release: not exposed unless --show-hidden-metrics-for-version. */
  readonly hidden: boolean;
}

interface Version {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
}

/** The release whose metrics policy applies: the Kubernetes version this server implements. */
export const CURRENT_VERSION: Version = { major: Number(KUBERNETES_VERSION.major), minor: Number(KUBERNETES_VERSION.minor), patch: 0 };

function parseVersion(text: string): Version {
  const m = /^(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (!m) throw new Error(`metric deprecatedVersion must be major.minor.patch, got "${text}"`);
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]) };
}

function compare(a: Version, b: Version): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}

/**
 * Deprecated once the current release reaches the deprecation version; hidden when it was deprecated
 * before the current minor release (a metric deprecated in 1.33.0 is hidden in 1.34), unless hidden
 * metrics are shown again. This is component-base's rule.
 */
export function visibilityOf(definition: MetricDefinition, showHidden: boolean, current: Version = CURRENT_VERSION): MetricVisibility {
  if (!definition.deprecatedVersion) return { deprecated: false, hidden: false };
  const deprecatedIn = parseVersion(definition.deprecatedVersion);
  const deprecated = compare(deprecatedIn, current) <= 0;
  const guard: Version = { major: current.major, minor: current.minor, patch: 0 };
  return { deprecated, hidden: !showHidden && compare(deprecatedIn, guard) < 0 };
}

/** The help text as exposed: `[LEVEL] (Deprecated since X) help`, as upstream annotates it. */
export function exposedHelp(definition: MetricDefinition, deprecated: boolean): string {
  const help = deprecated ? `(Deprecated since ${definition.deprecatedVersion}) ${definition.help}` : definition.help;
  return `[${definition.stabilityLevel ?? 'ALPHA'}] ${help}`;
}

/**
 * `--show-hidden-metrics-for-version`: empty, or exactly the previous minor release; anything else
 * is refused with upstream's message.
 */
export function showHiddenMetricsVersionProblem(value: string, current: Version = CURRENT_VERSION): string | undefined {
  if (value === '') return undefined;
  const valid = `${current.major}.${current.minor - 1}`;
  if (value !== valid) return `--show-hidden-metrics-for-version must be omitted or have the value '${valid}'. Only the previous minor version is allowed`;
  return undefined;
}
