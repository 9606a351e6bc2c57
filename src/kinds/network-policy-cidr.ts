/**
 * CIDR behaviour of Go's net package that NetworkPolicy ipBlocks depend on, on top of the sloppy
 * parse in src/api/go/cidr.ts: containment and printing treat an IPv4-mapped IPv6 network as IPv4
 * (net.IPNet.Contains and String), and apimachinery's GetWarningsForCIDR. Candidates for the kit.
 */
import { parseCidrSloppy, type Cidr } from '../api/go/cidr.ts';
import { formatAddr, parseAddr } from '../api/go/netip.ts';
import { goQuote } from '../api/go/quote.ts';

const isMapped = (b: readonly number[]) => b.length === 16 && b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;

/** The address as net.IP.To4 sees it: 4 bytes for IPv4 and mapped IPv6, else 16. */
const to4 = (b: readonly number[]) => (b.length === 4 ? [...b] : isMapped(b) ? b.slice(12) : [...b]);

/** net.IPNet's network and mask length after networkNumberAndMask (a mapped network loses 96 mask bits). */
function networkOf(c: Cidr): { bytes: number[]; bits: number } {
  const bytes = to4(c.bytes);
  const bits = bytes.length === 4 && !c.v4 ? Math.max(0, c.prefix - 96) : c.prefix;
  return { bytes, bits };
}

/** net.IPNet.Contains(inner's network address). */
export function goCidrContains(outer: Cidr, inner: Cidr): boolean {
  const net = networkOf(outer);
  const ip = to4(inner.bytes);
  if (ip.length !== net.bytes.length) return false;
  return ip.every((b, i) => {
    const bits = Math.max(0, Math.min(8, net.bits - i * 8));
    const mask = (0xff << (8 - bits)) & 0xff;
    return (b & mask) === (net.bytes[i]! & mask);
  });
}

/** net.IP.String: dotted decimal for IPv4 and mapped IPv6, RFC 5952 otherwise. */
function goIPString(b: readonly number[]): string {
  const v4 = to4(b);
  return v4.length === 4 ? v4.join('.') : formatAddr({ bytes: [...b], v4: false, zone: '' });
}

/** net.IPNet.String. */
function goIPNetString(c: Cidr): string {
  const { bytes, bits } = networkOf(c);
  return `${goIPString(bytes)}/${bits}`;
}

/**
 * apimachinery's GetWarningsForCIDR for a value that parsed: bits set past the prefix, leading
 * zeros or a mapped address, else a non-canonical IPv6 form. Unparseable values get none.
 */
export function cidrWarnings(path: { toString(): string }, value: string): string[] {
  const c = parseCidrSloppy(value);
  if (!c) return [];
  const warnings: string[] = [];
  if (c.address.some((b, i) => b !== c.bytes[i])) {
    const single = `${goIPString(c.address)}/${c.address.length * 8}`;
    warnings.push(`${path}: CIDR value ${goQuote(value)} is ambiguous in this context (should be ${goQuote(goIPNetString(c))} or ${goQuote(single)}?)`);
  }
  const [addrText, bitsText] = value.split('/') as [string, string];
  const strict = parseAddr(addrText);
  const strictOk = !('error' in strict) && strict.zone === '' && !/^0\d/.test(bitsText);
  if (!strictOk || isMapped(c.address)) {
    warnings.push(`${path}: non-standard CIDR value ${goQuote(value)} will be considered invalid in a future Kubernetes release: use ${goQuote(goIPNetString(c))}`);
  }
  if (warnings.length === 0 && !c.v4) {
    const canonical = `${formatAddr({ bytes: [...c.address], v4: false, zone: '' })}/${c.prefix}`;
    if (canonical !== value) warnings.push(`${path}: IPv6 CIDR value ${goQuote(value)} should be in RFC 5952 canonical format (${goQuote(canonical)})`);
  }
  return warnings;
}
