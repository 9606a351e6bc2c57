/**
 * Validation of an AuthenticationConfiguration as kube-apiserver 1.34 does it: every problem with
 * upstream's field path and words, none of them fatal to the others. The --oidc-* flags, turned into
 * one JWT authenticator, go through the same rules.
 */
import { X509Certificate } from 'node:crypto';
import type { FieldError } from '../../../api/errors.ts';
import { dns1123SubdomainErrors, regexError } from '../../../api/validation/names.ts';
import type { AuthenticationConfigSpec, ClaimValidationRule, ExtraMapping, IssuerSpec, JwtAuthenticatorSpec, PrefixedClaimOrExpression, UserValidationRule } from './authentication-config.ts';
import { celCompileProblem, selectsField, type CelResult, type CelVariable } from './jwt-cel.ts';

const MAX_JWT_AUTHENTICATORS = 64;
const HTTP_PATH_FMT = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
const HTTP_PATH_RE = new RegExp(`^${HTTP_PATH_FMT}$`);
const EMAIL_VERIFIED_REQUIRED =
  'claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression';

/** All the problems of the configuration; `disallowedIssuers` are the service account issuers. */
export function validateAuthenticationConfig(spec: AuthenticationConfigSpec, disallowedIssuers: readonly string[]): FieldError[] {
  const errors: FieldError[] = [];
  // No authenticators at all is fine: a file may add them later, by reload.
  if (spec.jwt.length > MAX_JWT_AUTHENTICATORS) {
    return [{ type: 'FieldValueTooMany', field: 'jwt', value: spec.jwt.length, detail: `must have at most ${MAX_JWT_AUTHENTICATORS} items` }];
  }
  const issuers = new Set<string>();
  const discoveryUrls = new Set<string>();
  spec.jwt.forEach((a, i) => {
    const at = `jwt[${i}]`;
    errors.push(...validateJwtAuthenticator(a, at, disallowedIssuers));
    if (issuers.has(a.issuer.url)) errors.push({ type: 'FieldValueDuplicate', field: `${at}.issuer.url`, value: a.issuer.url });
    issuers.add(a.issuer.url);
    const discovery = a.issuer.discoveryURL ?? '';
    if (discovery) {
      if (discoveryUrls.has(discovery)) errors.push({ type: 'FieldValueDuplicate', field: `${at}.issuer.discoveryURL`, value: discovery });
      discoveryUrls.add(discovery);
    }
  });
  if (spec.anonymous && !spec.anonymous.enabled && spec.anonymous.conditions.length > 0) {
    // Upstream prints the conditions with %#v.
    const shown = `[]apiserver.AnonymousAuthCondition{${spec.anonymous.conditions.map((c) => `apiserver.AnonymousAuthCondition{Path:${JSON.stringify(c.path)}}`).join(', ')}}`;
    errors.push({ type: 'FieldValueInvalid', field: 'anonymous.conditions', rawValue: shown, detail: 'enabled should be set to true when conditions are defined' });
  }
  return errors;
}

/** What validating one authenticator learns about its use of the email claims. */
interface EmailUse {
  email: boolean;
  emailVerified: boolean;
}

export function validateJwtAuthenticator(a: JwtAuthenticatorSpec, at: string, disallowedIssuers: readonly string[]): FieldError[] {
  const errors: FieldError[] = [];
  const email: EmailUse = { email: false, emailVerified: false };
  validateIssuer(a.issuer, `${at}.issuer`, disallowedIssuers, errors);
  validateClaimValidationRules(a.claimValidationRules, `${at}.claimValidationRules`, email, errors);
  validateClaimMappings(a.claimMappings, `${at}.claimMappings`, email, errors);
  validateUserValidationRules(a.userValidationRules, `${at}.userValidationRules`, errors);
  return errors;
}

// ---- issuer ----

function validateIssuer(issuer: IssuerSpec, at: string, disallowed: readonly string[], errors: FieldError[]): void {
  if (!issuer.url) errors.push({ type: 'FieldValueRequired', field: `${at}.url` });
  else validateUrl(issuer.url, `${at}.url`, disallowed, errors);
  const discovery = issuer.discoveryURL ?? '';
  if (discovery) {
    if (issuer.url && issuer.url.replace(/\/+$/, '') === discovery.replace(/\/+$/, '')) {
      errors.push({ type: 'FieldValueInvalid', field: `${at}.discoveryURL`, value: discovery, detail: 'discoveryURL must be different from URL' });
    }
    // The discovery URL is not an issuer: the disallowed issuers do not apply to it.
    validateUrl(discovery, `${at}.discoveryURL`, [], errors);
  }
  validateAudiences(issuer, at, errors);
  const ca = issuer.certificateAuthority ?? '';
  if (ca) {
    const problem = caBundleProblem(ca);
    if (problem) errors.push({ type: 'FieldValueInvalid', field: `${at}.certificateAuthority`, value: '<omitted>', detail: problem });
  }
  // No egress selector here: both types connect directly, but only they are accepted.
  const egress = issuer.egressSelectorType ?? '';
  if (egress && egress !== 'controlplane' && egress !== 'cluster') {
    errors.push({ type: 'FieldValueInvalid', field: `${at}.egressSelectorType`, value: egress, detail: 'egress selector must be either controlplane or cluster' });
  }
}

/** Go's url.Parse, as far as the rules need it: scheme, user info, query and fragment. */
function validateUrl(text: string, field: string, disallowed: readonly string[], errors: FieldError[]): void {
  if (disallowed.includes(text)) {
    errors.push({ type: 'FieldValueInvalid', field, value: text, detail: `URL must not overlap with disallowed issuers: [${[...disallowed].sort().join(' ')}]` });
  }
  if (text.startsWith(':')) {
    errors.push({ type: 'FieldValueInvalid', field, value: text, detail: `parse ${JSON.stringify(text)}: missing protocol scheme` });
    return;
  }
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(text)?.[1]?.toLowerCase() ?? '';
  if (scheme !== 'https') errors.push({ type: 'FieldValueInvalid', field, value: text, detail: 'URL scheme must be https' });
  const hash = text.indexOf('#');
  const beforeFragment = hash < 0 ? text : text.slice(0, hash);
  const query = beforeFragment.indexOf('?');
  const beforeQuery = query < 0 ? beforeFragment : beforeFragment.slice(0, query);
  const authority = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/]*)/.exec(beforeQuery)?.[1] ?? '';
  if (authority.includes('@')) errors.push({ type: 'FieldValueInvalid', field, value: text, detail: 'URL must not contain a username or password' });
  if (query >= 0 && query < beforeFragment.length - 1) errors.push({ type: 'FieldValueInvalid', field, value: text, detail: 'URL must not contain a query' });
  if (hash >= 0 && hash < text.length - 1) errors.push({ type: 'FieldValueInvalid', field, value: text, detail: 'URL must not contain a fragment' });
}

function validateAudiences(issuer: IssuerSpec, at: string, errors: FieldError[]): void {
  const field = `${at}.audiences`;
  if (issuer.audiences.length === 0) {
    errors.push({ type: 'FieldValueRequired', field, detail: `at least one ${field} is required` });
    return;
  }
  const seen = new Set<string>();
  issuer.audiences.forEach((aud, i) => {
    if (aud === '') errors.push({ type: 'FieldValueRequired', field: `${field}[${i}]` });
    if (seen.has(aud)) errors.push({ type: 'FieldValueDuplicate', field: `${field}[${i}]`, value: aud });
    seen.add(aud);
  });
  const policy = issuer.audienceMatchPolicy ?? '';
  if (issuer.audiences.length > 1 && policy !== 'MatchAny') {
    errors.push({ type: 'FieldValueInvalid', field: `${at}.audienceMatchPolicy`, value: policy, detail: 'audienceMatchPolicy must be MatchAny for multiple audiences' });
  }
  if (issuer.audiences.length === 1 && policy !== '' && policy !== 'MatchAny') {
    errors.push({ type: 'FieldValueInvalid', field: `${at}.audienceMatchPolicy`, value: policy, detail: 'audienceMatchPolicy must be empty or MatchAny for single audience' });
  }
}

/** client-go's cert.NewPoolFromBytes: every CERTIFICATE block must parse, and there must be one. */
function caBundleProblem(pem: string): string | undefined {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  for (const block of blocks) {
    try {
      new X509Certificate(block);
    } catch (err) {
      return `x509: ${(err as Error).message}`;
    }
  }
  return blocks.length === 0 ? 'data does not contain any valid RSA or ECDSA certificates' : undefined;
}

// ---- claims ----

function compile(expression: string, variable: CelVariable, result: CelResult, field: string, errors: FieldError[]): boolean {
  const problem = celCompileProblem(expression, variable, result);
  if (problem) errors.push({ type: 'FieldValueInvalid', field, value: expression, detail: problem });
  return problem === undefined;
}

function validateClaimValidationRules(rules: readonly ClaimValidationRule[], at: string, email: EmailUse, errors: FieldError[]): void {
  const claims = new Set<string>();
  const expressions = new Set<string>();
  rules.forEach((rule, i) => {
    const here = `${at}[${i}]`;
    const claim = rule.claim ?? '';
    const expression = rule.expression ?? '';
    if (claim && expression) return void errors.push({ type: 'FieldValueInvalid', field: here, value: claim, detail: "claim and expression can't both be set" });
    if (!claim && !expression) return void errors.push({ type: 'FieldValueRequired', field: here, detail: 'claim or expression is required' });
    if (claim) {
      if (rule.message) errors.push({ type: 'FieldValueInvalid', field: `${here}.message`, value: rule.message, detail: 'may not be specified when claim is set' });
      if (claims.has(claim)) errors.push({ type: 'FieldValueDuplicate', field: `${here}.claim`, value: claim });
      claims.add(claim);
      return;
    }
    if (rule.requiredValue) errors.push({ type: 'FieldValueInvalid', field: `${here}.requiredValue`, value: rule.requiredValue, detail: 'may not be specified when expression is set' });
    if (expressions.has(expression)) return void errors.push({ type: 'FieldValueDuplicate', field: `${here}.expression`, value: expression });
    expressions.add(expression);
    if (compile(expression, 'claims', 'bool', `${here}.expression`, errors)) email.emailVerified ||= selectsField(expression, 'claims', 'email_verified');
  });
}

/** A username or groups mapping; returns the expression when it compiled cleanly. */
function validatePrefixedMapping(m: PrefixedClaimOrExpression, at: string, required: boolean, errors: FieldError[]): string | undefined {
  const claim = m.claim ?? '';
  const expression = m.expression ?? '';
  if (claim && expression) return void errors.push({ type: 'FieldValueInvalid', field: at, value: '', detail: "claim and expression can't both be set" });
  if (!claim && !expression) {
    if (required) errors.push({ type: 'FieldValueRequired', field: at, detail: 'claim or expression is required' });
    return undefined;
  }
  if (expression) {
    let clean = true;
    if (m.prefix !== undefined) {
      errors.push({ type: 'FieldValueInvalid', field: `${at}.prefix`, value: m.prefix, detail: 'may not be specified when expression is set' });
      clean = false;
    }
    return compile(expression, 'claims', 'any', `${at}.expression`, errors) && clean ? expression : undefined;
  }
  if (m.prefix === undefined) {
    errors.push({ type: 'FieldValueRequired', field: `${at}.prefix`, detail: 'prefix is required when claim is set. It can be set to an empty string to disable prefixing' });
  }
  return undefined;
}

function validateClaimMappings(m: JwtAuthenticatorSpec['claimMappings'], at: string, email: EmailUse, errors: FieldError[]): void {
  const username = validatePrefixedMapping(m.username, `${at}.username`, true, errors);
  if (username !== undefined) {
    email.email ||= selectsField(username, 'claims', 'email');
    email.emailVerified ||= selectsField(username, 'claims', 'email_verified');
  }
  validatePrefixedMapping(m.groups, `${at}.groups`, false, errors);
  const uidClaim = m.uid.claim ?? '';
  const uidExpression = m.uid.expression ?? '';
  if (uidClaim && uidExpression) errors.push({ type: 'FieldValueInvalid', field: `${at}.uid`, value: '', detail: "claim and expression can't both be set" });
  else if (uidExpression) compile(uidExpression, 'claims', 'any', `${at}.uid.expression`, errors);

  const keys = new Set<string>();
  m.extra.forEach((mapping, i) => {
    const here = `${at}.extra[${i}]`;
    if (validateExtraMapping(mapping, here, keys, errors)) email.emailVerified ||= selectsField(mapping.valueExpression, 'claims', 'email_verified');
  });
  if (email.email && !email.emailVerified) {
    errors.push({ type: 'FieldValueInvalid', field: `${at}.username.expression`, value: m.username.expression ?? '', detail: EMAIL_VERIFIED_REQUIRED });
  }
}

/** One extra mapping; true when its expression compiled. */
function validateExtraMapping(mapping: ExtraMapping, at: string, keys: Set<string>, errors: FieldError[]): boolean {
  const keyField = `${at}.key`;
  errors.push(...domainPrefixedPathErrors(mapping.key, keyField));
  if (mapping.key !== mapping.key.toLowerCase()) errors.push({ type: 'FieldValueInvalid', field: keyField, value: mapping.key, detail: 'must be lowercase' });
  if (isKubernetesDomain(mapping.key)) {
    errors.push({ type: 'FieldValueInvalid', field: keyField, value: mapping.key, detail: 'k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use' });
  }
  if (keys.has(mapping.key)) {
    errors.push({ type: 'FieldValueDuplicate', field: keyField, value: mapping.key });
    return false;
  }
  keys.add(mapping.key);
  if (!mapping.valueExpression) {
    errors.push({ type: 'FieldValueRequired', field: `${at}.valueExpression` });
    return false;
  }
  return compile(mapping.valueExpression, 'claims', 'any', `${at}.valueExpression`, errors);
}

/** apimachinery's IsDomainPrefixedPath: `example.org/some/path`. */
function domainPrefixedPathErrors(key: string, field: string): FieldError[] {
  if (!key) return [{ type: 'FieldValueRequired', field }];
  const slash = key.indexOf('/');
  const host = slash < 0 ? key : key.slice(0, slash);
  const rest = slash < 0 ? '' : key.slice(slash + 1);
  if (slash < 0 || !host || !rest) return [{ type: 'FieldValueInvalid', field, value: key, detail: 'must be a domain-prefixed path (such as "acme.io/foo")' }];
  const errors: FieldError[] = dns1123SubdomainErrors(host).map((detail) => ({ type: 'FieldValueInvalid', field, value: host, detail }));
  if (!HTTP_PATH_RE.test(rest)) errors.push({ type: 'FieldValueInvalid', field, value: rest, detail: regexError('Invalid path', HTTP_PATH_FMT) });
  return errors;
}

function isKubernetesDomain(key: string): boolean {
  const slash = key.indexOf('/');
  const domain = slash < 0 ? '' : key.slice(0, slash);
  return ['kubernetes.io', 'k8s.io'].some((d) => domain === d || domain.endsWith(`.${d}`));
}

// ---- user ----

function validateUserValidationRules(rules: readonly UserValidationRule[], at: string, errors: FieldError[]): void {
  const seen = new Set<string>();
  rules.forEach((rule, i) => {
    const field = `${at}[${i}].expression`;
    if (!rule.expression) return void errors.push({ type: 'FieldValueRequired', field });
    if (seen.has(rule.expression)) return void errors.push({ type: 'FieldValueDuplicate', field, value: rule.expression });
    seen.add(rule.expression);
    compile(rule.expression, 'user', 'bool', field, errors);
  });
}
