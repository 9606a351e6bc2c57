/**
 * The --authentication-config file (AuthenticationConfiguration, apiserver.config.k8s.io v1, v1beta1
 * or v1alpha1, in YAML or JSON): decoded strictly, as upstream's codec does (unknown fields and
 * values of the wrong type are errors), into plain data. Validation is authentication-config-
 * validation.ts; this file only knows the shape.
 */
import yaml from 'js-yaml';

export const AUTHENTICATION_CONFIG_VERSIONS = ['apiserver.config.k8s.io/v1', 'apiserver.config.k8s.io/v1beta1', 'apiserver.config.k8s.io/v1alpha1'];

/** A mapping from a claim (with a prefix, which may be "") or from an expression over `claims`. */
export interface PrefixedClaimOrExpression {
  readonly claim?: string;
  /** Absent is not the same as "": a claim mapping needs one, an expression mapping may not have one. */
  readonly prefix?: string;
  readonly expression?: string;
}

export interface ClaimOrExpression {
  readonly claim?: string;
  readonly expression?: string;
}

export interface ClaimValidationRule {
  readonly claim?: string;
  readonly requiredValue?: string;
  readonly expression?: string;
  readonly message?: string;
}

export interface ExtraMapping {
  readonly key: string;
  readonly valueExpression: string;
}

export interface UserValidationRule {
  readonly expression: string;
  readonly message?: string;
}

export interface IssuerSpec {
  readonly url: string;
  readonly discoveryURL?: string;
  /** PEM bundle that verifies the issuer's serving certificate; default: the system roots. */
  readonly certificateAuthority?: string;
  readonly audiences: readonly string[];
  readonly audienceMatchPolicy?: string;
  readonly egressSelectorType?: string;
}

export interface JwtAuthenticatorSpec {
  readonly issuer: IssuerSpec;
  readonly claimValidationRules: readonly ClaimValidationRule[];
  readonly claimMappings: {
    readonly username: PrefixedClaimOrExpression;
    readonly groups: PrefixedClaimOrExpression;
    readonly uid: ClaimOrExpression;
    readonly extra: readonly ExtraMapping[];
  };
  readonly userValidationRules: readonly UserValidationRule[];
}

export interface AnonymousSpec {
  readonly enabled: boolean;
  readonly conditions: readonly { readonly path: string }[];
}

export interface AuthenticationConfigSpec {
  readonly jwt: readonly JwtAuthenticatorSpec[];
  /** Absent when the file has no `anonymous` (then --anonymous-auth decides). */
  readonly anonymous?: AnonymousSpec;
}

// ---- the shape, for strict decoding ----

type Shape = 'string' | 'bool' | { readonly list: Shape } | { readonly struct: string; readonly fields: Readonly<Record<string, Shape>> };

const struct = (name: string, fields: Record<string, Shape>): Shape => ({ struct: name, fields });
const claimOrExpression = (name: string, withPrefix: boolean): Shape =>
  struct(name, { claim: 'string', expression: 'string', ...(withPrefix ? { prefix: 'string' } : {}) });

const CONFIGURATION: Shape = struct('AuthenticationConfiguration', {
  apiVersion: 'string',
  kind: 'string',
  jwt: {
    list: struct('JWTAuthenticator', {
      issuer: struct('Issuer', {
        url: 'string',
        discoveryURL: 'string',
        certificateAuthority: 'string',
        audiences: { list: 'string' },
        audienceMatchPolicy: 'string',
        egressSelectorType: 'string',
      }),
      claimValidationRules: { list: struct('ClaimValidationRule', { claim: 'string', requiredValue: 'string', expression: 'string', message: 'string' }) },
      claimMappings: struct('ClaimMappings', {
        username: claimOrExpression('PrefixedClaimOrExpression', true),
        groups: claimOrExpression('PrefixedClaimOrExpression', true),
        uid: claimOrExpression('ClaimOrExpression', false),
        extra: { list: struct('ExtraMapping', { key: 'string', valueExpression: 'string' }) },
      }),
      userValidationRules: { list: struct('UserValidationRule', { expression: 'string', message: 'string' }) },
    }),
  },
  anonymous: struct('AnonymousAuthConfig', { enabled: 'bool', conditions: { list: struct('AnonymousAuthCondition', { path: 'string' }) } }),
});

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function jsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v === 'object' ? 'object' : typeof v;
}

function goType(shape: Shape, pkg: string): string {
  if (typeof shape === 'string') return shape;
  if ('list' in shape) return `[]${goType(shape.list, pkg)}`;
  return `${pkg}.${shape.struct}`;
}

/**
 * Checks `value` against `shape` as Go's strict JSON decoding would: the first value of a wrong type
 * throws (encoding/json's words); unknown fields are collected, as the strict decoder lists them.
 */
function checkShape(value: unknown, shape: Shape, at: { path: string; jsonPath: string; owner: string }, pkg: string, unknown: string[]): void {
  if (value === null || value === undefined) return; // null leaves the Go zero value
  const mismatch = () => new Error(`json: cannot unmarshal ${jsonType(value)} into Go struct field ${at.owner}.${at.jsonPath} of type ${goType(shape, pkg)}`);
  if (shape === 'string' || shape === 'bool') {
    if (typeof value !== (shape === 'bool' ? 'boolean' : 'string')) throw mismatch();
    return;
  }
  if ('list' in shape) {
    if (!Array.isArray(value)) throw mismatch();
    value.forEach((item, i) => checkShape(item, shape.list, { ...at, path: `${at.path}[${i}]` }, pkg, unknown));
    return;
  }
  if (!isObj(value)) throw mismatch();
  for (const [key, item] of Object.entries(value)) {
    const fieldShape = shape.fields[key];
    const path = at.path ? `${at.path}.${key}` : key;
    if (!fieldShape) {
      unknown.push(`unknown field "${path}"`);
      continue;
    }
    checkShape(item, fieldShape, { path, jsonPath: at.jsonPath ? `${at.jsonPath}.${key}` : key, owner: shape.struct }, pkg, unknown);
  }
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const obj = (v: unknown): Obj => (isObj(v) ? v : {});

function claimOrExpressionOf(v: unknown): PrefixedClaimOrExpression {
  const o = obj(v);
  return { claim: str(o.claim) ?? '', expression: str(o.expression) ?? '', ...(typeof o.prefix === 'string' ? { prefix: o.prefix } : {}) };
}

/**
 * Decodes the file's text; throws an Error whose message is what upstream's decoder says (the caller
 * adds which file). Nothing is validated beyond the shape.
 */
export function decodeAuthenticationConfig(text: string): AuthenticationConfigSpec {
  if (text.length === 0) throw new Error('empty config data');
  let doc: unknown;
  try {
    doc = yaml.load(text);
  } catch (err) {
    throw new Error(`error converting YAML to JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  const top = obj(doc);
  const apiVersion = str(top.apiVersion) ?? '';
  const kind = str(top.kind) ?? '';
  if (!kind) throw new Error(`Object 'Kind' is missing in '${text.trim()}'`);
  if (kind !== 'AuthenticationConfiguration' || !AUTHENTICATION_CONFIG_VERSIONS.includes(apiVersion)) {
    throw new Error(`no kind "${kind}" is registered for version "${apiVersion}" in scheme "pkg/runtime/scheme.go:100"`);
  }
  const unknown: string[] = [];
  checkShape(top, CONFIGURATION, { path: '', jsonPath: '', owner: 'AuthenticationConfiguration' }, apiVersion.split('/')[1]!, unknown);
  if (unknown.length > 0) throw new Error(`strict decoding error: ${unknown.join(', ')}`);

  const jwt = list(top.jwt).map((raw): JwtAuthenticatorSpec => {
    const a = obj(raw);
    const issuer = obj(a.issuer);
    const mappings = obj(a.claimMappings);
    const uid = obj(mappings.uid);
    return {
      issuer: {
        url: str(issuer.url) ?? '',
        discoveryURL: str(issuer.discoveryURL) ?? '',
        certificateAuthority: str(issuer.certificateAuthority) ?? '',
        audiences: list(issuer.audiences).map((x) => str(x) ?? ''),
        audienceMatchPolicy: str(issuer.audienceMatchPolicy) ?? '',
        egressSelectorType: str(issuer.egressSelectorType) ?? '',
      },
      claimValidationRules: list(a.claimValidationRules).map((r) => {
        const o = obj(r);
        return { claim: str(o.claim) ?? '', requiredValue: str(o.requiredValue) ?? '', expression: str(o.expression) ?? '', message: str(o.message) ?? '' };
      }),
      claimMappings: {
        username: claimOrExpressionOf(mappings.username),
        groups: claimOrExpressionOf(mappings.groups),
        uid: { claim: str(uid.claim) ?? '', expression: str(uid.expression) ?? '' },
        extra: list(mappings.extra).map((e) => ({ key: str(obj(e).key) ?? '', valueExpression: str(obj(e).valueExpression) ?? '' })),
      },
      userValidationRules: list(a.userValidationRules).map((r) => ({ expression: str(obj(r).expression) ?? '', message: str(obj(r).message) ?? '' })),
    };
  });
  if (!isObj(top.anonymous)) return { jwt };
  const anonymous = top.anonymous;
  return {
    jwt,
    anonymous: { enabled: anonymous.enabled === true, conditions: list(anonymous.conditions).map((c) => ({ path: str(obj(c).path) ?? '' })) },
  };
}
