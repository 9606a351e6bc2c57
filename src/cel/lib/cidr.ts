/**
 * Kubernetes' CIDR library over Go's netip.Prefix: cidr(), isCIDR, containsIP, containsCIDR, ip,
 * masked, prefixLength and string(cidr), with upstream's error texts (including its doubled
 * "network address parse error" prefix, and "no such overload" where containsIP is given a string
 * that is no IP).
 */
import { parseAddr } from '../../api/go/netip.ts';
import { goQuote } from '../../api/go/quote.ts';
import { evalError, noSuchOverload } from '../errors.ts';
import { actualSize, CelObject, type CelValue } from '../values.ts';
import { CelIp, isMapped, parseIp } from './ip.ts';
import { ceilCost, global, member, STRING_TRAVERSAL, type Overload } from './overload.ts';

export class CelCidr extends CelObject {
  readonly typeName = 'net.CIDR';
  constructor(
    /** The address as written (not masked), as netip.Prefix keeps it. */
    readonly ip: CelIp,
    readonly bits: number,
  ) {
    super();
  }
  override toString(): string {
    return `${this.ip.toString()}/${this.bits}`;
  }
  equals(other: CelValue): boolean | undefined {
    if (!(other instanceof CelCidr)) return undefined;
    return this.bits === other.bits && this.ip.equals(other.ip) === true;
  }
}

function maskBytes(bytes: readonly number[], bits: number): number[] {
  return bytes.map((b, i) => {
    const keep = Math.max(0, Math.min(8, bits - i * 8));
    return b & ((0xff << (8 - keep)) & 0xff);
  });
}

/** netip.ParsePrefix then Kubernetes' refusal of IPv4-mapped addresses; the error text, or the prefix. */
function parseCidr(raw: string): CelCidr | string {
  const fail = (msg: string) => `network address parse error during conversion from string: netip.ParsePrefix(${goQuote(raw)}): ${msg}`;
  const slash = raw.lastIndexOf('/');
  if (slash < 0) return fail("no '/'");
  const a = parseAddr(raw.slice(0, slash));
  if ('error' in a) return fail(a.error);
  if (!a.v4 && a.zone !== '') return fail('IPv6 zones cannot be present in a prefix');
  const bitsStr = raw.slice(slash + 1);
  if (bitsStr.length > 1 && !(bitsStr[0]! >= '1' && bitsStr[0]! <= '9')) return fail(`bad bits after slash: ${goQuote(bitsStr)}`);
  if (!/^[+-]?\d+$/.test(bitsStr)) return fail(`bad bits after slash: ${goQuote(bitsStr)}`);
  const bits = Number(bitsStr);
  if (bits < 0 || bits > (a.v4 ? 32 : 128)) return fail('prefix length out of range');
  if (!a.v4 && isMapped(a.bytes)) return `IPv4-mapped IPv6 address ${goQuote(raw)} is not allowed`;
  return new CelCidr(new CelIp(a.bytes), bits);
}

/** cidr(): upstream wraps the parse error in its prefix once more. */
function toCidr(raw: string): CelCidr {
  const c = parseCidr(raw);
  if (typeof c === 'string') throw evalError(`network address parse error during conversion from string: ${c}`);
  return c;
}

function containsIp(c: CelCidr, ip: CelIp): boolean {
  if (c.ip.v4 !== ip.v4) return false;
  const a = maskBytes(c.ip.bytes, c.bits);
  const b = maskBytes(ip.bytes, c.bits);
  return a.every((x, i) => x === b[i]);
}

/** Prefix.Overlaps and a prefix no longer than the other's. */
function containsCidr(c: CelCidr, o: CelCidr): boolean {
  if (c.ip.v4 !== o.ip.v4) return false;
  const min = Math.min(c.bits, o.bits);
  const a = maskBytes(c.ip.bytes, min);
  const b = maskBytes(o.ip.bytes, min);
  return a.every((x, i) => x === b[i]) && c.bits <= o.bits;
}

const C = 'net.CIDR';
const cidr = (v: CelValue | undefined) => v as CelCidr;
const stringCost = { cost: (args: readonly CelValue[]) => ceilCost(actualSize(args[0]!), STRING_TRAVERSAL) };
/** Kubernetes' estimator: a comparison of two addresses, plus parsing a string argument. */
const containsIpCost = (args: readonly CelValue[]) => ceilCost(2, STRING_TRAVERSAL) + (typeof args[1] === 'string' ? ceilCost(actualSize(args[1]), STRING_TRAVERSAL) : 0);
const containsCidrCost = (args: readonly CelValue[]) => ceilCost(2, STRING_TRAVERSAL) + ceilCost(1, STRING_TRAVERSAL) + 1 + (typeof args[1] === 'string' ? ceilCost(actualSize(args[1]), STRING_TRAVERSAL) : 0);

export const cidrOverloads: readonly Overload[] = [
  global('string_to_cidr', 'cidr', ['string'], C, ([s]) => toCidr(s as string), stringCost),
  global('is_cidr', 'isCIDR', ['string'], 'bool', ([s]) => typeof parseCidr(s as string) !== 'string', stringCost),
  global('cidr_to_string', 'string', [C], 'string', ([c]) => cidr(c).toString()),
  member('cidr_contains_ip_string', 'containsIP', [C, 'string'], 'bool', ([c, s]) => {
    const ip = parseIp(s as string);
    if (typeof ip === 'string') throw noSuchOverload();
    return containsIp(cidr(c), ip);
  }, { cost: containsIpCost }),
  member('cidr_contains_ip_ip', 'containsIP', [C, 'net.IP'], 'bool', ([c, ip]) => containsIp(cidr(c), ip as CelIp), { cost: containsIpCost }),
  member('cidr_contains_cidr_string', 'containsCIDR', [C, 'string'], 'bool', ([c, s]) => containsCidr(cidr(c), toCidr(s as string)), { cost: containsCidrCost }),
  member('cidr_contains_cidr', 'containsCIDR', [C, C], 'bool', ([c, o]) => containsCidr(cidr(c), cidr(o)), { cost: containsCidrCost }),
  member('cidr_ip', 'ip', [C], 'net.IP', ([c]) => cidr(c).ip, { cost: () => 1 }),
  member('cidr_prefix_length', 'prefixLength', [C], 'int', ([c]) => BigInt(cidr(c).bits), { cost: () => 1 }),
  member('cidr_masked', 'masked', [C], C, ([c]) => new CelCidr(new CelIp(maskBytes(cidr(c).ip.bytes, cidr(c).bits)), cidr(c).bits), { cost: () => 1 }),
];
