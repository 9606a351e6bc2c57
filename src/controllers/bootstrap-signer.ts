import { createHmac } from 'node:crypto';
import type { Logger } from 'pino';
import { ApiError } from '../api/errors.ts';
import type { KubeObject, StoredKubeObject } from '../api/types.ts';
import { BOOTSTRAP_TOKEN_NAMESPACE, readBootstrapTokenSecret } from '../auth/authn/bootstrap-token-secret.ts';
import { Informer } from '../registry/informer.ts';
import type { ApiSurface } from '../registry/api-surface.ts';
import { CoalescedPass } from './coalesced-pass.ts';
import { seedClusterInfoAccess } from '../../seeds/cluster-info-access.ts';
import { controllerContext } from './controller-context.ts';

export const CLUSTER_INFO_NAMESPACE = 'kube-public';
export const CLUSTER_INFO_NAME = 'cluster-info';
export const KUBECONFIG_KEY = 'kubeconfig';
export const JWS_KEY_PREFIX = 'jws-kubeconfig-';

function base64url(text: string | Buffer): string {
  return Buffer.from(text).toString('base64url');
}

/**
 * A detached JWS (RFC 7515 appendix F) of `content`, HS256 keyed with the whole token `<id>.<secret>`
 * and naming the token id as `kid`: `<header>..<signature>`, the payload left out because the
 * reader has it (the kubeconfig next to the signature).
 */
export function detachedJws(content: string, tokenId: string, tokenSecret: string): string {
  const header = base64url(JSON.stringify({ alg: 'HS256', kid: tokenId }));
  const signature = createHmac('sha256', `${tokenId}.${tokenSecret}`).update(`${header}.${base64url(content)}`).digest('base64url');
  return `${header}..${signature}`;
}

/**
 * Keeps ConfigMap kube-public/cluster-info signed, as upstream's bootstrapsigner: one
 * `jws-kubeconfig-<token id>` entry per unexpired bootstrap token allowed for signing, over the
 * `kubeconfig` entry; entries of other tokens are removed. The ConfigMap itself is the installer's
 * to create: without it (or its kubeconfig) nothing is done.
 */
export class BootstrapSigner {
  readonly #surface: ApiSurface;
  readonly #logger: Logger;
  #secrets: Informer | undefined;
  #configMaps: Informer | undefined;
  #expiryTimer: NodeJS.Timeout | null = null;
  #passes: CoalescedPass | undefined;
  #stopped = true;

  constructor(surface: ApiSurface, logger: Logger) {
    this.#surface = surface;
    this.#logger = logger.child({ controller: 'bootstrapsigner' });
  }

  async start(): Promise<void> {
    this.#stopped = false;
    this.#passes = new CoalescedPass(() => this.#signPass());
    await seedClusterInfoAccess(this.#surface).catch((err) => this.#logger.warn({ err }, 'creating cluster-info read access failed'));
    if (this.#stopped) return;
    const poke = { added: () => this.#enqueue(), updated: () => this.#enqueue(), deleted: () => this.#enqueue() };
    this.#secrets = new Informer(this.#surface.storeFor('', 'secrets'), { logger: this.#logger, namespace: BOOTSTRAP_TOKEN_NAMESPACE });
    this.#configMaps = new Informer(this.#surface.storeFor('', 'configmaps'), { logger: this.#logger, namespace: CLUSTER_INFO_NAMESPACE });
    this.#secrets.on(poke);
    this.#configMaps.on(poke);
    await Promise.all([this.#secrets.start(), this.#configMaps.start()]);
    this.#enqueue();
  }

  stop(): void {
    this.#stopped = true;
    this.#secrets?.stop();
    this.#configMaps?.stop();
    this.#secrets = this.#configMaps = undefined;
    if (this.#expiryTimer) clearTimeout(this.#expiryTimer);
    this.#expiryTimer = null;
    this.#passes?.stop();
  }

  /** Bursts of events become one sign pass. */
  #enqueue(): void {
    this.#passes?.request();
  }

  async #signPass(): Promise<'retry' | void> {
    try {
      await this.#sign();
    } catch (err) {
      // 409 and 404: a newer version is on its way through the informers, which brings another pass.
      if (err instanceof ApiError && (err.code === 409 || err.code === 404)) return;
      this.#logger.warn({ err }, 'signing cluster-info failed; retrying');
      return 'retry';
    }
  }

  /** The signing tokens valid now, id → secret; also schedules a pass at the soonest expiry. */
  #signingTokens(now: Date): Map<string, string> {
    const tokens = new Map<string, string>();
    let soonest = Infinity;
    for (const secret of this.#secrets?.list() ?? []) {
      const { token, problems } = readBootstrapTokenSecret(secret, now);
      if (!token || problems.length > 0 || !token.signing) continue;
      tokens.set(token.id, token.secret);
      if (token.expiration) soonest = Math.min(soonest, token.expiration.getTime());
    }
    if (this.#expiryTimer) clearTimeout(this.#expiryTimer);
    this.#expiryTimer = null;
    if (soonest !== Infinity) {
      // A token that expires takes its signature with it, with no Secret event to say so.
      this.#expiryTimer = setTimeout(() => this.#enqueue(), Math.min(2 ** 31 - 1, soonest - now.getTime() + 1));
      this.#expiryTimer.unref();
    }
    return tokens;
  }

  async #sign(): Promise<void> {
    const current = this.#configMaps?.get(CLUSTER_INFO_NAMESPACE, CLUSTER_INFO_NAME);
    const tokens = this.#signingTokens(new Date());
    if (!current) return;
    const data = { ...((current as KubeObject).data as Record<string, string> | undefined) };
    const content = data[KUBECONFIG_KEY];
    if (content === undefined) return;
    const wanted: Record<string, string> = {};
    for (const [key, value] of Object.entries(data)) if (!key.startsWith(JWS_KEY_PREFIX)) wanted[key] = value;
    for (const [id, secret] of tokens) wanted[`${JWS_KEY_PREFIX}${id}`] = detachedJws(content, id, secret);
    if (sameEntries(wanted, data)) return;
    await this.#surface.storeFor('', 'configmaps').replace(controllerContext(), CLUSTER_INFO_NAMESPACE, CLUSTER_INFO_NAME, {
      ...(current as StoredKubeObject),
      data: wanted,
    });
    this.#logger.info({ signatures: tokens.size }, 'updated cluster-info signatures');
  }
}

function sameEntries(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => b[k] === a[k]);
}
