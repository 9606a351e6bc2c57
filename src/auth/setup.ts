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
import { authorizationModes, flagGiven, type Config } from '../config.ts';
import type { ApiSurface } from '../registry/api-surface.ts';
import type { Authenticator } from './authn/authenticator.ts';
import { BearerTokenAuthenticator, type TokenVerifier } from './authn/bearer-token-authenticator.ts';
import { X509Authenticator } from './authn/x509-authenticator.ts';
import { chainAccessChecker, chainRuleResolver } from './authz/chain.ts';
import type { Authorizer } from './authz/authorizer.ts';
import { alwaysAllowAuthorizer, alwaysDenyAuthorizer, privilegedGroupAuthorizer } from './authz/builtin-authorizers.ts';
import { tokenFileVerifier } from './authn/token-file.ts';
import { bootstrapTokenVerifier } from './authn/bootstrap-token-authenticator.ts';
import { oidcFlagsVerifier } from './authn/jwt/oidc-flags.ts';
import { anonymousAccess, AuthenticationConfigFile } from './authn/jwt/authentication-config-file.ts';
import type { AnonymousAccess } from './authn/authenticate.ts';
import { setUpServiceAccounts } from './serviceaccount/setup.ts';
import { memoizeFactories } from './authz/config/build-authorizers.ts';
import { ReloadingAuthorizer } from './authz/config/reloading-authorizer.ts';
import { legacyWebhookAuthorizer } from './authz/webhook/legacy-webhook.ts';
import { startRbac } from './rbac/start-rbac.ts';
import { startNodeAuthorizer } from './node/start-node-authorizer.ts';
import type { AuthServices, RuleResolver, ServiceAccountTokenIssuer } from './services.ts';

export interface AuthSetupDeps {
  readonly config: Config;
  readonly surface: ApiSurface;
  readonly logger: Logger;
  readonly closers: Closers;
}

export interface AuthSetup {
  readonly authenticators: readonly Authenticator[];
  /** --anonymous-auth, or the authentication configuration's anonymous section. */
  readonly anonymous: AnonymousAccess;
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
  if (config.tokenAuthFile) {
    verifiers.push(await tokenFileVerifier(config.tokenAuthFile, apiAudiences, deps.logger));
  }

  // [service accounts] --service-account-* (verifier, issuer, discovery routes)
  {
    const serviceAccounts = await setUpServiceAccounts(deps, apiAudiences);
    verifiers.push(serviceAccounts.verifier);
    tokenIssuer = serviceAccounts.issuer;
    routes.push(serviceAccounts.routes);
  }

  // [bootstrap tokens] --enable-bootstrap-token-auth
  if (config.enableBootstrapTokenAuth) {
    verifiers.push(await bootstrapTokenVerifier(deps, apiAudiences));
  }

  // [OIDC] --oidc-* or --authentication-config (which may also say who is anonymous)
  let anonymous: AnonymousAccess = config.anonymousAuth;
  if (config.oidcIssuerUrl) {
    const oidc = oidcFlagsVerifier(config, apiAudiences, deps.logger);
    verifiers.push(oidc.verifier);
    deps.closers.add('oidc discovery', oidc.start());
  }
  if (config.authenticationConfig) {
    const fromFile = AuthenticationConfigFile.load({
      file: config.authenticationConfig,
      apiAudiences,
      serviceAccountIssuers: config.serviceAccountIssuer,
      anonymousFlagGiven: flagGiven(config, 'anonymous-auth'),
      logger: deps.logger,
    });
    verifiers.push(fromFile.verifier);
    deps.closers.add('authentication config', fromFile.start());
    if (fromFile.anonymous) anonymous = anonymousAccess(fromFile.anonymous);
  }


  // --- authorization: the configured chain ---
  // RBAC and Node start once, whether --authorization-mode or an --authorization-config file names them.
  const factories = memoizeFactories({
    RBAC: async () => {
      const rbac = await startRbac(deps);
      rules = rbac.resolver;
      return rbac.authorizer;
    },
    Node: () => startNodeAuthorizer(deps),
  });
  const chain: Authorizer[] = [privilegedGroupAuthorizer];
  for (const mode of authorizationModes(config)) {
    switch (mode) {
      case 'AlwaysAllow':
        chain.push(alwaysAllowAuthorizer);
        break;
      case 'AlwaysDeny':
        chain.push(alwaysDenyAuthorizer);
        break;
      case 'Node':
      case 'RBAC':
        chain.push(await factories[mode]!());
        break;
      case 'Webhook': {
        const webhook = legacyWebhookAuthorizer(config, deps.logger);
        deps.closers.add('authorization webhook', () => webhook.close());
        chain.push(webhook);
        break;
      }
      default:
        throw new Error(`--authorization-mode: ${mode} is not available`);
    }
  }

  // --authorization-config: the file's chain, rebuilt when the file changes.
  if (config.authorizationConfig) {
    const fromFile = await ReloadingAuthorizer.create({ file: config.authorizationConfig, factories, logger: deps.logger });
    deps.closers.add('authorization config', fromFile.start());
    chain.push(fromFile);
  }

  const bearer = new BearerTokenAuthenticator(verifiers, apiAudiences);
  const services: AuthServices = {
    access: chainAccessChecker(chain),
    rules: chainRuleResolver(chain),
    apiAudiences,
    tokenReviewer: bearer,
    ...(rules ? { rbacRules: rules } : {}),
    ...(tokenIssuer ? { tokenIssuer } : {}),
  };
  return { authenticators: [new X509Authenticator(), bearer], anonymous, authorizers: chain, services, routes };
}
