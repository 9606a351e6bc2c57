/** AuthenticationConfiguration files for tests: built from plain objects, written as YAML. */
import { writeFileSync } from 'node:fs';
import yaml from 'js-yaml';
import type { OidcProvider } from './oidc-provider.ts';

export type JwtEntry = Record<string, unknown>;

/** A jwt[] entry trusting `idp` (its CA inline), with `rest` merged in (claimMappings, rules …). */
export function jwtFor(idp: OidcProvider, rest: JwtEntry = {}, issuer: Record<string, unknown> = {}): JwtEntry {
  return { issuer: { url: idp.issuer, audiences: [idp.clientId], certificateAuthority: idp.caPem, ...issuer }, ...rest };
}

/** Writes the configuration to `file` (replacing it in place, as an editor would). */
export function writeAuthenticationConfig(file: string, body: { jwt?: JwtEntry[]; anonymous?: unknown }, apiVersion = 'apiserver.config.k8s.io/v1'): void {
  writeFileSync(file, yaml.dump({ apiVersion, kind: 'AuthenticationConfiguration', ...body }, { lineWidth: -1 }));
}
