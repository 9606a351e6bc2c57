/**
 * Kubernetes' IP library over Go's netip.Addr: ip(), isIP, ip.isCanonical, family and the address
 * class predicates, string(ip). Zones and IPv4-mapped IPv6 addresses are refused as upstream refuses
 * them, with its error texts.
 */
import { formatAddr, parseAddr } from '../../api/go/netip.ts';
import { goQuote } from '../../api/go/quote.ts';
import { evalError } from '../errors.ts';
import { actualSize, CelObject, type CelValue } from '../values.ts';
import { ceilCost, global, member, STRING_TRAVERSAL, type Overload } from './overload.ts';

export class CelIp extends CelObject {
  readonly typeName = 'net.IP';
  constructor(
    /** 4 bytes for IPv4, 16 for IPv6. */
    readonly bytes: readonly number[],
  ) {
    super();
  }
  get v4(): boolean {
    return this.bytes.length === 4;
  }
  override toString(): string {
    return formatAddr({ bytes: [...this.bytes], v4: this.v4, zone: '' });
  }
  equals(other: CelValue): boolean | undefined {
    if (!(other instanceof CelIp)) return undefined;
    return this.bytes.length === other.bytes.length && this.bytes.every((b, i) => b === other.bytes[i]);
  }
}

export function isMapped(bytes: readonly number[]): boolean {
  return bytes.length === 16 && bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
}

/** netip.ParseAddr plus Kubernetes' refusals; returns the error text instead of throwing. */
export function parseIp(raw: string): CelIp | string {
  const a = parseAddr(raw);
  if ('error' in a) return `IP Address ${goQuote(raw)} parse error during conversion from string: ${a.error}`;
  if (a.zone !== '') return `IP address ${goQuote(raw)} with zone value is not allowed`;
  if (!a.v4 && isMapped(a.bytes)) return `IPv4-mapped IPv6 address ${goQuote(raw)} is not allowed`;
  return new CelIp(a.bytes);
}

export function toIp(raw: string): CelIp {
  const ip = parseIp(raw);
  if (typeof ip === 'string') throw evalError(ip);
  return ip;
}

const u16 = (ip: CelIp) => (ip.bytes[0]! << 8) | ip.bytes[1]!;
const isUnspecified = (ip: CelIp) => ip.bytes.every((b) => b === 0);
const isLoopback = (ip: CelIp) => (ip.v4 ? ip.bytes[0] === 127 : ip.bytes.slice(0, 15).every((b) => b === 0) && ip.bytes[15] === 1);
const isMulticast = (ip: CelIp) => (ip.v4 ? (ip.bytes[0]! & 0xf0) === 0xe0 : ip.bytes[0] === 0xff);
const isLinkLocalMulticast = (ip: CelIp) => (ip.v4 ? ip.bytes[0] === 224 && ip.bytes[1] === 0 && ip.bytes[2] === 0 : (u16(ip) & 0xff0f) === 0xff02);
const isLinkLocalUnicast = (ip: CelIp) => (ip.v4 ? ip.bytes[0] === 169 && ip.bytes[1] === 254 : (u16(ip) & 0xffc0) === 0xfe80);
/** netip's IsGlobalUnicast: not unspecified, broadcast, loopback, multicast or link-local. */
const isGlobalUnicast = (ip: CelIp) => !(ip.v4 && ip.bytes.every((b) => b === 255)) && !isUnspecified(ip) && !isLoopback(ip) && !isMulticast(ip) && !isLinkLocalUnicast(ip);

const IP = 'net.IP';
const ip = (v: CelValue | undefined) => v as CelIp;
const stringCost = (factor: number) => ({ cost: (args: readonly CelValue[]) => ceilCost(actualSize(args[0]!), factor) });

export const ipOverloads: readonly Overload[] = [
  global('string_to_ip', 'ip', ['string'], IP, ([s]) => toIp(s as string), stringCost(STRING_TRAVERSAL)),
  global('is_ip', 'isIP', ['string'], 'bool', ([s]) => typeof parseIp(s as string) !== 'string', stringCost(STRING_TRAVERSAL)),
  global('ip_is_canonical', 'ip.isCanonical', ['string'], 'bool', ([s]) => toIp(s as string).toString() === s, stringCost(2 * STRING_TRAVERSAL)),
  global('ip_to_string', 'string', [IP], 'string', ([a]) => ip(a).toString()),
  member('ip_family', 'family', [IP], 'int', ([a]) => (ip(a).v4 ? 4n : 6n), { cost: () => 1 }),
  member('ip_is_unspecified', 'isUnspecified', [IP], 'bool', ([a]) => isUnspecified(ip(a)), { cost: () => 1 }),
  member('ip_is_loopback', 'isLoopback', [IP], 'bool', ([a]) => isLoopback(ip(a)), { cost: () => 1 }),
  member('ip_is_link_local_multicast', 'isLinkLocalMulticast', [IP], 'bool', ([a]) => isLinkLocalMulticast(ip(a)), { cost: () => 1 }),
  member('ip_is_link_local_unicast', 'isLinkLocalUnicast', [IP], 'bool', ([a]) => isLinkLocalUnicast(ip(a)), { cost: () => 1 }),
  member('ip_is_global_unicast', 'isGlobalUnicast', [IP], 'bool', ([a]) => isGlobalUnicast(ip(a)), { cost: () => 1 }),
];
