/**
 * --runtime-config as kube-apiserver 1.34 applies it: which group versions and resources are
 * served. Upstream's steps, in order, each with its own error texts:
 *
 * 1. The flag is a map (cliflag.ConfigurationMap): `key[=value]` entries, a key named twice keeps
 *    its last value, an omitted value is "".
 * 2. Completion: `api/legacy` is dropped; `v1`, `api/v1` and anything under them (`v1/pods`,
 *    `api/v1/pods`) become `/v1`, the core group's version — upstream drops the resource there, so
 *    they switch the whole core group; `/v1/<resource>` addresses one core resource.
 * 3. Validation: API Priority and Fairness (on by default upstream, and its API is served here)
 *    needs flowcontrol.apiserver.k8s.io/v1; `api/all=false` alone is refused; every other key is
 *    `<group>/<version>` or `<group>/<version>/<resource>` of a registered group.
 * 4. Merge into the default resource config: `api/all`, `api/ga`, `api/beta`, `api/alpha` (each
 *    true or false) switch every version of that level known to the default config; then each
 *    group/version (a version the group does not register is an error); then each resource,
 *    which wins over its version.
 *
 * A kind is served when its resource is enabled: by its own setting, else by its version's.
 */
import { goQuote } from '../api/go/quote.ts';
import { aggregateText } from '../api/selectors/label-validation.ts';
import { StartupError } from '../startup-error.ts';
import type { KindDefinition } from './kind.ts';
import { REGISTERED_GROUP_VERSIONS } from './registered-group-versions.ts';

const API_ALL = 'api/all';
const API_GA = 'api/ga';
const API_BETA = 'api/beta';
const API_ALPHA = 'api/alpha';

/** The level switches, in the order upstream applies them (a later one wins over an earlier one). */
const LEVEL_MATCHERS: ReadonlyArray<readonly [string, (version: string) => boolean]> = [
  [API_ALL, () => true],
  [API_GA, (v) => /^v\d+$/.test(v)],
  [API_BETA, (v) => /^v\d+beta\d+$/.test(v)],
  [API_ALPHA, (v) => /^v\d+alpha\d+$/.test(v)],
];
const LEVEL_KEYS = new Set(LEVEL_MATCHERS.map(([key]) => key));

/** The group whose v1 the server's API Priority and Fairness configuration lives in. */
const FLOWCONTROL_GROUP = 'flowcontrol.apiserver.k8s.io';

/**
 * The kinds --runtime-config leaves served, in their order. Throws a StartupError with upstream's
 * message when the flag names something unknown or is malformed, or turns off the flowcontrol API
 * that API priority and fairness (`priorityAndFairness`, --enable-priority-and-fairness) reads.
 */
export function enabledKinds(kinds: readonly KindDefinition[], entries: readonly string[], priorityAndFairness = true): KindDefinition[] {
  const overrides = completeLegacyKeys(configurationMap(entries));
  const registered = registeredVersions(kinds);
  const problems = validationProblems(overrides, registered, priorityAndFairness && kinds.some((k) => k.group === FLOWCONTROL_GROUP));
  if (problems.length > 0) throw new StartupError(aggregateText(problems));
  const config = defaultResourceConfig(kinds);
  mergeOverrides(config, overrides, registered);
  return kinds.filter((k) => config.resourceEnabled(k.group, k.version, k.plural));
}

/** Step 1: the flag's entries as upstream's ConfigurationMap holds them. */
function configurationMap(entries: readonly string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const entry of entries) {
    if (entry.length === 0) continue;
    const eq = entry.indexOf('=');
    const key = (eq < 0 ? entry : entry.slice(0, eq)).trim();
    const value = eq < 0 ? '' : entry.slice(eq + 1).trim();
    map.delete(key);
    map.set(key, value);
  }
  return map;
}

/** Step 2: the legacy spellings of the core group, as kube-apiserver's option completion rewrites them. */
function completeLegacyKeys(map: ReadonlyMap<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of map) {
    if (key === 'api/legacy') continue;
    if (key === 'v1' || key.startsWith('v1/') || key === 'api/v1' || key.startsWith('api/v1/')) {
      out.delete('/v1');
      out.set('/v1', value);
      continue;
    }
    out.set(key, value);
  }
  return out;
}

/** Every group → its registered versions: upstream's schemes plus the kinds given (tests bring their own). */
function registeredVersions(kinds: readonly KindDefinition[]): Map<string, Set<string>> {
  const registered = new Map<string, Set<string>>();
  for (const [group, versions] of REGISTERED_GROUP_VERSIONS) registered.set(group, new Set(versions));
  for (const k of kinds) {
    if (!registered.has(k.group)) registered.set(k.group, new Set());
    registered.get(k.group)!.add(k.version);
  }
  return registered;
}

/** Step 3: kube-apiserver's option validation of the flag (all problems, in upstream's order). */
function validationProblems(overrides: ReadonlyMap<string, string>, registered: ReadonlyMap<string, Set<string>>, servesFlowControl: boolean): string[] {
  const problems: string[] = [];
  if (servesFlowControl) {
    // Upstream looks for the spellings in the flag's printed form (sorted key=value pairs).
    const printed = [...overrides].map(([k, v]) => `${k}=${v}`).sort().join(',');
    for (const key of [`${FLOWCONTROL_GROUP}/v1`, API_GA, API_ALL]) {
      if (printed.includes(`${key}=false`)) {
        problems.push(`--runtime-config=${key}=false conflicts with --enable-priority-and-fairness=true`);
        break;
      }
      if (printed.includes(`${key}=true`)) break;
    }
  }
  if (overrides.get(API_ALL) === 'false' && overrides.size === 1) return [...problems, 'invalid key with only api/all=false'];
  const groups: string[] = [];
  for (const key of overrides.keys()) {
    if (LEVEL_KEYS.has(key)) continue;
    const tokens = key.split('/');
    if (tokens.length !== 2 && tokens.length !== 3) return [...problems, `runtime-config invalid key ${key}`];
    groups.push(tokens[0]!);
  }
  const unknown = groups.filter((g) => !registered.has(g));
  if (unknown.length > 0) problems.push(`unknown api groups ${unknown.join(',')}`);
  return problems;
}

/** Step 4: the overrides applied to the defaults; throws upstream's merge errors. */
function mergeOverrides(config: ResourceConfig, overrides: ReadonlyMap<string, string>, registered: ReadonlyMap<string, Set<string>>): void {
  for (const [key, matches] of LEVEL_MATCHERS) {
    const value = overrides.get(key);
    if (value === undefined) continue;
    if (value !== 'true' && value !== 'false') throw new StartupError(`invalid value ${key}=${value}`);
    config.setMatchingVersions(matches, value === 'true');
  }
  const versionSettings: Array<[string, boolean]> = [];
  const resourceSettings: Array<[string, boolean]> = [];
  for (const [key, raw] of overrides) {
    if (LEVEL_KEYS.has(key)) continue;
    const tokens = key.split('/');
    if (tokens.length < 2 || tokens.length > 3) continue;
    const [group, version, resource] = tokens as [string, string, string?];
    // Unknown groups were refused by validation; upstream skips them here.
    const versions = registered.get(group);
    if (!versions) continue;
    if (!versions.has(version)) throw new StartupError(`group version ${group ? `${group}/${version}` : version} that has not been registered`);
    const enabled = runtimeConfigValue(key, raw);
    if (resource === undefined) {
      versionSettings.push([versionKey(group, version), enabled]);
      continue;
    }
    if (resource.toLowerCase() !== resource) {
      throw new StartupError(`invalid key ${key}: group/version/resource and resource is always lowercase plural, not ${goQuote(resource)}`);
    }
    resourceSettings.push([resourceKey(group, version, resource), enabled]);
  }
  // Versions first, so that a resource named with its version keeps its own setting.
  for (const [gv, enabled] of versionSettings) config.setVersion(gv, enabled);
  for (const [gvr, enabled] of resourceSettings) config.setResource(gvr, enabled);
}

/** A group/version or resource key's value: omitted means true, otherwise Go's strconv.ParseBool. */
function runtimeConfigValue(key: string, value: string): boolean {
  if (value === '') return true;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  throw new StartupError(`invalid value of ${key}: ${value}, err: strconv.ParseBool: parsing ${goQuote(value)}: invalid syntax`);
}

const versionKey = (group: string, version: string) => `${group}/${version}`;
const resourceKey = (group: string, version: string, resource: string) => `${group}/${version}/${resource}`;

/**
 * Upstream's ResourceConfig, for the versions this server can serve: each version on or off, and
 * resources set apart from their version. Switching a version forgets its resources' settings.
 */
class ResourceConfig {
  readonly versions = new Map<string, boolean>();
  readonly resources = new Map<string, boolean>();

  setVersion(gv: string, enabled: boolean): void {
    this.versions.set(gv, enabled);
    for (const gvr of [...this.resources.keys()]) if (gvr.startsWith(`${gv}/`)) this.resources.delete(gvr);
  }

  /** Only versions the default config lists, as upstream's matchers walk its version map. */
  setMatchingVersions(matches: (version: string) => boolean, enabled: boolean): void {
    for (const gv of [...this.versions.keys()]) if (matches(gv.slice(gv.lastIndexOf('/') + 1))) this.setVersion(gv, enabled);
  }

  setResource(gvr: string, enabled: boolean): void {
    this.resources.set(gvr, enabled);
  }

  resourceEnabled(group: string, version: string, resource: string): boolean {
    return this.resources.get(resourceKey(group, version, resource)) ?? this.versions.get(versionKey(group, version)) ?? false;
  }
}

/**
 * The defaults, as upstream's DefaultAPIResourceConfigSource has them for the versions served
 * here: a version is on when a kind of it is on by default (stable versions), off otherwise (beta
 * and alpha versions); a kind off by default in a version that is on is switched off by itself.
 */
function defaultResourceConfig(kinds: readonly KindDefinition[]): ResourceConfig {
  const config = new ResourceConfig();
  for (const k of kinds) {
    const gv = versionKey(k.group, k.version);
    config.versions.set(gv, (config.versions.get(gv) ?? false) || k.enabledByDefault);
  }
  for (const k of kinds) {
    if (!k.enabledByDefault && config.versions.get(versionKey(k.group, k.version))) config.setResource(resourceKey(k.group, k.version, k.plural), false);
  }
  return config;
}
