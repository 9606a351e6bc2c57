import { BOOTSTRAP_TOKEN_TYPE, readBootstrapTokenSecret } from '../auth/authn/bootstrap-token-secret.ts';
import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { defineKind } from '../registry/kind.ts';
import { countKeys } from './columns.ts';
import { dataKeyErrors, dataSize, immutableDataErrors, isBase64, isMap, MAX_DATA_SIZE, stringMapErrors } from './data-keys.ts';
import * as field from '../registry/validation/field.ts';
import { jsonSyntaxError } from '../codecs/json-syntax.ts';

/** Keys a Secret of a given type must carry in data. */
const REQUIRED_KEYS: Record<string, string[]> = {
  'kubernetes.io/dockercfg': ['.dockercfg'],
  'kubernetes.io/dockerconfigjson': ['.dockerconfigjson'],
  'kubernetes.io/tls': ['tls.crt', 'tls.key'],
};

/** Docker config secrets hold JSON under their key. */
const JSON_KEYS: Record<string, string> = {
  'kubernetes.io/dockercfg': '.dockercfg',
  'kubernetes.io/dockerconfigjson': '.dockerconfigjson',
};

/** stringData is write-only: its values override data (base64-encoded) and it is never stored. */
function foldStringData(obj: KubeObject): void {
  const stringData = obj.stringData;
  if (isMap(stringData)) {
    const data = isMap(obj.data) ? obj.data : {};
    for (const [k, v] of Object.entries(stringData)) {
      if (typeof v === 'string') data[k] = Buffer.from(v, 'utf8').toString('base64');
    }
    obj.data = data;
  }
  delete obj.stringData;
}

/** Why decoded bytes are not a JSON object, as Go's json.Unmarshal into a map says it. */
function dockerConfigProblem(bytes: Buffer): string | undefined {
  const syntax = jsonSyntaxError(bytes);
  if (syntax) return syntax;
  const value = JSON.parse(bytes.toString('utf8')) as unknown;
  if (value === null || isMap(value)) return undefined;
  const what = Array.isArray(value) ? 'array' : typeof value === 'boolean' ? 'bool' : typeof value;
  return `json: cannot unmarshal ${what} into Go value of type map[string]interface {}`;
}

function validateSecret(obj: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  if (isMap(obj.data)) {
    for (const [k, v] of Object.entries(obj.data)) {
      errs.push(...dataKeyErrors('data', k));
      if (typeof v !== 'string' || !isBase64(v)) {
        errs.push(field.invalid(field.path('data').key(k), '<secret contents redacted>', 'must be base64-encoded'));
      }
    }
  } else {
    errs.push(...stringMapErrors('data', obj.data));
  }
  const type = obj.type;
  if (typeof type !== 'string') {
    errs.push(field.typeInvalid('type', type, 'must be a string'));
  } else {
    for (const key of REQUIRED_KEYS[type] ?? []) {
      if (!isMap(obj.data) || !Object.hasOwn(obj.data, key)) errs.push(field.required(field.path('data').key(key)));
    }
    const data = isMap(obj.data) ? obj.data : {};
    const jsonKey = JSON_KEYS[type];
    if (jsonKey && typeof data[jsonKey] === 'string') {
      const problem = dockerConfigProblem(Buffer.from(data[jsonKey], 'base64'));
      if (problem) errs.push(field.invalid(field.path('data').key(jsonKey), '<secret contents redacted>', problem));
    }
    // Either may be empty, but one must be there: upstream then names both.
    if (type === 'kubernetes.io/basic-auth' && !Object.hasOwn(data, 'username') && !Object.hasOwn(data, 'password')) {
      errs.push(field.required(field.path('data').key('username')), field.required(field.path('data').key('password')));
    }
    // The private key must be there and not empty.
    if (type === 'kubernetes.io/ssh-auth' && !(typeof data['ssh-privatekey'] === 'string' && data['ssh-privatekey'] !== '')) {
      errs.push(field.required(field.path('data').key('ssh-privatekey')));
    }
    if (type === 'kubernetes.io/service-account-token') {
      const annotations = (obj.metadata as { annotations?: Record<string, string> } | undefined)?.annotations ?? {};
      if (!annotations['kubernetes.io/service-account.name']) {
        errs.push(field.required(field.path('metadata', 'annotations').key('kubernetes.io/service-account.name')));
      }
    }
  }
  if (dataSize(obj.data, true) > MAX_DATA_SIZE) {
    errs.push(field.tooLong('data', MAX_DATA_SIZE));
  }
  return errs;
}

function bootstrapTokenWarnings(obj: KubeObject): string[] {
  if (obj.type !== BOOTSTRAP_TOKEN_TYPE) return [];
  return readBootstrapTokenSecret(obj).problems.map((p) => `bootstrap token Secret ${obj.metadata?.name ?? ''}: ${p}; it will not authenticate`);
}

export const secrets = defineKind({
  group: '',
  version: 'v1',
  kind: 'Secret',
  plural: 'secrets',
  namespaced: true,
  schemaMessage: 'k8s.io.api.core.v1.Secret',
  fieldSelectors: { type: ['type'] },
  tableColumns: [
    { name: 'Type', type: 'string', description: 'Used to facilitate programmatic handling of secret data.', cell: (o) => o.type ?? '' },
    { name: 'Data', type: 'integer', description: 'Number of keys in data.', cell: (o) => countKeys(o.data) },
  ],
  strategy: {
    // Every write without a type means the default one, as upstream defaults before validating (so
    // a typed Secret updated without its type is refused as a type change).
    default: (_ctx, obj) => {
      if (obj.type === undefined || obj.type === '') obj.type = 'Opaque';
    },
    canonicalize: (_ctx, obj) => foldStringData(obj),
    // Kubernetes stores a malformed bootstrap token Secret too; saying why it will not authenticate helps.
    warningsOnCreate: (_ctx, obj) => bootstrapTokenWarnings(obj),
    warningsOnUpdate: (_ctx, obj) => bootstrapTokenWarnings(obj),
    validate: (_ctx, obj) => validateSecret(obj),
    validateUpdate: (_ctx, obj, old) => {
      const errs = validateSecret(obj);
      if (obj.type !== old.type) errs.push(field.immutable('type', obj.type));
      return [...errs, ...immutableDataErrors(obj, old, ['data'])];
    },
  },
});
