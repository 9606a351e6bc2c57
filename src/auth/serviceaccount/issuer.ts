/**
 * Issues bound service account tokens: the TokenRequest subresource's work after the body's own
 * rules (src/kinds/token-request.ts). As upstream's TokenREST: the service account must exist; the
 * body's name and namespace, when given, must match the URL; the audiences default to the API's;
 * --service-account-max-token-expiration shortens longer requests (with a warning); a bound object
 * (Pod, Secret or Node, core v1) must exist and match its uid; a Pod must run as this service
 * account, and its Node is named in the claims too; pod-bound tokens asking for the kubelet's
 * default lifetime are extended to a year when --service-account-extend-token-expiration is on, with
 * `warnafter` at the asked time.
 */
import { randomUUID } from 'node:crypto';
import { badRequest, conflict, invalid, notFound, type ApiError } from '../../api/errors.ts';
import type { RequestContext } from '../../api/request-context.ts';
import type { KubeObject, StoredKubeObject } from '../../api/types.ts';
import type { ApiSurface } from '../../registry/api-surface.ts';
import * as field from '../../registry/validation/field.ts';
import type { ServiceAccountTokenIssuer, ServiceAccountTokenRequest } from '../services.ts';
import { boundTokenClaims, type ObjectRefClaim } from './claims.ts';
import { signJws } from './jws.ts';
import type { SigningKey } from './keys.ts';
import type { TokenRequestHandler } from './token-request-handler.ts';

/** The lifetime kubelet asks for projected tokens (upstream's WarnOnlyBoundTokenExpirationSeconds). */
export const WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS = 60 * 60 + 7;
/** What such tokens get instead when extension is on (upstream's ExpirationExtensionSeconds: a year). */
export const EXPIRATION_EXTENSION_SECONDS = 24 * 365 * 60 * 60;

export interface IssuerOptions {
  readonly issuer: string;
  readonly key: SigningKey;
  readonly apiAudiences: readonly string[];
  /** 0: no cap. */
  readonly maxExpirationSeconds: number;
  readonly extendExpiration: boolean;
  /** Reads objects by core resource name (serviceaccounts, pods, secrets, nodes); throws 404 when missing. */
  readonly get: (ctx: RequestContext, resource: string, namespace: string, name: string) => Promise<StoredKubeObject>;
  readonly now?: () => number;
}

type Obj = Record<string, any>;

interface Bound {
  pod?: ObjectRefClaim;
  secret?: ObjectRefClaim;
  node?: ObjectRefClaim;
}

function refOf(obj: StoredKubeObject): ObjectRefClaim {
  return { name: obj.metadata.name, uid: obj.metadata.uid ?? '' };
}

function isNotFound(err: unknown): boolean {
  return (err as ApiError | undefined)?.code === 404;
}

export class ServiceAccountTokens implements ServiceAccountTokenIssuer, TokenRequestHandler {
  readonly #o: IssuerOptions;
  readonly #now: () => number;

  constructor(options: IssuerOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  /** Signs a token for an already checked request (no lookups). */
  async issue(request: ServiceAccountTokenRequest): Promise<{ token: string; expirationTimestamp: Date }> {
    const bound: Bound = {};
    const b = request.boundObject;
    if (b?.kind === 'Pod') bound.pod = { name: b.name, uid: b.uid };
    else if (b?.kind === 'Secret') bound.secret = { name: b.name, uid: b.uid };
    else if (b?.kind === 'Node') bound.node = { name: b.name, uid: b.uid };
    return this.#sign(request.namespace, request.serviceAccount, request.audiences, request.expirationSeconds, bound, undefined);
  }

  async requestToken(ctx: RequestContext, namespace: string, name: string, body: KubeObject): Promise<KubeObject> {
    const req = body as Obj;
    const meta = (req.metadata ?? {}) as Obj;
    if (meta.name && meta.name !== name) {
      throw invalid('authentication.k8s.io', 'TokenRequest', name, [field.invalid(field.path('metadata', 'name'), meta.name, 'must match the service account name if specified')]);
    }
    if (meta.namespace && meta.namespace !== namespace) {
      throw invalid('authentication.k8s.io', 'TokenRequest', name, [field.invalid(field.path('metadata', 'namespace'), meta.namespace, 'must match the service account namespace if specified')]);
    }
    const account = await this.#o.get(ctx, 'serviceaccounts', namespace, name);
    const spec = (req.spec ??= {}) as Obj;
    if (!Array.isArray(spec.audiences) || spec.audiences.length === 0) spec.audiences = [...this.#o.apiAudiences];
    const max = this.#o.maxExpirationSeconds;
    if (max > 0 && spec.expirationSeconds > max) {
      ctx.warnings.push(`requested expiration of ${spec.expirationSeconds} seconds shortened to ${max} seconds`);
      spec.expirationSeconds = max;
    }

    const bound: Bound = {};
    const ref = spec.boundObjectRef as Obj | undefined;
    if (ref) {
      const apiVersion = String(ref.apiVersion ?? '');
      const kind = String(ref.kind ?? '');
      const refName = String(ref.name ?? '');
      const core = apiVersion === 'v1';
      let uid = '';
      if (core && kind === 'Pod') {
        const pod = await this.#o.get(ctx, 'pods', namespace, refName);
        if ((pod as Obj).spec?.serviceAccountName !== name) {
          throw badRequest(`cannot bind token for serviceaccount "${name}" to pod running with different serviceaccount name.`);
        }
        bound.pod = refOf(pod);
        uid = bound.pod.uid;
        const nodeName = (pod as Obj).spec?.nodeName;
        if (typeof nodeName === 'string' && nodeName !== '') {
          // A pod's node is named even when the Node object is missing (without its uid then), as upstream does.
          try {
            bound.node = refOf(await this.#o.get(ctx, 'nodes', '', nodeName));
          } catch (err) {
            if (!isNotFound(err)) throw err;
            bound.node = { name: nodeName, uid: '' };
          }
        }
      } else if (core && kind === 'Secret') {
        bound.secret = refOf(await this.#o.get(ctx, 'secrets', namespace, refName));
        uid = bound.secret.uid;
      } else if (core && kind === 'Node') {
        bound.node = refOf(await this.#o.get(ctx, 'nodes', '', refName));
        uid = bound.node.uid;
      } else {
        const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
        const version = apiVersion.includes('/') ? apiVersion.split('/')[1] : apiVersion;
        throw badRequest(`cannot bind token for serviceaccount "${name}" to object of type ${group}/${version}, Kind=${kind}`);
      }
      if (ref.uid && ref.uid !== uid) {
        throw conflict({ group: '', resource: kind }, refName, `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
      }
    }

    let exp: number = spec.expirationSeconds;
    let warnAfter: number | undefined;
    const kubeAudiences = (spec.audiences as string[]).every((a) => this.#o.apiAudiences.includes(a));
    if (this.#o.extendExpiration && bound.pod && exp === WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS && kubeAudiences) {
      warnAfter = exp;
      exp = EXPIRATION_EXTENSION_SECONDS;
    }
    const { token, expirationTimestamp } = this.#sign(namespace, refOf(account), spec.audiences, exp, bound, warnAfter);
    req.status = { token, expirationTimestamp: expirationTimestamp.toISOString().replace(/\.\d{3}Z$/, 'Z') };
    return req as KubeObject;
  }

  #sign(namespace: string, sa: ObjectRefClaim, audiences: readonly string[], expirationSeconds: number, bound: Bound, warnAfter: number | undefined) {
    const now = Math.floor(this.#now() / 1000);
    const claims = boundTokenClaims({
      issuer: this.#o.issuer,
      audiences,
      namespace,
      serviceAccount: sa,
      ...bound,
      now,
      expirationSeconds,
      ...(warnAfter !== undefined ? { warnAfter: now + warnAfter } : {}),
      jti: randomUUID(),
    });
    return { token: signJws(claims, this.#o.key), expirationTimestamp: new Date((now + expirationSeconds) * 1000) };
  }
}

/** Reads through the server's stores; a kind that is not served is simply not found. */
export function storeGetter(surface: ApiSurface): IssuerOptions['get'] {
  return async (ctx, resource, namespace, name) => {
    const store = surface.findStore('', resource);
    if (!store) throw notFound({ group: '', resource }, name);
    return (await store.get(ctx, namespace, name)).object;
  };
}
