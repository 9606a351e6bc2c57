/**
 * `--enable-bootstrap-token-auth`: bearer tokens `<id>.<secret>` checked against the Secret
 * `kube-system/bootstrap-token-<id>`, as upstream's bootstrap token authenticator checks them, in its
 * order: not being deleted, the type, the secret (constant time), the id, the expiry (an unreadable
 * one counts as expired), `usage-bootstrap-authentication=true`, the extra groups. A token that fails
 * any check names no user (the request is then a 401 unless another source knows the token); the
 * reason is logged at debug level with the Secret's name, never the secret.
 *
 * The Secrets are read from an informer (a watch-fed in-memory view of kube-system's Secrets), not
 * with a query per request.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Logger } from 'pino';
import type { StoredKubeObject } from '../../api/types.ts';
import type { Closers } from '../../closers.ts';
import type { ApiSurface } from '../../registry/api-surface.ts';
import { Informer } from '../../registry/informer.ts';
import type { UserInfo } from '../user.ts';
import { audienceAgnostic, type TokenVerifier } from './bearer-token-authenticator.ts';
import { BOOTSTRAP_TOKEN_NAMESPACE, BOOTSTRAP_TOKEN_PREFIX, BOOTSTRAP_TOKEN_TYPE, parseBootstrapToken } from './bootstrap-token-secret.ts';

export const BOOTSTRAP_USER_PREFIX = 'system:bootstrap:';
export const BOOTSTRAPPERS_GROUP = 'system:bootstrappers';
/** What every extra group must look like (upstream's ValidateBootstrapGroupName). */
const EXTRA_GROUP = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Where the Secrets come from: the informer's `get`. */
export interface SecretLookup {
  get(namespace: string, name: string): StoredKubeObject | undefined;
}

/** A data value decoded; absent keys (and a Secret without data) read as "". */
function dataValue(secret: StoredKubeObject, key: string): string {
  const data = (secret as { data?: Record<string, unknown> }).data;
  const value = data?.[key];
  return typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : '';
}

function sameSecret(a: string, b: string): boolean {
  // Digests are of equal length whatever the inputs, as timingSafeEqual needs.
  const da = createHash('sha256').update(a, 'utf8').digest();
  const db = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(da, db);
}

/** Expired at `now`, or an expiry that cannot be read (upstream treats that as expired). */
function hasExpired(expiration: string, now: Date): boolean {
  if (expiration === '') return false;
  const at = RFC3339.test(expiration) ? Date.parse(expiration) : Number.NaN;
  return Number.isNaN(at) || at <= now.getTime();
}

export class BootstrapTokenAuthenticator {
  readonly name = 'bootstrap-token';
  readonly #secrets: SecretLookup;
  readonly #logger: Logger | undefined;
  readonly #now: () => Date;

  constructor(secrets: SecretLookup, options: { logger?: Logger; now?: () => Date } = {}) {
    this.#secrets = secrets;
    this.#logger = options.logger;
    this.#now = options.now ?? (() => new Date());
  }

  /** The bootstrap user the token names, or null (not of bootstrap form, or unusable). */
  verifyUser(token: string): UserInfo | null {
    const parsed = parseBootstrapToken(token);
    if (!parsed) return null; // not a bootstrap token: another source may know it
    const name = `${BOOTSTRAP_TOKEN_PREFIX}${parsed.id}`;
    const secret = this.#secrets.get(BOOTSTRAP_TOKEN_NAMESPACE, name);
    if (!secret) return this.#refuse(name, 'no Secret of that name');
    if (secret.metadata.deletionTimestamp) return this.#refuse(name, 'is deleted and awaiting removal');
    const data = (secret as { data?: unknown }).data;
    if ((secret as { type?: unknown }).type !== BOOTSTRAP_TOKEN_TYPE || !data) return this.#refuse(name, `has invalid type, expected ${BOOTSTRAP_TOKEN_TYPE}`);
    if (!sameSecret(dataValue(secret, 'token-secret'), parsed.secret)) return this.#refuse(name, 'has invalid value for key token-secret');
    const id = dataValue(secret, 'token-id');
    if (id !== parsed.id) return this.#refuse(name, 'has invalid value for key token-id');
    if (hasExpired(dataValue(secret, 'expiration'), this.#now())) return this.#refuse(name, 'has expired (or its expiration cannot be read)');
    if (dataValue(secret, 'usage-bootstrap-authentication') !== 'true') return this.#refuse(name, 'is not marked usage-bootstrap-authentication=true');
    const groups = new Set([BOOTSTRAPPERS_GROUP]);
    const extra = dataValue(secret, 'auth-extra-groups');
    if (extra !== '') {
      for (const group of extra.split(',')) {
        if (!EXTRA_GROUP.test(group)) return this.#refuse(name, `has invalid value for key auth-extra-groups: ${JSON.stringify(group)}`);
        groups.add(group);
      }
    }
    // Sorted and without duplicates, as upstream returns them.
    return Object.freeze({ name: `${BOOTSTRAP_USER_PREFIX}${id}`, groups: Object.freeze([...groups].sort()) });
  }

  #refuse(secretName: string, reason: string): null {
    this.#logger?.debug({ secret: `${BOOTSTRAP_TOKEN_NAMESPACE}/${secretName}`, reason }, 'bootstrap token refused');
    return null;
  }
}

/**
 * The bootstrap token source for the bearer token union: an informer over kube-system's Secrets
 * (started here, stopped by the closers), audience-agnostic as upstream wraps it.
 */
export async function bootstrapTokenVerifier(deps: { surface: ApiSurface; logger: Logger; closers: Closers }, apiAudiences: readonly string[]): Promise<TokenVerifier> {
  const secrets = new Informer(deps.surface.storeFor('', 'secrets'), { logger: deps.logger, namespace: BOOTSTRAP_TOKEN_NAMESPACE });
  await secrets.start();
  deps.closers.add('bootstrap-token-informer', () => secrets.stop());
  return audienceAgnostic(new BootstrapTokenAuthenticator(secrets, { logger: deps.logger }), apiAudiences);
}
