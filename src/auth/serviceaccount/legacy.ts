/**
 * Legacy service account tokens (kept in `kubernetes.io/service-account-token` Secrets), which
 * upstream still accepts: issuer `kubernetes/serviceaccount`, flat `kubernetes.io/serviceaccount/*`
 * claims, no expiry. They are always checked against the Secret that holds them and the service
 * account, since nothing else can revoke them.
 */
import type { UserInfo } from '../user.ts';
import { SERVICE_ACCOUNT_USER_PREFIX, serviceAccountGroups, serviceAccountUsername } from './claims.ts';
import type { ServiceAccountObjectLookup } from './lookup.ts';

export const LEGACY_ISSUER = 'kubernetes/serviceaccount';

function claim(payload: Record<string, unknown>, name: string): string {
  const value = payload[`kubernetes.io/serviceaccount/${name}`];
  return typeof value === 'string' ? value : '';
}

export async function verifyLegacyClaims(payload: Record<string, unknown>, token: string, lookup: ServiceAccountObjectLookup): Promise<UserInfo> {
  const namespace = claim(payload, 'namespace');
  if (namespace === '') throw new Error('namespace claim is missing');
  const secretName = claim(payload, 'secret.name');
  if (secretName === '') throw new Error('secretName claim is missing');
  const name = claim(payload, 'service-account.name');
  if (name === '') throw new Error('serviceAccountName claim is missing');
  const uid = claim(payload, 'service-account.uid');
  if (uid === '') throw new Error('serviceAccountUID claim is missing');
  if (payload.sub !== `${SERVICE_ACCOUNT_USER_PREFIX}${namespace}:${name}`) throw new Error('sub claim is invalid');

  const secret = await lookup.get('secrets', namespace, secretName);
  if (!secret || secret.metadata.deletionTimestamp) throw new Error('token has been invalidated');
  const stored = (secret as { data?: Record<string, unknown> }).data?.token;
  if (typeof stored !== 'string' || Buffer.from(stored, 'base64').toString('utf8') !== token) throw new Error("token does not match server's copy");
  const account = await lookup.get('serviceaccounts', namespace, name);
  if (!account) throw new Error(`serviceaccounts "${name}" not found`);
  if (account.metadata.deletionTimestamp) throw new Error(`service account ${namespace}/${name} has been deleted`);
  if (account.metadata.uid !== uid) throw new Error(`service account UID (${account.metadata.uid}) does not match claim (${uid})`);
  return {
    name: serviceAccountUsername(namespace, name),
    uid,
    groups: serviceAccountGroups(namespace),
  };
}
