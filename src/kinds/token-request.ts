/**
 * authentication.k8s.io/v1 TokenRequest: the body of `serviceaccounts/<name>/token`, never stored
 * nor served as a resource of its own. Defaults and rules as upstream's: an hour unless asked,
 * at least 10 minutes, at most 2^32 seconds.
 */
import type { FieldError } from '../api/errors.ts';
import { defineKind } from '../registry/kind.ts';
import * as field from '../registry/validation/field.ts';

export const DEFAULT_TOKEN_EXPIRATION_SECONDS = 3600;
export const MIN_TOKEN_EXPIRATION_SECONDS = 600;
export const MAX_TOKEN_EXPIRATION_SECONDS = 2 ** 32;

type Obj = Record<string, any>;

export function validateTokenRequestSpec(spec: Obj): FieldError[] {
  const errors: FieldError[] = [];
  const exp = spec.expirationSeconds;
  const p = field.path('spec', 'expirationSeconds');
  if (typeof exp !== 'number' || !Number.isInteger(exp)) errors.push(field.invalid(p, exp, 'must be an integer number of seconds'));
  else if (exp < MIN_TOKEN_EXPIRATION_SECONDS) errors.push(field.invalid(p, exp, 'may not specify a duration less than 10 minutes'));
  else if (exp > MAX_TOKEN_EXPIRATION_SECONDS) errors.push(field.invalid(p, exp, 'may not specify a duration larger than 2^32 seconds'));
  return errors;
}

export const tokenRequests = defineKind({
  group: 'authentication.k8s.io',
  version: 'v1',
  kind: 'TokenRequest',
  plural: 'tokenrequests',
  namespaced: true,
  verbs: ['create'],
  schemaMessage: 'k8s.io.api.authentication.v1.TokenRequest',
  strategy: {
    default(_ctx, obj) {
      const o = obj as Obj;
      o.spec ??= {};
      o.spec.audiences ??= [];
      o.spec.expirationSeconds ??= DEFAULT_TOKEN_EXPIRATION_SECONDS;
    },
    validate(_ctx, obj) {
      return validateTokenRequestSpec((obj as Obj).spec ?? {});
    },
  },
});
