/**
 * The `--admission-control-config-file` (an AdmissionConfiguration, apiserver.config.k8s.io/v1 or
 * apiserver.k8s.io/v1alpha1): each entry names a plugin and gives its configuration, embedded
 * (`configuration`) or in a file (`path`, relative to the AdmissionConfiguration's directory), as
 * upstream's admission.ReadAdmissionConfiguration and ConfigFor read it. Plugins decode their own
 * configuration from the text handed to them; only enabled plugins ask, so a bad entry for a
 * disabled plugin is no error.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { AdmissionConfigError, goReadFileError } from './errors.ts';
import { DecodeError, decodeTypedDocument, goPackage, type Scheme, type StructShape } from './typed-document.ts';

export interface PluginConfiguration {
  readonly name: string;
  /** The embedded configuration (any JSON value); wins over `path`. */
  readonly configuration?: unknown;
  /** Absolute: a relative path in the file is resolved against the file's directory. */
  readonly path?: string;
}

export interface AdmissionConfiguration {
  readonly plugins: readonly PluginConfiguration[];
}

export const EMPTY_ADMISSION_CONFIGURATION: AdmissionConfiguration = { plugins: [] };

/** kube-apiserver's configScheme (k8s.io/apiserver/pkg/server/options/admission.go); not strict. */
const SCHEME: Scheme = {
  name: 'k8s.io/apiserver/pkg/server/options/admission.go:53',
  types: [
    { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AdmissionConfiguration' },
    { apiVersion: 'apiserver.k8s.io/v1alpha1', kind: 'AdmissionConfiguration' },
  ],
  strict: false,
};

function shapeFor(apiVersion: string): StructShape {
  const pkg = goPackage(apiVersion);
  const plugin: StructShape = {
    kind: 'struct',
    goType: `${pkg}.AdmissionPluginConfiguration`,
    fields: { name: { kind: 'string' }, path: { kind: 'string' }, configuration: { kind: 'raw' } },
  };
  return { kind: 'struct', goType: `${pkg}.AdmissionConfiguration`, fields: { plugins: { kind: 'list', goType: `[]${pkg}.AdmissionPluginConfiguration`, items: plugin } } };
}

/**
 * Keys of the two unversioned files that predate AdmissionConfiguration (ImagePolicyWebhook's and
 * PodNodeSelector's): upstream hands such a file to those plugins when they are enabled. This
 * server has neither, so such a file configures nothing.
 */
const LEGACY_KEYS = ['imagePolicy', 'podNodeSelectorPluginConfig'];

/** Reads the file (none when `file` is empty); throws AdmissionConfigError in kube-apiserver's words. */
export function readAdmissionConfiguration(file: string): AdmissionConfiguration {
  if (file === '') return EMPTY_ADMISSION_CONFIGURATION;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new AdmissionConfigError(`failed to read plugin config: unable to read admission control configuration from "${file}" [${goReadFileError(file, err)}]`);
  }
  try {
    return parseAdmissionConfiguration(text, path.dirname(file));
  } catch (err) {
    if (err instanceof DecodeError) throw new AdmissionConfigError(`failed to read plugin config: ${err.message}`);
    throw err;
  }
}

/** Decodes the text of an AdmissionConfiguration whose relative paths are under `baseDir`. Throws DecodeError. */
export function parseAdmissionConfiguration(text: string, baseDir: string): AdmissionConfiguration {
  let value: Readonly<Record<string, unknown>>;
  try {
    ({ value } = decodeTypedDocument(text, SCHEME, shapeFor));
  } catch (err) {
    const doc = err instanceof DecodeError ? err.document : undefined;
    if (err instanceof DecodeError && err.typeProblem && typeof doc === 'object' && doc !== null && LEGACY_KEYS.some((k) => k in doc)) return EMPTY_ADMISSION_CONFIGURATION;
    throw err;
  }
  const plugins = ((value.plugins ?? []) as Record<string, unknown>[]).map((p): PluginConfiguration => {
    const file = typeof p.path === 'string' && p.path !== '' ? path.resolve(baseDir, p.path) : undefined;
    return {
      name: typeof p.name === 'string' ? p.name : '',
      ...(p.configuration !== undefined ? { configuration: p.configuration } : {}),
      ...(file !== undefined ? { path: file } : {}),
    };
  });
  return { plugins };
}

/**
 * The configuration text of a plugin (upstream's ConfigFor): of the first entry with its name, the
 * embedded configuration as JSON, else the file's content; undefined when there is none. A file
 * that cannot be read stops the start (upstream exits there).
 */
export function pluginConfigurationFor(config: AdmissionConfiguration, name: string): string | undefined {
  const entry = config.plugins.find((p) => p.name === name);
  if (!entry) return undefined;
  if (entry.configuration !== undefined) return JSON.stringify(entry.configuration);
  if (entry.path === undefined) return undefined;
  try {
    return readFileSync(entry.path, 'utf8');
  } catch (err) {
    throw new AdmissionConfigError(`Couldn't open admission plugin configuration ${entry.path}: ${goReadFileError(entry.path, err)}`);
  }
}
