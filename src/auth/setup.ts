/**
 * Start-up step: authentication and authorization as the flags configure them. Every method and
 * authorizer is built here, in kube-apiserver's order, and handed to the request path (app.ts) and,
 * as AuthServices, to the reviews, TokenRequest, impersonation and the RBAC escalation checks.
 *
 * Order of authentication (upstream's union): client certificates, then bearer tokens from the token
 * file, service account tokens, bootstrap tokens, OIDC / the authentication configuration; anonymous
 * last. Order of authorization: system:masters first, then the configured chain.
 */
import type Router from '@koa/router';
import type { Logger } from 'pino';
import type { Closers } from '../closers.ts';
import { authorizationModes, type Config } from '../config.ts';
import type { ApiSurface } from '../registry/api-surface.ts';
import type { Authenticator } from './authn/authenticator.ts';
import { BearerTokenAuthenticator, type TokenVerifier } from './authn/bearer-token-authenticator.ts';
import { X509Authenticator } from './authn/x509-authenticator.ts';
import { chainAccessChecker } from './authz/chain.ts';
import type { Authorizer } from './authz/authorizer.ts';
import { alwaysAllowAuthorizer, alwaysDenyAuthorizer, privilegedGroupAuthorizer, publicInfoAuthorizer } from './authz/builtin-authorizers.ts';
import type { AuthServices, RuleResolver, ServiceAccountTokenIssuer } from './services.ts';

export interface AuthSetupDeps {
  readonly config: Config;
  readonly surface: ApiSurface;
  readonly logger: Logger;
  readonly closers: Closers;
}

export interface AuthSetup {
  readonly authenticators: readonly Authenticator[];
  /** --anonymous-auth. */
  readonly anonymous: boolean;
  /** The whole chain, system:masters first. */
  readonly authorizers: readonly Authorizer[];
  readonly services: AuthServices;
  /** Routes outside the API that authentication serves (the service account issuer's discovery documents). */
  readonly routes: readonly ((router: Router) => void)[];
}

/** The authentication methods, authorizers and services the configuration asks for. */
export async function setUpAuth(deps: AuthSetupDeps): Promise<AuthSetup> {
  const { config } = deps;
  const apiAudiences = config.apiAudiences.length > 0 ? config.apiAudiences : config.serviceAccountIssuer.slice(0, 1);
  const verifiers: TokenVerifier[] = [];
  const routes: ((router: Router) => void)[] = [];
  let tokenIssuer: ServiceAccountTokenIssuer | undefined;
  let rules: RuleResolver | undefined;

  // --- authentication: bearer token sources, in upstream's order ---
  // [token file] --token-auth-file

  // [service accounts] --service-account-* (verifier, issuer, discovery routes)

  // [bootstrap tokens] --enable-bootstrap-token-auth

  // [OIDC] --oidc-* or --authentication-config


  // --- authorization: the configured chain ---
  const chain: Authorizer[] = [privilegedGroupAuthorizer, publicInfoAuthorizer];
  for (const mode of authorizationModes(config)) {
    switch (mode) {
      case 'AlwaysAllow':
        chain.push(alwaysAllowAuthorizer);
        break;
      case 'AlwaysDeny':
        chain.push(alwaysDenyAuthorizer);
        break;
      case 'Node':
        // [node authorizer]
        break;
      case 'RBAC':
        // [rbac]
        break;
      case 'Webhook':
        // [webhook]
        break;
      default:
        throw new Error(`--authorization-mode: ${mode} is not available`);
    }
  }

  // [authorization config] --authorization-config

  const bearer = new BearerTokenAuthenticator(verifiers, apiAudiences);
  const services: AuthServices = {
    access: chainAccessChecker(chain),
    apiAudiences,
    tokenReviewer: bearer,
    ...(rules ? { rules } : {}),
    ...(tokenIssuer ? { tokenIssuer } : {}),
  };
  return { authenticators: [new X509Authenticator(), bearer], anonymous: config.anonymousAuth, authorizers: chain, services, routes };
}
