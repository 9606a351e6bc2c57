/**
 * The PodSecurity plugin's configuration, a PodSecurityConfiguration
 * (pod-security.admission.config.k8s.io v1, v1beta1 or v1alpha1) from the admission configuration
 * file, read as kube-apiserver builds the plugin: strict decoding (the plugin cannot be built when it
 * fails), unset defaults filled with privileged and latest, then the defaults turned into a policy
 * and the exemptions validated (the plugin cannot be initialized when they fail).
 */
import { fieldErrorText, type FieldError } from '../../../api/errors.ts';
import { aggregateText } from '../../../api/selectors/label-validation.ts';
import { dns1123LabelErrors, dns1123SubdomainErrors } from '../../../api/validation/names.ts';
import { pluginInitializationError } from '../../config/errors.ts';
import { decodePluginConfiguration, goPackage, textField as text, textsField as texts, type RawFields as Raw, type Scheme, type StructShape } from '../../config/typed-document.ts';
import { DEFAULT_POLICY, parseLevel, parseVersion, type LevelVersion, type Policy } from './policy.ts';

/** The plugin's configuration: the policy of namespaces without labels, and who and what is exempt. */
export interface PodSecurityConfiguration {
  readonly defaults: Policy;
  readonly exemptions: { readonly usernames: readonly string[]; readonly namespaces: readonly string[]; readonly runtimeClasses: readonly string[] };
}

export const DEFAULT_CONFIGURATION: PodSecurityConfiguration = { defaults: DEFAULT_POLICY, exemptions: { usernames: [], namespaces: [], runtimeClasses: [] } };

const PLUGIN = 'PodSecurity';
const GROUP = 'pod-security.admission.config.k8s.io';

/** k8s.io/pod-security-admission/admission/api/scheme: every version, strict. */
const SCHEME: Scheme = {
  name: 'k8s.io/pod-security-admission/admission/api/scheme/scheme.go:31',
  types: ['v1', 'v1beta1', 'v1alpha1'].map((v) => ({ apiVersion: `${GROUP}/${v}`, kind: 'PodSecurityConfiguration' })),
  strict: true,
};

const MODES = ['enforce', 'audit', 'warn'] as const;

function shapeFor(apiVersion: string): StructShape {
  const pkg = goPackage(apiVersion);
  const strings = { kind: 'list', goType: '[]string', items: { kind: 'string' } } as const;
  const defaults = Object.fromEntries(MODES.flatMap((m) => [[m, { kind: 'string' }] as const, [`${m}-version`, { kind: 'string' }] as const]));
  return {
    kind: 'struct',
    goType: `${pkg}.PodSecurityConfiguration`,
    fields: {
      defaults: { kind: 'struct', goType: `${pkg}.PodSecurityDefaults`, fields: defaults },
      exemptions: { kind: 'struct', goType: `${pkg}.PodSecurityExemptions`, fields: { usernames: strings, namespaces: strings, runtimeClasses: strings } },
    },
  };
}


/**
 * The configuration from its text (undefined or empty: the defaults). Throws AdmissionConfigError
 * with kube-apiserver's start-up message when it cannot be decoded or is invalid.
 */
export function loadPodSecurityConfiguration(source: string | undefined): PodSecurityConfiguration {
  if (source === undefined || source === '') return DEFAULT_CONFIGURATION;
  const value = decodePluginConfiguration(PLUGIN, source, SCHEME, shapeFor);
  const rawDefaults = (value.defaults ?? {}) as Raw;
  const rawExemptions = (value.exemptions ?? {}) as Raw;
  // Upstream's defaulting: an unset (or empty) level is privileged, an unset version latest.
  const level = (m: string) => text(rawDefaults[m]) || 'privileged';
  const version = (m: string) => text(rawDefaults[`${m}-version`]) || 'latest';

  const policyErrors: string[] = [];
  const levelVersion = (m: (typeof MODES)[number]): LevelVersion => {
    const l = parseLevel(level(m));
    const v = parseVersion(version(m));
    const label = m[0]!.toUpperCase() + m.slice(1);
    if (!l) policyErrors.push(`${label}.Level: must be one of privileged, baseline, restricted`);
    if (!v) policyErrors.push(`${label}.Version: must be "latest" or "v1.x"`);
    return { level: l ?? 'restricted', version: v ?? { latest: true } };
  };
  const defaults: Policy = { enforce: levelVersion('enforce'), audit: levelVersion('audit'), warn: levelVersion('warn') };
  if (policyErrors.length > 0) throw pluginInitializationError(PLUGIN, `${PLUGIN} configuration error: ${aggregateText(policyErrors)}`);

  const exemptions = { usernames: texts(rawExemptions.usernames), namespaces: texts(rawExemptions.namespaces), runtimeClasses: texts(rawExemptions.runtimeClasses) };
  const errors = validateExemptions(exemptions);
  if (errors.length > 0) throw pluginInitializationError(PLUGIN, `${PLUGIN} invalid: ${aggregateText(errors.map((e) => `${e.field}: ${fieldErrorText(e)}`))}`);
  return { defaults, exemptions };
}

/** Upstream's ValidatePodSecurityConfiguration for the exemptions (the defaults were checked as a policy). */
function validateExemptions(ex: PodSecurityConfiguration['exemptions']): FieldError[] {
  const errors: FieldError[] = [];
  const each = (field: string, values: readonly string[], problems: (v: string) => FieldError | undefined) => {
    const seen = new Set<string>();
    values.forEach((v, i) => {
      const at = `exemptions.${field}[${i}]`;
      const problem = problems(v);
      if (problem) errors.push({ ...problem, field: at });
      else if (seen.has(v)) errors.push({ type: 'FieldValueDuplicate', field: at, value: v });
      else seen.add(v);
    });
  };
  const invalid = (v: string, why: string[]): FieldError | undefined => (why.length > 0 ? { type: 'FieldValueInvalid', field: '', value: v, detail: why.join(', ') } : undefined);
  each('namespaces', ex.namespaces, (v) => invalid(v, dns1123LabelErrors(v)));
  each('runtimeClasses', ex.runtimeClasses, (v) => invalid(v, dns1123SubdomainErrors(v)));
  each('usernames', ex.usernames, (v) => (v === '' ? { type: 'FieldValueRequired', field: '' } : undefined));
  return errors;
}
