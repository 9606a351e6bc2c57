import type { SubjectAltNames } from './certificate-info.ts';
import { canonicalIp } from './ip.ts';

/** The names every serving certificate carries: loopback and the in-cluster service names. */
export const DEFAULT_DNS_NAMES: readonly string[] = Object.freeze([
  'localhost',
  'kubernetes',
  'kubernetes.default',
  'kubernetes.default.svc',
  'kubernetes.default.svc.cluster.local',
]);
export const DEFAULT_IP_ADDRESSES: readonly string[] = Object.freeze(['127.0.0.1', '::1']);

export interface ServingNamesOptions {
  /** The address the server listens on; ignored when it is a wildcard (0.0.0.0, ::). */
  readonly bindAddress?: string;
  /**
   * Extra names and addresses, `--tls-sni-extra-names` style: each entry may itself be a
   * comma-separated list. IP addresses (optionally in brackets) become IP SANs, the rest DNS SANs.
   */
  readonly extraNames?: readonly string[];
}

/** The subject alternative names the serving certificate must cover, deduplicated and canonical. */
export function servingSubjectAltNames(options: ServingNamesOptions = {}): SubjectAltNames {
  const dns = new Set<string>(DEFAULT_DNS_NAMES);
  const ips = new Set<string>(DEFAULT_IP_ADDRESSES);
  const add = (entry: string): void => {
    const ip = canonicalIp(entry);
    if (ip !== null) {
      if (ip !== '0.0.0.0' && ip !== '::') ips.add(ip);
      return;
    }
    const name = entry.trim().toLowerCase().replace(/\.$/, '');
    if (!/^[a-z0-9*]([a-z0-9-_.*]*[a-z0-9])?$/.test(name)) {
      throw new Error(`not a DNS name or IP address: ${JSON.stringify(entry)}`);
    }
    dns.add(name);
  };
  if (options.bindAddress) add(options.bindAddress);
  for (const entry of options.extraNames ?? []) {
    for (const part of entry.split(',')) if (part.trim()) add(part);
  }
  return { dnsNames: [...dns], ipAddresses: [...ips] };
}

/** The requested names a certificate's SANs lack (empty when it covers them all). */
export function missingNames(have: SubjectAltNames, want: SubjectAltNames): string[] {
  const dns = new Set(have.dnsNames);
  const ips = new Set(have.ipAddresses);
  return [...want.dnsNames.filter((n) => !dns.has(n)), ...want.ipAddresses.filter((ip) => !ips.has(ip))];
}
