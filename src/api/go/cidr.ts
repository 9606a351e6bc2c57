/**
 * CIDRs as k8s.io/utils/net's ParseCIDRSloppy reads them (Go's net.ParseCIDR, with IPv4 octets that
 * may carry leading zeros, as legacy API fields accept): the network (address masked to the prefix)
 * and the prefix length, or undefined when the text is not a CIDR.
 */
import { parseAddr } from './netip.ts';

export interface Cidr {
  /** The network address: 4 bytes for IPv4, 16 for IPv6. */
  readonly bytes: readonly number[];
  readonly v4: boolean;
  readonly prefix: number;
}

function parseIPv4Sloppy(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const out: number[] = [];
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    out.push(n);
  }
  return out;
}

export function parseCidrSloppy(text: string): Cidr | undefined {
  const slash = text.indexOf('/');
  if (slash < 0 || text.indexOf('/', slash + 1) >= 0) return undefined;
  const addrText = text.slice(0, slash);
  const prefixText = text.slice(slash + 1);
  let bytes: number[] | undefined;
  let v4 = false;
  if (addrText.includes(':')) {
    const parsed = parseAddr(addrText);
    if ('error' in parsed || parsed.zone !== '') return undefined;
    bytes = [...parsed.bytes];
  } else {
    bytes = parseIPv4Sloppy(addrText);
    v4 = true;
  }
  if (!bytes || !/^\d+$/.test(prefixText) || prefixText.length > 8) return undefined;
  const prefix = Number(prefixText);
  if (prefix > bytes.length * 8) return undefined;
  return { bytes: mask(bytes, prefix), v4, prefix };
}

function mask(bytes: number[], prefix: number): number[] {
  return bytes.map((b, i) => {
    const bits = Math.max(0, Math.min(8, prefix - i * 8));
    return b & ((0xff << (8 - bits)) & 0xff);
  });
}

/** Whether `inner`'s network address lies in `outer` (same family only). */
export function cidrContains(outer: Cidr, inner: Cidr): boolean {
  if (outer.v4 !== inner.v4) return false;
  const masked = mask([...inner.bytes], outer.prefix);
  return masked.every((b, i) => b === outer.bytes[i]);
}
