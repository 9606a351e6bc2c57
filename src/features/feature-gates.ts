/**
 * `--feature-gates` as kube-apiserver 1.34 reads it (component-base's featuregate and its
 * component-globals flag): comma-separated `Name=true|false` pairs, optionally prefixed `kube:`;
 * `AllAlpha=` / `AllBeta=` set every alpha / beta gate not named; a gate's state is its 1.34
 * default unless named.
 *
 * Start-up errors carry upstream's texts: an unknown gate, a value Go's strconv.ParseBool refuses, a
 * locked gate set against its lock. Naming a GA or deprecated gate is allowed but logged as a
 * warning, as upstream does.
 */
import type { FeatureGates } from '../api/request-context.ts';
import { goQuote } from '../api/go/quote.ts';
import { aggregateText } from '../api/selectors/label-validation.ts';
import { StartupError } from '../startup-error.ts';
import type { GateSpec } from './gate-spec.ts';
import { GATES_1_34 } from './gates-1.34.ts';

/** The gates that switch a whole stage; upstream registers them as alpha and beta gates of version 0.0. */
const ALL_ALPHA = 'AllAlpha';
const ALL_BETA = 'AllBeta';
const SPECIAL: ReadonlyMap<string, GateSpec> = new Map([
  [ALL_ALPHA, { default: false, stage: 'ALPHA' }],
  [ALL_BETA, { default: false, stage: 'BETA' }],
]);

/** The only component whose gates kube-apiserver registers (an entry without a prefix means it). */
const KUBE_COMPONENT = 'kube';

/** The gates of this server, resolved: the view requests get, plus what the flag set explicitly. */
export class FeatureGateSet implements FeatureGates {
  readonly #enabled: ReadonlyMap<string, boolean>;
  readonly #known: ReadonlyMap<string, GateSpec>;

  constructor(enabled: ReadonlyMap<string, boolean>, known: ReadonlyMap<string, GateSpec> = GATES_1_34) {
    this.#enabled = enabled;
    this.#known = known;
  }

  /** On when the flag turned it on, else its default; an unknown gate is off. */
  enabled(name: string): boolean {
    return this.#enabled.get(name) ?? this.#known.get(name)?.default ?? false;
  }

  /** `Name=bool` for every gate, sorted: what the server logs at start. */
  toString(): string {
    return [...this.#known.keys()].sort().map((n) => `${n}=${this.enabled(n)}`).join(',');
  }
}

/** The gates with nothing set: every one at its 1.34 default. */
export function defaultFeatureGates(): FeatureGateSet {
  return new FeatureGateSet(new Map());
}

export interface ParsedFeatureGates {
  readonly gates: FeatureGateSet;
  /** Upstream's warnings for GA and deprecated gates that were named, to be logged. */
  readonly warnings: readonly string[];
}

/**
 * Resolves the flag's entries (already split at commas) against the gate table. Throws a
 * StartupError with upstream's message when the flag is not acceptable.
 */
export function parseFeatureGates(entries: readonly string[], known: ReadonlyMap<string, GateSpec> = GATES_1_34): ParsedFeatureGates {
  const requested = requestedValues(kubeEntries(entries));
  const enabled = new Map<string, boolean>();
  const errors: string[] = [];
  const warnings: string[] = [];
  const stageSwitches: Array<[string, boolean]> = [];
  for (const [name, value] of requested) {
    const spec = known.get(name) ?? SPECIAL.get(name);
    if (!spec) {
      // Upstream stops at the first unknown gate.
      errors.push(`unrecognized feature gate: ${name}`);
      break;
    }
    if (spec.lockToDefault && spec.default !== value) {
      errors.push(`cannot set feature gate ${name} to ${value}, feature is locked to ${spec.default}`);
      continue;
    }
    if (SPECIAL.has(name)) {
      stageSwitches.push([name, value]);
      continue;
    }
    enabled.set(name, value);
    if (spec.stage === 'DEPRECATED') warnings.push(`Setting deprecated feature gate ${name}=${value}. It will be removed in a future release.`);
    else if (spec.stage === 'GA') warnings.push(`Setting GA feature gate ${name}=${value}. It will be removed in a future release.`);
  }
  if (errors.length > 0) throw new StartupError(aggregateText(errors));
  // AllAlpha / AllBeta fill in the gates of their stage that were not named: a named gate wins.
  for (const [name, value] of stageSwitches) {
    const stage = name === ALL_ALPHA ? 'ALPHA' : 'BETA';
    for (const [gate, spec] of known) if (spec.stage === stage && !enabled.has(gate)) enabled.set(gate, value);
  }
  return { gates: new FeatureGateSet(enabled, known), warnings };
}

/**
 * The `Name=value` entries meant for kube-apiserver: the flag takes `component:Name=value` pairs,
 * and an entry without a component is kube's.
 */
function kubeEntries(entries: readonly string[]): string[] {
  const byComponent = new Map<string, string[]>();
  for (const raw of entries) {
    const entry = raw.trim();
    if (entry === '') continue;
    const colon = entry.indexOf(':');
    const component = colon < 0 ? '' : entry.slice(0, colon).trim();
    const pair = colon < 0 ? entry : entry.slice(colon + 1).trim();
    byComponent.set(component, [...(byComponent.get(component) ?? []), pair]);
  }
  if (byComponent.has('') && byComponent.has(KUBE_COMPONENT)) {
    throw new StartupError('set kube feature gates with default empty prefix or kube: prefix consistently, do not mix use');
  }
  for (const component of byComponent.keys()) {
    if (component !== '' && component !== KUBE_COMPONENT) throw new StartupError(`component not registered: ${component}`);
  }
  return [...byComponent.values()].flat();
}

/** `Name=value` pairs into gate → bool; a gate named twice keeps the last value, as upstream's map does. */
function requestedValues(pairs: readonly string[]): Map<string, boolean> {
  const values = new Map<string, boolean>();
  for (const pair of pairs) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = (eq < 0 ? pair : pair.slice(0, eq)).trim();
    if (eq < 0) throw new StartupError(`missing bool value for ${name}`);
    const text = pair.slice(eq + 1).trim();
    const value = parseGoBool(text);
    if (value === undefined) throw new StartupError(`invalid value of ${name}=${text}, err: strconv.ParseBool: parsing ${goQuote(text)}: invalid syntax`);
    values.set(name, value);
  }
  return values;
}

/** Go's strconv.ParseBool. */
function parseGoBool(text: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  return undefined;
}
