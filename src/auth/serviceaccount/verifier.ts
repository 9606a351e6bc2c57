/**
 * Service account tokens as bearer tokens (upstream's JWT token authenticator with its two
 * validators): a JWT whose `iss` is one of --service-account-issuer (bound tokens) or
 * `kubernetes/serviceaccount` (legacy Secret-based tokens). Anything else is not ours (null, so the
 * next source may try). Ours but invalid throws with upstream's wording.
 *
 * Successful verifications are cached by the token itself until shortly before the token expires
 * (at most 10 s); the cache is emptied whenever a service account, Secret, Pod or Node is deleted or
 * replaced, so revocation is as prompt as the informers. The token is the key rather than a digest of
 * it: an exact key cannot collide, and hashing a kilobyte of JWT per request cost more than the rest
 * of authentication together. The tokens are in this process's memory while they are verified anyway.
 */
import { goQuoteList } from '../../api/go/quote.ts';
import type { TokenVerified, TokenVerifier } from '../authn/bearer-token-authenticator.ts';
import type { UserInfo } from '../user.ts';
import { readKubernetesClaim, serviceAccountGroups, serviceAccountUsername } from './claims.ts';
import { checkSignature, parseJws } from './jws.ts';
import type { VerificationKey } from './keys.ts';
import { LEGACY_ISSUER, verifyLegacyClaims } from './legacy.ts';
import type { BoundKind, ServiceAccountObjectLookup } from './lookup.ts';

/** go-jose's DefaultLeeway, which upstream validates exp, nbf and deletion times with. */
export const LEEWAY_SECONDS = 60;
const MAX_CACHE_ENTRIES = 10_000;
/** A cached answer is dropped at least this long before its token expires. */
const CACHE_MARGIN_MS = 10_000;
/** And kept no longer than this (upstream's token cache keeps successes 10 s), whatever the token's lifetime. */
const CACHE_MAX_MS = 10_000;

export const EXTRA_POD_NAME = 'authentication.kubernetes.io/pod-name';
export const EXTRA_POD_UID = 'authentication.kubernetes.io/pod-uid';
export const EXTRA_NODE_NAME = 'authentication.kubernetes.io/node-name';
export const EXTRA_NODE_UID = 'authentication.kubernetes.io/node-uid';
export const EXTRA_CREDENTIAL_ID = 'authentication.kubernetes.io/credential-id';

export interface ServiceAccountVerifierOptions {
  readonly issuers: readonly string[];
  readonly keys: readonly VerificationKey[];
  readonly lookup: ServiceAccountObjectLookup;
  /** --service-account-lookup: bound objects must still exist (legacy tokens are always looked up). */
  readonly lookupEnabled: boolean;
  readonly now?: () => number;
}

interface CacheEntry {
  readonly verified: TokenVerified;
  readonly until: number;
}

export class ServiceAccountTokenVerifier implements TokenVerifier {
  readonly name = 'service-account';
  readonly #options: ServiceAccountVerifierOptions;
  readonly #now: () => number;
  readonly #cache = new Map<string, CacheEntry>();

  constructor(options: ServiceAccountVerifierOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    options.lookup.onInvalidate(() => this.#cache.clear());
  }

  async verify(token: string, audiences: readonly string[]): Promise<TokenVerified | null> {
    // The audiences are part of the key: the same token may be reviewed for other audiences.
    // Unambiguous: the JSON after the last newline has no raw newline, whatever a review's token holds.
    const cacheKey = `${token}\n${audienceKey(audiences)}`;
    const now = this.#now();
    const hit = this.#cache.get(cacheKey);
    if (hit && hit.until > now) return hit.verified;
    if (hit) this.#cache.delete(cacheKey);

    const jws = parseJws(token);
    if (!jws) return null;
    const iss = jws.payload.iss;
    if (typeof iss !== 'string') return null;
    const legacy = iss === LEGACY_ISSUER;
    if (!legacy && !this.#options.issuers.includes(iss)) return null;

    if (!checkSignature(jws, this.#options.keys)) throw new Error('invalid signature');

    let verified: TokenVerified;
    let expiresAt = Number.POSITIVE_INFINITY;
    if (legacy) {
      // Legacy tokens carry no audience: they are good for the API's own audiences only.
      const user = await verifyLegacyClaims(jws.payload, token, this.#options.lookup);
      verified = { user, audiences };
    } else {
      const tokenAudiences = audienceList(jws.payload.aud);
      const matched = audiences.filter((a) => tokenAudiences.includes(a));
      if (matched.length === 0) throw new Error(`token audiences ${goQuoteList(tokenAudiences)} is invalid for the target audiences ${goQuoteList(audiences)}`);
      this.#checkTimes(jws.payload, now);
      verified = { user: await this.#boundUser(jws.payload, now), audiences: matched };
      if (typeof jws.payload.exp === 'number') expiresAt = jws.payload.exp * 1000;
    }
    this.#remember(cacheKey, verified, Math.min(now + CACHE_MAX_MS, expiresAt - CACHE_MARGIN_MS), now);
    return verified;
  }

  #checkTimes(payload: Record<string, unknown>, nowMs: number): void {
    const now = nowMs / 1000;
    const { exp, nbf, iat } = payload;
    if (exp !== undefined && typeof exp !== 'number') throw new Error('service account token claims could not be validated due to unexpected validation error');
    if (typeof exp === 'number' && now - LEEWAY_SECONDS > exp) throw new Error('service account token has expired');
    if (typeof nbf === 'number' && now + LEEWAY_SECONDS < nbf) throw new Error('service account token is not valid yet');
    if (typeof iat === 'number' && now + LEEWAY_SECONDS < iat) throw new Error('service account token is issued in the future');
  }

  async #boundUser(payload: Record<string, unknown>, nowMs: number): Promise<UserInfo> {
    const claim = readKubernetesClaim(payload);
    if (!claim) throw new Error('service account token claims could not be validated due to unexpected private claim');
    const { namespace, serviceaccount: sa } = claim;
    const extra: Record<string, string[]> = {};
    if (this.#options.lookupEnabled) {
      // Objects deleted less than the leeway ago still count, as upstream's validator allows.
      const deletedBefore = nowMs - LEEWAY_SECONDS * 1000;
      const deleted = (o: { metadata: { deletionTimestamp?: string } }) => o.metadata.deletionTimestamp !== undefined && Date.parse(o.metadata.deletionTimestamp) < deletedBefore;
      const account = await this.#options.lookup.get('serviceaccounts', namespace, sa.name);
      if (!account) throw new Error(`serviceaccounts "${sa.name}" not found`);
      if (deleted(account)) throw new Error(`service account ${namespace}/${sa.name} has been deleted`);
      if (account.metadata.uid !== sa.uid) throw new Error(`service account UID (${account.metadata.uid}) does not match claim (${sa.uid})`);
      const bound: [BoundKind, 'secret' | 'pod' | 'node'][] = [['secrets', 'secret'], ['pods', 'pod'], ['nodes', 'node']];
      for (const [kind, label] of bound) {
        const ref = claim[label];
        // A pod-bound token names its pod's node for information only; node-bound tokens are checked.
        if (!ref || (label === 'node' && claim.pod)) continue;
        const obj = await this.#options.lookup.get(kind, kind === 'nodes' ? '' : namespace, ref.name);
        if (!obj || deleted(obj)) throw new Error('service account token has been invalidated');
        if (obj.metadata.uid !== ref.uid) throw new Error(`${label} UID (${obj.metadata.uid}) does not match service account ${label} ref claim (${ref.uid})`);
      }
    }
    if (claim.pod) {
      extra[EXTRA_POD_NAME] = [claim.pod.name];
      extra[EXTRA_POD_UID] = [claim.pod.uid];
    }
    if (claim.node) {
      extra[EXTRA_NODE_NAME] = [claim.node.name];
      // A pod's node that did not exist when the token was issued has no uid in the claim.
      if (claim.node.uid !== '') extra[EXTRA_NODE_UID] = [claim.node.uid];
    }
    if (typeof payload.jti === 'string' && payload.jti !== '') extra[EXTRA_CREDENTIAL_ID] = [`JTI=${payload.jti}`];
    return {
      name: serviceAccountUsername(namespace, sa.name),
      uid: sa.uid,
      groups: serviceAccountGroups(namespace),
      ...(Object.keys(extra).length > 0 ? { extra } : {}),
    };
  }

  #remember(key: string, verified: TokenVerified, until: number, now: number): void {
    if (until <= now) return;
    if (this.#cache.size >= MAX_CACHE_ENTRIES) this.#cache.clear(); // bounded; a cleared cache only costs re-verification
    this.#cache.set(key, { verified, until });
  }
}

/** The audiences' part of a cache key; the API's own audiences are the same array on every request. */
const audienceKeys = new WeakMap<readonly string[], string>();
function audienceKey(audiences: readonly string[]): string {
  let key = audienceKeys.get(audiences);
  if (key === undefined) audienceKeys.set(audiences, (key = JSON.stringify(audiences)));
  return key;
}

function audienceList(aud: unknown): string[] {
  if (typeof aud === 'string') return [aud];
  if (Array.isArray(aud)) return aud.filter((a): a is string => typeof a === 'string');
  return [];
}
