import { createHash } from 'node:crypto';

/**
 * The `storageVersionHash` of discovery: base64 of the first 8 bytes of the SHA-256 of
 * `<group>/<version>/<kind>` for the version the kind is stored in (`/v1/ConfigMap` for the
 * core group). Clients only compare it for equality, to notice storage version changes.
 */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}
