/**
 * The AuthenticationConfiguration file's decoding and validation, without a server: each rule with
 * upstream's field path and words, and the flags that exclude parts of the file.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldErrorText } from '../../src/api/errors.ts';
import { decodeAuthenticationConfig } from '../../src/auth/authn/jwt/authentication-config.ts';
import { validateAuthenticationConfig } from '../../src/auth/authn/jwt/authentication-config-validation.ts';
import { loadConfig } from '../../src/config.ts';

const SA_ISSUER = 'https://kubernetes.default.svc.cluster.local';
const HEAD = 'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\n';

/** The messages of a file's problems. */
function problems(yamlBody: string): string[] {
  const spec = decodeAuthenticationConfig(HEAD + yamlBody);
  return validateAuthenticationConfig(spec, [SA_ISSUER]).map((e) => `${e.field}: ${fieldErrorText(e)}`);
}

/** One authenticator whose issuer is fine, with `rest` (YAML under the list item) added. */
const jwt = (rest: string, issuer = '{url: "https://idp.example", audiences: [k8s]}') => `jwt:\n- issuer: ${issuer}\n${rest}`;
const username = '  claimMappings: {username: {claim: sub, prefix: ""}}\n';

describe('AuthenticationConfiguration validation', () => {
  const cases: { name: string; body: string; want: string[] }[] = [
    { name: 'a minimal file', body: jwt(username), want: [] },
    { name: 'no authenticators at all', body: 'jwt: []\n', want: [] },
    {
      name: 'the issuer URL: https, no query, no fragment, no user',
      body: jwt(username, '{url: "http://u:p@idp?x=1#f", audiences: [k8s]}'),
      want: [
        'jwt[0].issuer.url: Invalid value: "http://u:p@idp?x=1#f": URL scheme must be https',
        'jwt[0].issuer.url: Invalid value: "http://u:p@idp?x=1#f": URL must not contain a username or password',
        'jwt[0].issuer.url: Invalid value: "http://u:p@idp?x=1#f": URL must not contain a query',
        'jwt[0].issuer.url: Invalid value: "http://u:p@idp?x=1#f": URL must not contain a fragment',
      ],
    },
    { name: 'the issuer URL is required', body: jwt(username, '{audiences: [k8s]}'), want: ['jwt[0].issuer.url: Required value'] },
    {
      name: 'a service account issuer may not be claimed',
      body: jwt(username, `{url: "${SA_ISSUER}", audiences: [k8s]}`),
      want: [`jwt[0].issuer.url: Invalid value: "${SA_ISSUER}": URL must not overlap with disallowed issuers: [${SA_ISSUER}]`],
    },
    {
      name: 'the discovery URL must differ from the issuer URL',
      body: jwt(username, '{url: "https://idp.example", discoveryURL: "https://idp.example/", audiences: [k8s]}'),
      want: ['jwt[0].issuer.discoveryURL: Invalid value: "https://idp.example/": discoveryURL must be different from URL'],
    },
    {
      name: 'audiences: at least one, unique, several only with MatchAny',
      body: jwt(username, '{url: "https://idp.example", audiences: [a, a]}'),
      want: ['jwt[0].issuer.audiences[1]: Duplicate value: "a"', 'jwt[0].issuer.audienceMatchPolicy: Invalid value: "": audienceMatchPolicy must be MatchAny for multiple audiences'],
    },
    {
      name: 'no audiences',
      body: jwt(username, '{url: "https://idp.example"}'),
      want: ['jwt[0].issuer.audiences: Required value: at least one jwt[0].issuer.audiences is required'],
    },
    {
      name: 'one audience with another policy',
      body: jwt(username, '{url: "https://idp.example", audiences: [a], audienceMatchPolicy: MatchAll}'),
      want: ['jwt[0].issuer.audienceMatchPolicy: Invalid value: "MatchAll": audienceMatchPolicy must be empty or MatchAny for single audience'],
    },
    {
      name: 'a certificate authority without certificates',
      body: jwt(username, '{url: "https://idp.example", audiences: [a], certificateAuthority: "not a pem"}'),
      want: ['jwt[0].issuer.certificateAuthority: Invalid value: "<omitted>": data does not contain any valid RSA or ECDSA certificates'],
    },
    {
      name: 'the username: claim or expression, a prefix with a claim only',
      body: jwt('  claimMappings: {username: {claim: sub}, groups: {expression: "claims.g", prefix: "x:"}}\n'),
      want: [
        'jwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing',
        'jwt[0].claimMappings.groups.prefix: Invalid value: "x:": may not be specified when expression is set',
      ],
    },
    { name: 'no username mapping', body: jwt(''), want: ['jwt[0].claimMappings.username: Required value: claim or expression is required'] },
    {
      name: 'claim and expression together',
      body: jwt('  claimMappings: {username: {claim: sub, expression: claims.sub}, uid: {claim: sub, expression: claims.sub}}\n'),
      want: [
        'jwt[0].claimMappings.username: Invalid value: "": claim and expression can\'t both be set',
        'jwt[0].claimMappings.uid: Invalid value: "": claim and expression can\'t both be set',
      ],
    },
    {
      name: 'claims.email in the username needs claims.email_verified somewhere',
      body: jwt('  claimMappings: {username: {expression: claims.email}}\n'),
      want: [
        'jwt[0].claimMappings.username.expression: Invalid value: "claims.email": claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression',
      ],
    },
    {
      name: 'claims.email_verified in a claim validation rule is enough',
      body: jwt('  claimMappings: {username: {expression: claims.email}}\n  claimValidationRules: [{expression: "claims.?email_verified.orValue(true) == true"}]\n'),
      want: [],
    },
    {
      // The reason upstream's documentation compares to true: a claim is dyn, and a rule must be a bool.
      name: 'a claim validation rule of type dyn does not compile (and so does not count as using email_verified)',
      body: jwt('  claimMappings: {username: {expression: claims.email}}\n  claimValidationRules: [{expression: "claims.?email_verified.orValue(true)"}, {expression: claims.admin}]\n'),
      want: [
        'jwt[0].claimValidationRules[0].expression: Invalid value: "claims.?email_verified.orValue(true)": must evaluate to bool',
        'jwt[0].claimValidationRules[1].expression: Invalid value: "claims.admin": must evaluate to bool',
        'jwt[0].claimMappings.username.expression: Invalid value: "claims.email": claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression',
      ],
    },
    {
      name: 'claim validation rules',
      body: jwt(
        username +
          '  claimValidationRules: [{claim: a, expression: b}, {}, {claim: c, message: m}, {claim: c}, {expression: "claims.x == 1", requiredValue: y}, {expression: "claims.x == 1"}, {expression: "1"}]\n',
      ),
      want: [
        'jwt[0].claimValidationRules[0]: Invalid value: "a": claim and expression can\'t both be set',
        'jwt[0].claimValidationRules[1]: Required value: claim or expression is required',
        'jwt[0].claimValidationRules[2].message: Invalid value: "m": may not be specified when claim is set',
        'jwt[0].claimValidationRules[3].claim: Duplicate value: "c"',
        'jwt[0].claimValidationRules[4].requiredValue: Invalid value: "y": may not be specified when expression is set',
        'jwt[0].claimValidationRules[5].expression: Duplicate value: "claims.x == 1"',
        'jwt[0].claimValidationRules[6].expression: Invalid value: "1": must evaluate to bool',
      ],
    },
    {
      name: 'extra keys: domain-prefixed, lowercase, not Kubernetes\', unique, with a value',
      body: jwt(
        '  claimMappings:\n    username: {claim: sub, prefix: ""}\n    extra: [{key: foo, valueExpression: "1"}, {key: Example.org/x, valueExpression: "1"}, {key: sub.k8s.io/x, valueExpression: "1"}, {key: example.org/y, valueExpression: "1"}, {key: example.org/y, valueExpression: "2"}, {key: example.org/z}]\n',
      ),
      want: [
        'jwt[0].claimMappings.extra[0].key: Invalid value: "foo": must be a domain-prefixed path (such as "acme.io/foo")',
        'jwt[0].claimMappings.extra[1].key: Invalid value: "Example.org": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
        'jwt[0].claimMappings.extra[1].key: Invalid value: "Example.org/x": must be lowercase',
        'jwt[0].claimMappings.extra[2].key: Invalid value: "sub.k8s.io/x": k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use',
        'jwt[0].claimMappings.extra[4].key: Duplicate value: "example.org/y"',
        'jwt[0].claimMappings.extra[5].valueExpression: Required value',
      ],
    },
    {
      name: 'CEL compile errors: undeclared variables, syntax, unknown user fields',
      body: jwt(
        '  claimMappings: {username: {expression: "request.user"}, uid: {expression: "claims.sub +"}}\n  userValidationRules: [{expression: user.nickname}, {expression: ""}]\n',
      ),
      want: [
        'jwt[0].claimMappings.username.expression: Invalid value: "request.user": compilation failed: ERROR: <input>:1:1: undeclared reference to \'request\' (in container \'\')\n | request.user\n | ^',
        `jwt[0].claimMappings.uid.expression: Invalid value: "claims.sub +": compilation failed: ERROR: <input>:1:13: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | claims.sub +\n | ............^`,
        'jwt[0].userValidationRules[0].expression: Invalid value: "user.nickname": compilation failed: ERROR: <input>:1:5: undefined field \'nickname\'\n | user.nickname\n | ....^',
        'jwt[0].userValidationRules[1].expression: Required value',
      ],
    },
    {
      name: 'issuers and discovery URLs are unique',
      body:
        'jwt:\n' +
        '- {issuer: {url: "https://a", discoveryURL: "https://d", audiences: [k]}, claimMappings: {username: {claim: sub, prefix: ""}}}\n' +
        '- {issuer: {url: "https://a", discoveryURL: "https://d", audiences: [k]}, claimMappings: {username: {claim: sub, prefix: ""}}}\n',
      want: ['jwt[1].issuer.url: Duplicate value: "https://a"', 'jwt[1].issuer.discoveryURL: Duplicate value: "https://d"'],
    },
    {
      name: 'anonymous conditions need enabled',
      body: 'anonymous: {enabled: false, conditions: [{path: /livez}]}\n',
      want: ['anonymous.conditions: Invalid value: []apiserver.AnonymousAuthCondition{apiserver.AnonymousAuthCondition{Path:"/livez"}}: enabled should be set to true when conditions are defined'],
    },
    {
      name: 'an egress selector other than controlplane or cluster',
      body: jwt(username, '{url: "https://idp.example", audiences: [k8s], egressSelectorType: etcd}'),
      want: ['jwt[0].issuer.egressSelectorType: Invalid value: "etcd": egress selector must be either controlplane or cluster'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(problems(c.body), c.want));
  }

  it('more than 64 authenticators', () => {
    const many = Array.from({ length: 65 }, (_, i) => `- {issuer: {url: "https://i${i}", audiences: [k]}, claimMappings: {username: {claim: sub, prefix: ""}}}`).join('\n');
    assert.deepEqual(problems(`jwt:\n${many}\n`), ['jwt: Too many: 65: must have at most 64 items']);
  });
});

describe('AuthenticationConfiguration decoding', () => {
  it('reads v1, v1beta1 and v1alpha1, in YAML or JSON', () => {
    for (const version of ['v1', 'v1beta1', 'v1alpha1']) {
      const spec = decodeAuthenticationConfig(JSON.stringify({ apiVersion: `apiserver.config.k8s.io/${version}`, kind: 'AuthenticationConfiguration', anonymous: { enabled: true } }));
      assert.deepEqual(spec, { jwt: [], anonymous: { enabled: true, conditions: [] } });
    }
  });

  it('refuses unknown fields and values of the wrong type, as the strict decoder', () => {
    assert.throws(() => decodeAuthenticationConfig(`${HEAD}jwt:\n- issuer: {url: "https://a", audience: [k]}\n  claimMapping: {}\n`), {
      message: 'strict decoding error: unknown field "jwt[0].issuer.audience", unknown field "jwt[0].claimMapping"',
    });
    assert.throws(() => decodeAuthenticationConfig(`${HEAD}jwt:\n- issuer: {url: 1}\n`), {
      message: 'json: cannot unmarshal number into Go struct field Issuer.jwt.issuer.url of type string',
    });
    assert.throws(() => decodeAuthenticationConfig(`${HEAD}anonymous: {enabled: "yes"}\n`), {
      message: 'json: cannot unmarshal string into Go struct field AnonymousAuthConfig.anonymous.enabled of type bool',
    });
  });

  it('refuses an empty file, another kind or version', () => {
    assert.throws(() => decodeAuthenticationConfig(''), { message: 'empty config data' });
    assert.throws(() => decodeAuthenticationConfig('apiVersion: apiserver.config.k8s.io/v2\nkind: AuthenticationConfiguration\n'), /no kind "AuthenticationConfiguration" is registered for version "apiserver.config.k8s.io\/v2"/);
    assert.throws(() => decodeAuthenticationConfig('apiVersion: apiserver.config.k8s.io/v1\n'), /Object 'Kind' is missing/);
  });
});

describe('flags that exclude parts of --authentication-config', () => {
  it('any --oidc-* flag given with the file is refused', () => {
    for (const flag of ['--oidc-issuer-url=https://idp', '--oidc-username-claim=sub', '--oidc-signing-algs=RS256']) {
      assert.throws(() => loadConfig(['--authentication-config=/x.yaml', flag], {}), /authentication-config file and oidc-\* flags are mutually exclusive/, flag);
    }
  });

  it('the environment counts only when it differs from the default (a copied .env.example sets nothing)', () => {
    assert.doesNotThrow(() => loadConfig(['--authentication-config=/x.yaml'], { OIDC_USERNAME_CLAIM: 'sub', OIDC_SIGNING_ALGS: 'RS256' }));
    assert.throws(() => loadConfig(['--authentication-config=/x.yaml'], { OIDC_USERNAME_CLAIM: 'email' }), /mutually exclusive/);
  });

  it('without the file, any --oidc-* flag needs both the issuer and the client id', () => {
    assert.throws(() => loadConfig(['--oidc-username-claim=email'], {}), { message: 'oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set' });
    assert.throws(() => loadConfig(['--oidc-issuer-url=https://idp'], {}), /must be specified together/);
    assert.doesNotThrow(() => loadConfig(['--oidc-issuer-url=https://idp', '--oidc-client-id=c'], {}));
  });
});
