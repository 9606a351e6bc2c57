/**
 * The claims of a bound service account token, as upstream's serviceaccount.Claims makes them: the
 * public claims (iss, sub, aud, exp, iat, nbf, jti) and the private `kubernetes.io` claim naming the
 * namespace, service account and the object the token is bound to.
 */
export const SERVICE_ACCOUNT_USER_PREFIX = 'system:serviceaccount:';
export const SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';

export interface ObjectRefClaim {
  readonly name: string;
  readonly uid: string;
}

export interface KubernetesClaim {
  readonly namespace: string;
  readonly serviceaccount: ObjectRefClaim;
  readonly pod?: ObjectRefClaim;
  readonly secret?: ObjectRefClaim;
  readonly node?: ObjectRefClaim;
  /** Seconds since the epoch after which a client is warned of using an extended token. */
  readonly warnafter?: number;
}

export function serviceAccountUsername(namespace: string, name: string): string {
  return `${SERVICE_ACCOUNT_USER_PREFIX}${namespace}:${name}`;
}

export function serviceAccountGroups(namespace: string): string[] {
  return [SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNTS_GROUP}:${namespace}`];
}

export interface ClaimsInput {
  readonly issuer: string;
  readonly audiences: readonly string[];
  readonly namespace: string;
  readonly serviceAccount: ObjectRefClaim;
  readonly pod?: ObjectRefClaim;
  readonly secret?: ObjectRefClaim;
  readonly node?: ObjectRefClaim;
  /** Seconds. */
  readonly now: number;
  readonly expirationSeconds: number;
  readonly warnAfter?: number;
  readonly jti: string;
}

export function boundTokenClaims(input: ClaimsInput): Record<string, unknown> {
  const k8s: Record<string, unknown> = { namespace: input.namespace };
  if (input.node) k8s.node = { name: input.node.name, uid: input.node.uid };
  if (input.pod) k8s.pod = { name: input.pod.name, uid: input.pod.uid };
  if (input.secret) k8s.secret = { name: input.secret.name, uid: input.secret.uid };
  k8s.serviceaccount = { name: input.serviceAccount.name, uid: input.serviceAccount.uid };
  if (input.warnAfter !== undefined) k8s.warnafter = input.warnAfter;
  return {
    aud: [...input.audiences],
    exp: input.now + input.expirationSeconds,
    iat: input.now,
    iss: input.issuer,
    jti: input.jti,
    'kubernetes.io': k8s,
    nbf: input.now,
    sub: serviceAccountUsername(input.namespace, input.serviceAccount.name),
  };
}

function ref(value: unknown): ObjectRefClaim | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const { name, uid } = value as Record<string, unknown>;
  return typeof name === 'string' && typeof uid === 'string' ? { name, uid } : undefined;
}

/** The `kubernetes.io` claim of a token, or null when it is missing or malformed. */
export function readKubernetesClaim(payload: Record<string, unknown>): KubernetesClaim | null {
  const raw = payload['kubernetes.io'];
  if (!raw || typeof raw !== 'object') return null;
  const c = raw as Record<string, unknown>;
  const serviceaccount = ref(c.serviceaccount);
  if (typeof c.namespace !== 'string' || !serviceaccount) return null;
  const pod = ref(c.pod);
  const secret = ref(c.secret);
  const node = ref(c.node);
  return {
    namespace: c.namespace,
    serviceaccount,
    ...(pod ? { pod } : {}),
    ...(secret ? { secret } : {}),
    ...(node ? { node } : {}),
    ...(typeof c.warnafter === 'number' ? { warnafter: c.warnafter } : {}),
  };
}
