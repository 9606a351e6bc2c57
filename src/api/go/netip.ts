/**
 * Go's netip.ParseAddr and Addr.String, for names that must be an IP address in canonical form
 * (IPAddress objects): the parse errors are Go's, `ParseAddr("1.2.3"): IPv4 address too short`.
 */
import { goQuote } from './quote.ts';

type Parsed = { readonly bytes: number[]; readonly v4: boolean; readonly zone: string } | { readonly error: string };

class AddrError extends Error {}

function fail(input: string, msg: string, at?: string): never {
  throw new AddrError(`ParseAddr(${goQuote(input)}): ${msg}${at !== undefined && at !== '' ? ` (at ${goQuote(at)})` : ''}`);
}

function parseIPv4Fields(input: string, s: string, out: number[]): void {
  let val = 0;
  let pos = 0;
  let digits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c >= '0' && c <= '9') {
      if (digits === 1 && val === 0) fail(input, 'IPv4 field has octet with leading zero');
      val = val * 10 + (c.charCodeAt(0) - 48);
      digits++;
      if (val > 255) fail(input, 'IPv4 field has value >255');
    } else if (c === '.') {
      if (i === 0 || i === s.length - 1 || s[i - 1] === '.') fail(input, 'IPv4 field must have at least one digit', s.slice(i));
      if (pos === 3) fail(input, 'IPv4 address too long');
      out.push(val);
      pos++;
      val = 0;
      digits = 0;
    } else {
      fail(input, 'unexpected character', s.slice(i));
    }
  }
  if (pos < 3) fail(input, 'IPv4 address too short');
  out.push(val);
}

function parseIPv6(input: string): Parsed {
  let s = input;
  let zone = '';
  const pct = s.indexOf('%');
  if (pct !== -1) {
    zone = s.slice(pct + 1);
    s = s.slice(0, pct);
    if (zone === '') fail(input, 'zone must be a non-empty string');
  }
  const ip: number[] = new Array(16).fill(0);
  let ellipsis = -1;
  if (s.length >= 2 && s[0] === ':' && s[1] === ':') {
    ellipsis = 0;
    s = s.slice(2);
    if (s.length === 0) return { bytes: ip, v4: false, zone };
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < s.length; off++) {
      const c = s[off]!;
      const d = c >= '0' && c <= '9' ? c.charCodeAt(0) - 48 : c >= 'a' && c <= 'f' ? c.charCodeAt(0) - 87 : c >= 'A' && c <= 'F' ? c.charCodeAt(0) - 55 : -1;
      if (d < 0) break;
      acc = acc * 16 + d;
      if (off > 3) fail(input, 'each group must have 4 or less digits', s);
      if (acc > 0xffff) fail(input, 'IPv6 field has value >=2^16', s);
    }
    if (off === 0) fail(input, 'each colon-separated field must have at least one digit', s);
    if (off < s.length && s[off] === '.') {
      if (ellipsis < 0 && i !== 12) fail(input, 'embedded IPv4 address must replace the final 2 fields of the address', s);
      if (i + 4 > 16) fail(input, 'too many hex fields to fit an embedded IPv4 at the end of the address', s);
      const v4: number[] = [];
      parseIPv4Fields(input, s, v4);
      for (let k = 0; k < 4; k++) ip[i + k] = v4[k]!;
      s = '';
      i += 4;
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (s.length === 0) break;
    if (s[0] !== ':') fail(input, 'unexpected character, want colon', s);
    else if (s.length === 1) fail(input, 'colon must be followed by more characters', s);
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) fail(input, 'multiple :: in address', s);
      ellipsis = i;
      s = s.slice(1);
      if (s.length === 0) break;
    }
  }
  if (s.length !== 0) fail(input, 'trailing garbage after address', s);
  if (i < 16) {
    if (ellipsis < 0) fail(input, 'address string too short');
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j]!;
    for (let j = ellipsis + n - 1; j >= ellipsis; j--) ip[j] = 0;
  } else if (ellipsis >= 0) {
    fail(input, 'the :: must expand to at least one field of zeros');
  }
  return { bytes: ip, v4: false, zone };
}

/** Go's netip.ParseAddr: the address, or Go's error text. */
export function parseAddr(input: string): Parsed {
  try {
    for (const c of input) {
      if (c === '.') {
        const v4: number[] = [];
        parseIPv4Fields(input, input, v4);
        return { bytes: v4, v4: true, zone: '' };
      }
      if (c === ':') return parseIPv6(input);
      if (c === '%') fail(input, 'missing IPv6 address');
    }
    fail(input, 'unable to parse IP');
  } catch (err) {
    if (err instanceof AddrError) return { error: err.message };
    throw err;
  }
}

/** Go's Addr.String: dotted decimal, or RFC 5952 IPv6 (`::ffff:1.2.3.4` for mapped IPv4). */
export function formatAddr(addr: { bytes: number[]; v4: boolean; zone: string }): string {
  const b = addr.bytes;
  if (addr.v4) return b.join('.');
  const zone = addr.zone ? `%${addr.zone}` : '';
  if (b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff) return `::ffff:${b.slice(12).join('.')}${zone}`;
  const groups = Array.from({ length: 8 }, (_, k) => (b[2 * k]! << 8) | b[2 * k + 1]!);
  // The longest run of two or more zero groups (the first of equals) becomes "::".
  let best = -1;
  let bestLen = 0;
  for (let k = 0; k < 8; ) {
    if (groups[k] !== 0) {
      k++;
      continue;
    }
    let end = k;
    while (end < 8 && groups[end] === 0) end++;
    if (end - k > bestLen && end - k >= 2) {
      best = k;
      bestLen = end - k;
    }
    k = end;
  }
  const hex = (from: number, to: number) => groups.slice(from, to).map((g) => g.toString(16)).join(':');
  const text = best < 0 ? hex(0, 8) : `${hex(0, best)}::${hex(best + bestLen, 8)}`;
  return text + zone;
}
