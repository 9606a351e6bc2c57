/**
 * Bootstrap tokens as Secrets: `<6 [a-z0-9]>.<16 [a-z0-9]>` tokens stored in kube-system as Secrets
 * of type `bootstrap.kubernetes.io/token` named `bootstrap-token-<token id>`, with the keys the
 * cluster-bootstrap conventions define. Such a Secret is an ordinary Secret to the API (Kubernetes
 * stores a malformed one too); what is read here decides whether it authenticates, and why not.
 */
import type { KubeObject } from '../../api/types.ts';

export const BOOTSTRAP_TOKEN_TYPE = 'bootstrap.kubernetes.io/token';
export const BOOTSTRAP_TOKEN_NAMESPACE = 'kube-system';
export const BOOTSTRAP_TOKEN_PREFIX = 'bootstrap-token-';
const TOKEN_ID = /^[a-z0-9]{6}$/;
const TOKEN_SECRET = /^[a-z0-9]{16}$/;
const EXTRA_GROUP = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

export interface BootstrapToken {
  readonly id: string;
  readonly secret: string;
  readonly description?: string;
  readonly expiration?: Date;
  readonly authentication: boolean;
  readonly signing: boolean;
  readonly extraGroups: readonly string[];
}

export interface BootstrapTokenReading {
  /** The token, when the Secret is well formed (it may still be expired or not for authentication). */
  readonly token?: BootstrapToken;
  /** Why the Secret is not a usable bootstrap token, one line each. */
  readonly problems: readonly string[];
}

function dataValue(secret: KubeObject, key: string): string | undefined {
  const data = secret.data as Record<string, string> | undefined;
  const value = data?.[key];
  return typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : undefined;
}

/** Reads a bootstrap token Secret and lists every rule it breaks (at `now` for the expiry). */
export function readBootstrapTokenSecret(secret: KubeObject, now = new Date()): BootstrapTokenReading {
  const problems: string[] = [];
  const name = secret.metadata?.name ?? '';
  if (secret.type !== BOOTSTRAP_TOKEN_TYPE) problems.push(`type is not ${BOOTSTRAP_TOKEN_TYPE}`);
  if (secret.metadata?.namespace !== undefined && secret.metadata.namespace !== BOOTSTRAP_TOKEN_NAMESPACE) {
    problems.push(`bootstrap token Secrets are read only in the ${BOOTSTRAP_TOKEN_NAMESPACE} namespace`);
  }
  const id = dataValue(secret, 'token-id');
  const tokenSecret = dataValue(secret, 'token-secret');
  if (id === undefined) problems.push('data[token-id] is required');
  else if (!TOKEN_ID.test(id)) problems.push(`data[token-id] must be 6 characters of [a-z0-9]`);
  else if (name !== `${BOOTSTRAP_TOKEN_PREFIX}${id}`) problems.push(`the name must be ${BOOTSTRAP_TOKEN_PREFIX}${id}`);
  if (tokenSecret === undefined) problems.push('data[token-secret] is required');
  else if (!TOKEN_SECRET.test(tokenSecret)) problems.push('data[token-secret] must be 16 characters of [a-z0-9]');
  let expiration: Date | undefined;
  const expiry = dataValue(secret, 'expiration');
  if (expiry !== undefined) {
    if (!RFC3339.test(expiry) || Number.isNaN(Date.parse(expiry))) problems.push('data[expiration] must be an RFC 3339 time');
    else {
      expiration = new Date(expiry);
      if (expiration.getTime() <= now.getTime()) problems.push(`the token expired at ${expiry}`);
    }
  }
  const groups = (dataValue(secret, 'auth-extra-groups') ?? '').split(',').map((g) => g.trim()).filter((g) => g !== '');
  for (const group of groups) {
    if (!EXTRA_GROUP.test(group)) problems.push(`data[auth-extra-groups]: ${JSON.stringify(group)} must start with system:bootstrappers: and match ${EXTRA_GROUP.source}`);
  }
  const authentication = dataValue(secret, 'usage-bootstrap-authentication') === 'true';
  const signing = dataValue(secret, 'usage-bootstrap-signing') === 'true';
  const wellFormed = id !== undefined && TOKEN_ID.test(id) && tokenSecret !== undefined && TOKEN_SECRET.test(tokenSecret);
  const description = dataValue(secret, 'description');
  return {
    ...(wellFormed
      ? { token: { id: id!, secret: tokenSecret!, authentication, signing, extraGroups: groups, ...(expiration ? { expiration } : {}), ...(description !== undefined ? { description } : {}) } }
      : {}),
    problems,
  };
}

/** Parses a bearer token of bootstrap token form into its id and secret. */
export function parseBootstrapToken(token: string): { id: string; secret: string } | undefined {
  const m = /^([a-z0-9]{6})\.([a-z0-9]{16})$/.exec(token);
  return m ? { id: m[1]!, secret: m[2]! } : undefined;
}
