/**
 * The parts of Go's net/url the Kubernetes URL library uses: ParseRequestURI and Parse (with their
 * error texts), Hostname, Port, EscapedPath and Query; also what validates webhook URLs.
 */
import { goQuote } from './quote.ts';

export interface GoUrl {
  readonly scheme: string;
  readonly opaque: string;
  readonly user: string | undefined;
  readonly host: string;
  readonly path: string;
  readonly rawPath: string;
  readonly rawQuery: string;
  readonly fragment: string;
  readonly forceQuery: boolean;
}

export class UrlError extends Error {}

function fail(msg: string): never {
  throw new UrlError(msg);
}

/** `parse "<url>": <reason>`, as *url.Error prints. */
function wrap(op: string, raw: string, f: () => GoUrl): GoUrl {
  try {
    return f();
  } catch (e) {
    if (e instanceof UrlError) throw new UrlError(`${op} ${goQuote(raw)}: ${e.message}`);
    throw e;
  }
}

export function parseRequestURI(raw: string): GoUrl {
  return wrap('parse', raw, () => parse(raw, true));
}

/** url.Parse: an error in the URL names it without its fragment, an error in the fragment the whole text. */
export function parseUrl(raw: string): GoUrl {
  const hash = raw.indexOf('#');
  const withoutFragment = hash < 0 ? raw : raw.slice(0, hash);
  const u = wrap('parse', withoutFragment, () => parse(withoutFragment, false));
  if (hash < 0) return u;
  return wrap('parse', raw, () => ({ ...u, fragment: unescape(raw.slice(hash + 1), 'fragment') }));
}

function parse(raw: string, viaRequest: boolean): GoUrl {
  if (/[\x00-\x1f\x7f]/.test(raw)) fail('net/url: invalid control character in URL');
  if (raw === '' && viaRequest) fail('empty url');
  const base = { scheme: '', opaque: '', user: undefined, host: '', path: '', rawPath: '', rawQuery: '', fragment: '', forceQuery: false };
  if (raw === '*') return { ...base, path: '*' };
  let [scheme, rest] = getScheme(raw);
  scheme = scheme.toLowerCase();
  let rawQuery = '';
  let forceQuery = false;
  if (rest.endsWith('?') && rest.split('?').length === 2) {
    forceQuery = true;
    rest = rest.slice(0, -1);
  } else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    if (scheme !== '') return { ...base, scheme, opaque: rest, rawQuery, forceQuery };
    if (viaRequest) fail('invalid URI for request');
    const segment = rest.split('/')[0]!;
    if (segment.includes(':')) fail('first path segment in URL cannot contain colon');
  }
  let user: string | undefined;
  let host = '';
  if ((scheme !== '' || (!viaRequest && !rest.startsWith('///'))) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    rest = '';
    const slash = authority.indexOf('/');
    if (slash >= 0) {
      rest = authority.slice(slash);
      authority = authority.slice(0, slash);
    }
    const at = authority.lastIndexOf('@');
    host = parseHost(at < 0 ? authority : authority.slice(at + 1));
    if (at >= 0) {
      user = authority.slice(0, at);
      if (!/^[A-Za-z0-9\-._~!$&'()*+,;=:%@]*$/.test(user)) fail('net/url: invalid userinfo');
    }
  }
  const path = unescape(rest, 'path');
  return { ...base, scheme, user, host, path, rawPath: rest, rawQuery, forceQuery };
}

function getScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (/[A-Za-z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) return ['', raw];
      continue;
    }
    if (c === ':') {
      if (i === 0) fail('missing protocol scheme');
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ['', raw];
  }
  return ['', raw];
}

const validOptionalPort = (p: string) => p === '' || /^:\d*$/.test(p);

function parseHost(host: string): string {
  if (host.startsWith('[')) {
    const close = host.lastIndexOf(']');
    if (close < 0) fail("missing ']' in host");
    const colonPort = host.slice(close + 1);
    if (!validOptionalPort(colonPort)) fail(`invalid port ${goQuote(colonPort)} after host`);
    const zone = host.slice(0, close).indexOf('%25');
    if (zone >= 0) return unescape(host.slice(0, zone), 'host') + unescape(host.slice(zone, close), 'zone') + unescape(host.slice(close), 'host');
  } else {
    const colon = host.lastIndexOf(':');
    if (colon >= 0) {
      const colonPort = host.slice(colon);
      if (!validOptionalPort(colonPort)) fail(`invalid port ${goQuote(colonPort)} after host`);
    }
  }
  return unescape(host, 'host');
}

type Mode = 'path' | 'host' | 'zone' | 'fragment' | 'query';

const isHex = (c: string | undefined) => c !== undefined && /[0-9A-Fa-f]/.test(c);

/** Whether Go's shouldEscape says the byte must be escaped in this part of a URL. */
function shouldEscape(c: string, mode: Mode): boolean {
  if (/[A-Za-z0-9]/.test(c)) return false;
  if ((mode === 'host' || mode === 'zone') && "!$&'()*+,;=:[]<>\"".includes(c)) return false;
  if ('-_.~'.includes(c)) return false;
  if ('$&+,/:;=?@'.includes(c)) {
    if (mode === 'path') return c === '?';
    if (mode === 'query') return true;
    if (mode === 'fragment') return false;
    return true;
  }
  if (mode === 'fragment' && '!()*'.includes(c)) return false;
  return true;
}

/** url.unescape: %XX decoding (with `+` as space in queries) and the host rules. */
function unescape(s: string, mode: Mode): string {
  let hasPercent = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '%') {
      hasPercent = true;
      if (!isHex(s[i + 1]) || !isHex(s[i + 2])) {
        const bad = s.slice(i, i + 3);
        fail(`invalid URL escape ${goQuote(bad)}`);
      }
      if (mode === 'host' && parseInt(s[i + 1]!, 16) < 8 && s.slice(i, i + 3) !== '%25') fail(`invalid URL escape ${goQuote(s.slice(i, i + 3))}`);
      if (mode === 'zone') {
        const v = parseInt(s.slice(i + 1, i + 3), 16);
        if (s.slice(i, i + 3) !== '%25' && v !== 0x20 && shouldEscape(String.fromCharCode(v), 'host')) fail(`invalid URL escape ${goQuote(s.slice(i, i + 3))}`);
      }
      i += 2;
    } else if ((mode === 'host' || mode === 'zone') && c.charCodeAt(0) < 0x80 && shouldEscape(c, mode)) {
      fail(`invalid character ${goQuote(c)} in host name`);
    }
  }
  if (!hasPercent && !(mode === 'query' && s.includes('+'))) return s;
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '%') {
      bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (c === '+' && mode === 'query') bytes.push(0x20);
    else bytes.push(...Buffer.from(c, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

function escape(s: string, mode: Mode): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    out += b < 0x80 && !shouldEscape(c, mode) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** validEncoded(s, encodePath): every byte may appear unescaped in a path. */
function validEncoded(s: string): boolean {
  for (const c of s) {
    if ("!$&'()*+,;=:@[]%".includes(c)) continue;
    if (c.charCodeAt(0) >= 0x80 || shouldEscape(c, 'path')) return false;
  }
  return true;
}

export function escapedPath(u: GoUrl): string {
  if (u.rawPath !== '' && validEncoded(u.rawPath)) {
    try {
      if (unescape(u.rawPath, 'path') === u.path) return u.rawPath;
    } catch {
      // fall through to escaping the path
    }
  }
  if (u.path === '*') return '*';
  return escape(u.path, 'path');
}

function splitHostPort(hostPort: string): [string, string] {
  let host = hostPort;
  let port = '';
  const colon = host.lastIndexOf(':');
  if (colon >= 0 && validOptionalPort(host.slice(colon))) {
    port = host.slice(colon + 1);
    host = host.slice(0, colon);
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return [host, port];
}

export const hostname = (u: GoUrl) => splitHostPort(u.host)[0];
export const port = (u: GoUrl) => splitHostPort(u.host)[1];

/** url.ParseQuery, keeping what parses (as Query() does): key → values in order. */
export function parseQuery(raw: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const pair of raw.split('&')) {
    if (pair === '' || pair.includes(';')) continue;
    const eq = pair.indexOf('=');
    let key: string;
    let value: string;
    try {
      key = unescape(eq < 0 ? pair : pair.slice(0, eq), 'query');
      value = eq < 0 ? '' : unescape(pair.slice(eq + 1), 'query');
    } catch {
      continue;
    }
    const list = out.get(key);
    if (list) list.push(value);
    else out.set(key, [value]);
  }
  return out;
}

/** The parts URL.String() is built from, as one comparable string. */
export function urlIdentity(u: GoUrl): string {
  return JSON.stringify([u.scheme, u.opaque, u.user, u.host, escapedPath(u), u.rawQuery, u.fragment, u.forceQuery]);
}
