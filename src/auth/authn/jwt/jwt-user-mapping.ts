/**
 * From a verified token's claims to the user, as upstream's JWT authenticator does it, in its order:
 * username, groups, uid, extra, then the required claims, the claim validation rules and the user
 * validation rules. Each failure is an Error in upstream's words; claim values are left out of them
 * (the reasons reach the logs, and a claim may be personal data).
 */
import type { CelValue } from '../../../cel/index.ts';
import type { UserInfo } from '../../user.ts';
import type { JwtAuthenticatorSpec } from './authentication-config.ts';
import { celInput, compileCel, type CompiledExpression } from './jwt-cel.ts';

export type Claims = Readonly<Record<string, unknown>>;

/** The extra key upstream fills from the token's jti (authenticationtokenjwt.CredentialIDForJTI). */
export const CREDENTIAL_ID_KEY = 'authentication.kubernetes.io/credential-id';

const message = (err: unknown): string => (err instanceof Error ? err.message.split('\n')[0]! : String(err));

/** encoding/json's complaint about a claim of the wrong JSON type. */
function goTypeError(value: unknown, goType: string): string {
  const json = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value === 'boolean' ? 'bool' : typeof value;
  return `json: cannot unmarshal ${json} into Go value of type ${goType}`;
}

/** A string claim; throws "claim not present" or the type error (callers add which claim). */
function stringClaim(claims: Claims, name: string): string {
  if (!(name in claims)) throw new Error('claim not present');
  const value = claims[name];
  if (typeof value !== 'string') throw new Error(goTypeError(value, 'string'));
  return value;
}

/** A CEL result as upstream's convertCELValueToStringList takes it: "", [] and null are none. */
function stringList(value: CelValue): string[] {
  if (value === null) return [];
  if (typeof value === 'string') return value === '' ? [] : [value];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.filter((v) => v !== '');
  throw new Error('expression must return a string or a list of strings');
}

/** One expression's value; its evaluation error (upstream's `expression '…' resulted in error: …`) says what was evaluated. */
function evaluate(program: CompiledExpression, input: CelValue, what: string): CelValue {
  try {
    return program.evaluate(input);
  } catch (err) {
    throw new Error(`oidc: error evaluating ${what}: ${(err as Error).message}`);
  }
}

interface Rule {
  readonly message: string;
  readonly program: CompiledExpression;
}

/**
 * Every rule must be true. As upstream, all rules are evaluated before any is judged, so an error
 * in any rule fails the token before a false one does; then the first false fails with its message.
 */
function checkRules(rules: readonly Rule[], input: CelValue, what: string): void {
  const values = rules.map((rule) => evaluate(rule.program, input, what));
  values.forEach((value, i) => {
    if (typeof value !== 'boolean') throw new Error(`oidc: error evaluating ${what}: validation expression must return a boolean`);
    if (!value) throw new Error(`oidc: error evaluating ${what}: validation expression '${rules[i]!.program.expression}' failed: ${rules[i]!.message}`);
  });
}

/** Compiles the mappings and rules of one (validated) authenticator into a function of the claims. */
export function userMapping(spec: JwtAuthenticatorSpec): (claims: Claims) => UserInfo {
  const { username, groups, uid, extra } = spec.claimMappings;
  const usernameProgram = username.expression ? compileCel(username.expression, 'claims', 'any') : undefined;
  const groupsProgram = !groups.claim && groups.expression ? compileCel(groups.expression, 'claims', 'any') : undefined;
  const uidProgram = !uid.claim && uid.expression ? compileCel(uid.expression, 'claims', 'any') : undefined;
  const extraPrograms = extra.map((e) => ({ key: e.key, program: compileCel(e.valueExpression, 'claims', 'any') }));
  const required = spec.claimValidationRules.filter((r) => r.claim).map((r) => ({ claim: r.claim!, value: r.requiredValue ?? '' }));
  const claimRules = spec.claimValidationRules.filter((r) => r.expression).map((r) => ({ message: r.message ?? '', program: compileCel(r.expression!, 'claims', 'bool') }));
  const userRules = spec.userValidationRules.map((r) => ({ message: r.message ?? '', program: compileCel(r.expression, 'user', 'bool') }));

  function nameOf(claims: Claims, input: () => CelValue): string {
    if (usernameProgram) {
      const value = evaluate(usernameProgram, input(), 'username claim expression');
      if (typeof value !== 'string') throw new Error('oidc: error evaluating username claim expression: username claim expression must return a string');
      if (value === '') throw new Error('oidc: empty username via CEL expression is not allowed');
      return value;
    }
    const claim = username.claim ?? '';
    let name: string;
    try {
      name = stringClaim(claims, claim);
    } catch (err) {
      throw new Error(`oidc: parse username claims "${claim}": ${message(err)}`);
    }
    // An email is trusted only when the issuer does not say it is unverified.
    if (claim === 'email' && 'email_verified' in claims) {
      if (typeof claims.email_verified !== 'boolean') throw new Error(`oidc: parse 'email_verified' claim: ${goTypeError(claims.email_verified, 'bool')}`);
      if (!claims.email_verified) throw new Error('oidc: email not verified');
    }
    return (username.prefix ?? '') + name;
  }

  function groupsOf(claims: Claims, input: () => CelValue): string[] {
    const claim = groups.claim ?? '';
    if (claim && claim in claims) {
      // A single string is one group, as upstream allows (kubernetes#33290).
      const value = claims[claim];
      const list = typeof value === 'string' ? [value] : Array.isArray(value) && value.every((g) => typeof g === 'string') ? (value as string[]) : undefined;
      if (!list) throw new Error(`oidc: parse groups claim "${claim}": ${goTypeError(value, 'string')}`);
      return list.map((g) => (groups.prefix ?? '') + g);
    }
    if (!groupsProgram) return [];
    const value = evaluate(groupsProgram, input(), 'group claim expression');
    try {
      return stringList(value);
    } catch (err) {
      throw new Error(`oidc: error evaluating group claim expression: ${message(err)}`);
    }
  }

  function uidOf(claims: Claims, input: () => CelValue): string {
    if (uid.claim) {
      try {
        return stringClaim(claims, uid.claim);
      } catch (err) {
        throw new Error(`oidc: parse uid claim "${uid.claim}": ${message(err)}`);
      }
    }
    if (!uidProgram) return '';
    const value = evaluate(uidProgram, input(), 'uid claim expression');
    if (typeof value !== 'string') throw new Error('oidc: error evaluating uid claim expression: uid claim expression must return a string');
    return value;
  }

  function extraOf(claims: Claims, input: () => CelValue): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    if (typeof claims.jti === 'string') out[CREDENTIAL_ID_KEY] = [`JTI=${claims.jti}`];
    // All are evaluated first; upstream returns an evaluation error as the mapper words it, unprefixed.
    const results = extraPrograms.map((e) => e.program.evaluate(input()));
    extraPrograms.forEach((e, i) => {
      let values: string[];
      try {
        values = stringList(results[i]!);
      } catch (err) {
        throw new Error(`oidc: error evaluating extra claim expression: ${e.program.expression}: ${message(err)}`);
      }
      if (values.length > 0) out[e.key] = values;
    });
    return out;
  }

  return (claims) => {
    let converted: CelValue | undefined;
    const input = () => (converted ??= celInput(claims));
    const name = nameOf(claims, input);
    const groupList = groupsOf(claims, input);
    const uidValue = uidOf(claims, input);
    const extraValues = extraOf(claims, input);
    for (const { claim, value } of required) {
      if (!(claim in claims)) throw new Error(`oidc: required claim ${claim} not present in ID token`);
      if (typeof claims[claim] !== 'string') throw new Error(`oidc: parse claim ${claim}: ${goTypeError(claims[claim], 'string')}`);
      if (claims[claim] !== value) throw new Error(`oidc: required claim ${claim} value does not match`);
    }
    if (claimRules.length > 0) checkRules(claimRules, input(), 'claim validation expression');
    const user: UserInfo = {
      name,
      groups: groupList,
      ...(uidValue ? { uid: uidValue } : {}),
      ...(Object.keys(extraValues).length > 0 ? { extra: extraValues } : {}),
    };
    // The rules see every field, empty ones included, as upstream's conversion fills them in.
    if (userRules.length > 0) checkRules(userRules, celInput({ username: name, uid: uidValue, groups: groupList, extra: extraValues }), 'user info validation rule');
    return user;
  };
}
