/**
 * CIDRs as k8s.io/utils/net's ParseCIDRSloppy reads them (Go's net.ParseCIDR, with IPv4 octets that
 * may carry leading zeros, as legacy API fields accept): the network (address masked to the prefix)
 * and the prefix length, or undefined when the text is not a CIDR.
 */
import { formatAddr, parseAddr } from './netip.ts';

export interface Cidr {
  /** The network address: 4 bytes for IPv4, 16 for IPv6. */
  readonly bytes: readonly number[];
  readonly v4: boolean;
  readonly prefix: number;
  /** The address as written, before masking. */
  readonly address: readonly number[];
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
  return { bytes: mask(bytes, prefix), v4, prefix, address: bytes };
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

/** The network as Go's IPNet.String prints it (`10.0.0.0/8`, `2001:db8::/32`). */
export function formatCidr(c: Cidr): string {
  return `${formatAddr({ bytes: [...c.bytes], v4: c.v4, zone: '' })}/${c.prefix}`;
}

export const CIDR_FORMAT_ERROR = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';

/**
 * apimachinery's IsValidCIDR for new fields: parseable, no leading zeros, no IPv4-mapped IPv6, no
 * bits past the prefix, and in canonical form. Returns the messages (at most one).
 */
export function strictCidrErrors(value: string): string[] {
  const c = parseCidrSloppy(value);
  if (!c) return [CIDR_FORMAT_ERROR];
  const [addrText, prefixText] = value.split('/') as [string, string];
  const leadingZeros = /^0\d/.test(prefixText) || (c.v4 && addrText.split('.').some((o) => /^0\d/.test(o)));
  if (leadingZeros) return ['must not have leading 0s in IP or prefix length'];
  const a = c.address;
  if (!c.v4 && a.slice(0, 10).every((b) => b === 0) && a[10] === 0xff && a[11] === 0xff) return ['must not have an IPv4-mapped IPv6 address'];
  if (a.some((b, i) => b !== c.bytes[i])) return ['must not have bits set beyond the prefix length'];
  const canonical = formatCidr(c);
  return value === canonical ? [] : [`must be in canonical form ("${canonical}")`];
}
