/**
 * The ResourceQuota plugin's configuration from the admission configuration file: a
 * ResourceQuotaConfiguration (apiserver.config.k8s.io/v1), or its older form Configuration
 * (resourcequota.admission.k8s.io v1beta1, v1alpha1), read as upstream's LoadConfiguration does
 * (lenient decoding) and validated (every limited resource names its resource).
 */
import { fieldErrorText, type FieldError } from '../../../api/errors.ts';
import { aggregateText } from '../../../api/selectors/label-validation.ts';
import { pluginFactoryError } from '../../config/errors.ts';
import { decodePluginConfiguration, goPackage, textField as text, textsField as texts, type RawFields as Raw, type Scheme, type StructShape } from '../../config/typed-document.ts';
import type { ScopeRequirement } from './evaluators.ts';

/**
 * A kind whose use is limited by default: a request that uses a resource whose name contains one of
 * `matchContains`, or whose object is in one of `matchScopes`, needs a quota that covers it.
 */
export interface LimitedResource {
  readonly apiGroup: string;
  readonly resource: string;
  readonly matchContains: readonly string[];
  readonly matchScopes: readonly ScopeRequirement[];
}

export interface ResourceQuotaConfiguration {
  readonly limitedResources: readonly LimitedResource[];
}

export const DEFAULT_RESOURCE_QUOTA_CONFIGURATION: ResourceQuotaConfiguration = { limitedResources: [] };

const PLUGIN = 'ResourceQuota';

/** The scheme of k8s.io/apiserver/pkg/admission/plugin/resourcequota/config.go; not strict. */
const SCHEME: Scheme = {
  name: 'k8s.io/apiserver/pkg/admission/plugin/resourcequota/config.go:31',
  types: [
    { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'ResourceQuotaConfiguration' },
    { apiVersion: 'resourcequota.admission.k8s.io/v1beta1', kind: 'Configuration' },
    { apiVersion: 'resourcequota.admission.k8s.io/v1alpha1', kind: 'Configuration' },
  ],
  strict: false,
};

function shapeFor(apiVersion: string): StructShape {
  const pkg = goPackage(apiVersion);
  const strings = { kind: 'list', goType: '[]string', items: { kind: 'string' } } as const;
  const scope: StructShape = {
    kind: 'struct',
    goType: 'v1.ScopedResourceSelectorRequirement',
    fields: { scopeName: { kind: 'string', goType: 'v1.ResourceQuotaScope' }, operator: { kind: 'string', goType: 'v1.ScopeSelectorOperator' }, values: strings },
  };
  const limited: StructShape = {
    kind: 'struct',
    goType: `${pkg}.LimitedResource`,
    fields: { apiGroup: { kind: 'string' }, resource: { kind: 'string' }, matchContains: strings, matchScopes: { kind: 'list', goType: '[]v1.ScopedResourceSelectorRequirement', items: scope } },
  };
  return { kind: 'struct', goType: `${pkg}.Configuration`, fields: { limitedResources: { kind: 'list', goType: `[]${pkg}.LimitedResource`, items: limited } } };
}


/**
 * The configuration from its text (undefined: none given, so nothing is limited; an empty file is
 * a document without a kind, as upstream). Throws AdmissionConfigError with kube-apiserver's words.
 */
export function loadResourceQuotaConfiguration(source: string | undefined): ResourceQuotaConfiguration {
  if (source === undefined) return DEFAULT_RESOURCE_QUOTA_CONFIGURATION;
  const value = decodePluginConfiguration(PLUGIN, source, SCHEME, shapeFor);
  const limitedResources = ((value.limitedResources ?? []) as Raw[]).map(
    (r): LimitedResource => ({
      apiGroup: text(r.apiGroup),
      resource: text(r.resource),
      matchContains: texts(r.matchContains),
      matchScopes: ((r.matchScopes ?? []) as Raw[]).map((m) => ({ scopeName: text(m.scopeName), operator: text(m.operator), values: texts(m.values) })),
    }),
  );
  const errors: FieldError[] = [];
  limitedResources.forEach((r, i) => {
    if (r.resource === '') errors.push({ type: 'FieldValueRequired', field: `limitedResources[${i}].resource` });
  });
  if (errors.length > 0) throw pluginFactoryError(PLUGIN, aggregateText(errors.map((e) => `${e.field}: ${fieldErrorText(e)}`)));
  return { limitedResources };
}
