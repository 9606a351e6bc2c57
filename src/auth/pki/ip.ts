import { isIPv4, isIPv6 } from 'node:net';

/**
 * IP addresses as certificates hold them: 4 or 16 bytes. Text goes through bytes so that
 * `::1`, `0:0::1` and `[::1]` compare equal.
 */

/** Strips `[...]` and a `%zone`; returns null when the rest is not an IP address. */
export function normalizeIpText(text: string): string | null {
  let s = text.trim();
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1);
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  return isIPv4(s) || isIPv6(s) ? s : null;
}

export function ipToBytes(text: string): Buffer | null {
  const s = normalizeIpText(text);
  if (s === null) return null;
  if (isIPv4(s)) return Buffer.from(s.split('.').map(Number));
  let hex = s;
  if (s.includes('.')) {
    // an embedded IPv4 address (::ffff:10.0.0.1) stands for the last two groups
    const cut = s.lastIndexOf(':') + 1;
    const v4 = s.slice(cut).split('.').map(Number);
    hex = `${s.slice(0, cut)}${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  }
  const parse = (part: string): number[] => (part ? part.split(':').map((g) => Number.parseInt(g, 16)) : []);
  const gap = hex.indexOf('::');
  const left = parse(gap < 0 ? hex : hex.slice(0, gap));
  const right = gap < 0 ? [] : parse(hex.slice(gap + 2));
  const groups = gap < 0 ? left : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  if (groups.length !== 8) return null;
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(g, i * 2));
  return out;
}

/** Canonical text (RFC 5952 for IPv6) of 4 or 16 address bytes; null for other lengths. */
export function ipFromBytes(bytes: Buffer): string | null {
  if (bytes.length === 4) return [...bytes].join('.');
  if (bytes.length !== 16) return null;
  const groups = Array.from({ length: 8 }, (_, i) => bytes.readUInt16BE(i * 2));
  let bestStart = -1;
  let bestLength = 1; // a single zero group is not compressed
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) [bestStart, bestLength] = [i, j - i];
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

/** The canonical form of an IP address text, or null when it is not one. */
export function canonicalIp(text: string): string | null {
  const bytes = ipToBytes(text);
  return bytes ? ipFromBytes(bytes) : null;
}
