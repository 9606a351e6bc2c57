/**
 * Go's regexp (RE2 syntax) on JavaScript's RegExp: a translator that accepts what Go's parser
 * accepts, refuses what it refuses with its error text (`error parsing regexp: missing closing ]:
 * `[a``), and rewrites the syntax the two spell differently — ASCII `\s`, POSIX classes, `\pL`,
 * `\Q…\E`, `\A` and `\z`, `(?P<name>…)`, flags set mid-pattern or for a group, ungreedy mode.
 * Backreferences and lookaround, which RE2 lacks, are refused as Go refuses them.
 */

export class RegexSyntaxError extends Error {}

interface Flags {
  i: boolean;
  m: boolean;
  s: boolean;
  U: boolean;
}

const cache = new Map<string, RegExp | RegexSyntaxError>();

/** The pattern as a JavaScript RegExp (cached), or throws Go's parse error. */
export function compileRe2(pattern: string): RegExp {
  let r = cache.get(pattern);
  if (r === undefined) {
    try {
      r = new RegExp(translate(pattern), 'u');
    } catch (e) {
      r = e instanceof RegexSyntaxError ? e : new RegexSyntaxError(`error parsing regexp: invalid or unsupported Perl syntax: \`${pattern}\``);
    }
    if (cache.size > 1000) cache.clear();
    cache.set(pattern, r);
  }
  if (r instanceof RegexSyntaxError) throw r;
  return r;
}

/** The message of a pattern's parse error, or undefined when Go accepts it. */
export function re2Error(pattern: string): string | undefined {
  try {
    compileRe2(pattern);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

function fail(code: string, arg: string): never {
  throw new RegexSyntaxError(`error parsing regexp: ${code}: \`${arg}\``);
}

const POSIX: Record<string, string> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

/** Perl classes as RE2 defines them: ASCII only. */
const PERL: Record<string, string> = { d: '0-9', s: '\\t\\n\\f\\r ', w: '0-9A-Za-z_' };

/** Characters JavaScript's `u` mode lets (and needs) a backslash before. */
const JS_SYNTAX = new Set('^$\\.*+?()[]{}|/'.split(''));

/** Unicode general categories and scripts as Go names them, to JavaScript's \p{…} forms. */
function unicodeClass(name: string, negate: boolean, whole: string): string {
  const cats = new Set(['C', 'Cc', 'Cf', 'Co', 'Cs', 'L', 'Ll', 'Lm', 'Lo', 'Lt', 'Lu', 'M', 'Mc', 'Me', 'Mn', 'N', 'Nd', 'Nl', 'No', 'P', 'Pc', 'Pd', 'Pe', 'Pf', 'Pi', 'Po', 'Ps', 'S', 'Sc', 'Sk', 'Sm', 'So', 'Z', 'Zl', 'Zp', 'Zs']);
  let body: string;
  if (name === 'Any') body = negate ? '[^\\s\\S]' : '[\\s\\S]';
  else if (cats.has(name)) body = `\\${negate ? 'P' : 'p'}{${name}}`;
  else {
    try {
      new RegExp(`\\p{Script=${name}}`, 'u');
    } catch {
      fail('invalid character class range', whole);
    }
    body = `\\${negate ? 'P' : 'p'}{Script=${name}}`;
  }
  return body;
}

function escapeLiteral(ch: string): string {
  return JS_SYNTAX.has(ch) || ch === '-' ? `\\${ch}` : ch;
}

/** A literal character as JS source, expanded for case-insensitivity where a group asks for it. */
function literal(ch: string, flags: Flags, inClass: boolean): string {
  const lower = ch.toLowerCase();
  const upper = ch.toUpperCase();
  const esc = (c: string) => (inClass ? escapeClassChar(c) : escapeLiteral(c));
  if (flags.i && lower !== upper && [...lower].length === 1 && [...upper].length === 1) return inClass ? `${esc(lower)}${esc(upper)}` : `[${escapeClassChar(lower)}${escapeClassChar(upper)}]`;
  return esc(ch);
}

function escapeClassChar(ch: string): string {
  return ch === ']' || ch === '\\' || ch === '^' || ch === '-' || ch === '[' ? `\\${ch}` : ch;
}

function translate(src: string): string {
  const p = new Translator(src);
  return p.run();
}

class Translator {
  private i = 0;
  private depth = 0;
  private readonly chars: string[];
  constructor(private readonly src: string) {
    this.chars = [...src];
  }

  run(): string {
    const out = this.alternation({ i: false, m: false, s: false, U: false });
    if (this.i < this.chars.length) fail('unexpected )', this.src);
    return out;
  }

  private peek(k = 0): string | undefined {
    return this.chars[this.i + k];
  }

  private rest(from: number, to = this.chars.length): string {
    return this.chars.slice(from, to).join('');
  }

  /** alternation := concat ('|' concat)* — stops at ')' or the end. */
  private alternation(flags: Flags): string {
    const parts: string[] = [this.concat(flags)];
    while (this.peek() === '|') {
      this.i++;
      parts.push(this.concat(flags));
    }
    return parts.join('|');
  }

  private concat(flags: Flags): string {
    let out = '';
    let lastAtom: string | undefined;
    let lastWasRepeat = false;
    while (this.i < this.chars.length) {
      const ch = this.peek()!;
      if (ch === '|' || ch === ')') break;
      if (ch === '*' || ch === '+' || ch === '?' || (ch === '{' && this.repeatAt(this.i) !== undefined)) {
        const start = this.i;
        let op: string;
        if (ch === '{') {
          const r = this.repeatAt(this.i)!;
          this.i = r.end;
          op = r.text;
          if (r.min > 1000 || (r.max ?? 0) > 1000 || (r.max !== undefined && r.max < r.min)) fail('invalid repeat count', this.rest(start, r.end));
        } else {
          this.i++;
          op = ch;
        }
        let lazy = false;
        if (this.peek() === '?') {
          this.i++;
          lazy = true;
        }
        if (lastAtom === undefined) fail('missing argument to repetition operator', this.rest(start, this.i));
        if (lastWasRepeat) fail('invalid nested repetition operator', this.rest(this.repeatStart!, this.i));
        if (flags.U) lazy = !lazy;
        out = out.slice(0, out.length - lastAtom.length) + `(?:${lastAtom})${op}${lazy ? '?' : ''}`;
        lastAtom = `(?:${lastAtom})${op}${lazy ? '?' : ''}`;
        lastWasRepeat = true;
        this.repeatStart = start;
        continue;
      }
      const atomStart = this.i;
      const atom = this.atom(flags);
      if (atom === null) continue; // a flags group changes the flags and matches nothing
      out += atom;
      lastAtom = atom;
      lastWasRepeat = false;
      this.repeatStart = atomStart;
    }
    return out;
  }

  private repeatStart: number | undefined;

  /** A `{n}`, `{n,}` or `{n,m}` at position k (Go treats any other `{` as a literal). */
  private repeatAt(k: number): { end: number; min: number; max?: number; text: string } | undefined {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(this.rest(k, Math.min(this.chars.length, k + 30)));
    if (!m) return undefined;
    const min = Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === '' ? undefined : Number(m[3]);
    return { end: k + [...m[0]].length, min, max, text: m[0] };
  }

  /** One atom, or null for a bare flags group `(?i)`. */
  private atom(flags: Flags): string | null {
    const ch = this.chars[this.i]!;
    switch (ch) {
      case '(':
        return this.group(flags);
      case '[':
        return this.charClass(flags);
      case '\\':
        return this.escape(flags, false);
      case '.':
        this.i++;
        return flags.s ? '[\\s\\S]' : '[^\\n]';
      case '^':
        this.i++;
        // JavaScript's multiline mode also breaks lines at \r and U+2028; Go's only at \n.
        return flags.m ? '(?<=^|\\n)' : '^';
      case '$':
        this.i++;
        return flags.m ? '(?=$|\\n)' : '$';
      default:
        this.i++;
        return literal(ch, flags, false);
    }
  }

  private group(flags: Flags): string | null {
    const start = this.i;
    this.i++; // (
    if (++this.depth > 1000) fail('expression nests too deeply', this.src);
    try {
      if (this.peek() !== '?') return `(${this.groupBody(flags)})`;
      this.i++; // ?
      const next = this.peek();
      if (next === 'P' || next === '<') {
        if (next === 'P') this.i++;
        if (this.peek() !== '<') fail('invalid or unsupported Perl syntax', this.rest(start, this.i + 1));
        const close = this.chars.indexOf('>', this.i);
        const name = close < 0 ? '' : this.rest(this.i + 1, close);
        if (close < 0 || !/^[A-Za-z0-9_]+$/.test(name)) fail('invalid named capture', this.rest(start, close < 0 ? this.chars.length : close + 1));
        this.i = close + 1;
        return `(?<${name}>${this.groupBody(flags)})`;
      }
      // Flags: (?flags) or (?flags:re)
      const f = { ...flags };
      let negate = false;
      let sawFlag = false;
      for (;;) {
        const c = this.peek();
        if (c === undefined) fail('missing closing )', this.src);
        if (c === 'i' || c === 'm' || c === 's' || c === 'U') {
          f[c] = !negate;
          sawFlag = true;
          this.i++;
          continue;
        }
        if (c === '-') {
          if (negate) fail('invalid or unsupported Perl syntax', this.rest(start, this.i + 1));
          negate = true;
          sawFlag = false;
          this.i++;
          continue;
        }
        if (c === ':') {
          this.i++;
          return `(?:${this.groupBody(f)})`;
        }
        if (c === ')') {
          if (negate && !sawFlag) fail('invalid or unsupported Perl syntax', this.rest(start, this.i + 1));
          this.i++;
          Object.assign(flags, f);
          return null;
        }
        fail('invalid or unsupported Perl syntax', this.rest(start, this.i + 1));
      }
    } finally {
      this.depth--;
    }
  }

  private groupBody(flags: Flags): string {
    const body = this.alternation({ ...flags });
    if (this.peek() !== ')') fail('missing closing )', this.src);
    this.i++;
    return body;
  }

  /** An escape outside or inside a class; returns JS source. */
  private escape(flags: Flags, inClass: boolean): string {
    const start = this.i;
    this.i++; // backslash
    const c = this.peek();
    if (c === undefined) fail('trailing backslash at end of expression', '');
    this.i++;
    switch (c) {
      case 'd':
      case 's':
      case 'w':
        return inClass ? PERL[c]! : `[${PERL[c]}]`;
      case 'D':
      case 'S':
      case 'W':
        if (inClass) return `\\${c === 'D' ? 'D' : c === 'W' ? 'W' : 'S'}`.replace('\\S', '\\x00-\\x08\\x0B\\x0E-\\x1F\\x21-\\u{10FFFF}');
        return `[^${PERL[c.toLowerCase()]}]`;
      case 'b':
      case 'B':
        if (inClass) fail('invalid escape sequence', this.rest(start, this.i));
        return `\\${c}`;
      case 'A':
        if (inClass) fail('invalid escape sequence', this.rest(start, this.i));
        return '(?<![\\s\\S])';
      case 'z':
        if (inClass) fail('invalid escape sequence', this.rest(start, this.i));
        return '(?![\\s\\S])';
      case 'a':
        return '\\x07';
      case 'f':
        return '\\f';
      case 't':
        return '\\t';
      case 'n':
        return '\\n';
      case 'r':
        return '\\r';
      case 'v':
        return '\\v';
      case 'Q': {
        if (inClass) fail('invalid escape sequence', this.rest(start, this.i));
        let end = this.chars.findIndex((ch, k) => k >= this.i && ch === '\\' && this.chars[k + 1] === 'E');
        if (end < 0) end = this.chars.length;
        const lit = this.chars.slice(this.i, end).map((ch) => literal(ch, flags, false)).join('');
        this.i = Math.min(this.chars.length, end + 2);
        return lit === '' ? '(?:)' : `(?:${lit})`;
      }
      case 'p':
      case 'P': {
        let name: string;
        if (this.peek() === '{') {
          const close = this.chars.indexOf('}', this.i);
          if (close < 0) fail('invalid character class range', this.rest(start));
          name = this.rest(this.i + 1, close);
          this.i = close + 1;
        } else {
          name = this.peek() ?? '';
          if (name === '') fail('invalid character class range', this.rest(start));
          this.i++;
        }
        let negate = c === 'P';
        if (name.startsWith('^')) {
          negate = !negate;
          name = name.slice(1);
        }
        return unicodeClass(name, negate, this.rest(start, this.i));
      }
      case 'x': {
        let hex: string;
        if (this.peek() === '{') {
          const close = this.chars.indexOf('}', this.i);
          hex = close < 0 ? '' : this.rest(this.i + 1, close);
          if (close < 0 || !/^[0-9A-Fa-f]{1,8}$/.test(hex) || parseInt(hex, 16) > 0x10ffff) fail('invalid escape sequence', this.rest(start, close < 0 ? this.chars.length : close + 1));
          this.i = close + 1;
        } else {
          hex = this.rest(this.i, this.i + 2);
          if (!/^[0-9A-Fa-f]{2}$/.test(hex)) fail('invalid escape sequence', this.rest(start, Math.min(this.chars.length, this.i + 2)));
          this.i += 2;
        }
        return literal(String.fromCodePoint(parseInt(hex, 16)), flags, inClass);
      }
      default:
        if (c >= '0' && c <= '7') {
          // \0, and octal \1-\7 only when followed by more octal digits (else a backreference).
          if (c !== '0' && !(this.peek() !== undefined && /[0-7]/.test(this.peek()!))) fail('invalid escape sequence', this.rest(start, this.i));
          let oct = c;
          while (oct.length < 3 && this.peek() !== undefined && /[0-7]/.test(this.peek()!)) oct += this.chars[this.i++];
          return literal(String.fromCodePoint(parseInt(oct, 8)), flags, inClass);
        }
        if (c >= '8' && c <= '9') fail('invalid escape sequence', this.rest(start, this.i));
        // RE2 lets any ASCII punctuation be escaped; letters and digits are reserved.
        if (/[!-/:-@[-`{-~]/.test(c)) return literal(c, flags, inClass);
        fail('invalid escape sequence', this.rest(start, this.i));
    }
  }

  private charClass(flags: Flags): string {
    const start = this.i;
    this.i++; // [
    let negate = false;
    if (this.peek() === '^') {
      negate = true;
      this.i++;
    }
    let out = '';
    let first = true;
    for (;;) {
      const c = this.peek();
      if (c === undefined) fail('missing closing ]', this.rest(start));
      if (c === ']' && !first) {
        this.i++;
        break;
      }
      first = false;
      if (c === '[' && this.peek(1) === ':') {
        const close = this.rest(this.i).indexOf(':]');
        if (close >= 0) {
          const whole = this.rest(this.i, this.i + close + 2);
          let name = whole.slice(2, -2);
          let neg = false;
          if (name.startsWith('^')) {
            neg = true;
            name = name.slice(1);
          }
          const body = POSIX[name];
          if (body === undefined) fail('invalid character class range', whole);
          this.i += [...whole].length;
          out += neg ? this.complement(body) : body;
          continue;
        }
      }
      const lo = this.classChar(flags);
      if (this.peek() === '-' && this.peek(1) !== ']' && this.peek(1) !== undefined && lo.single !== undefined) {
        const dash = this.i;
        this.i++;
        const hi = this.classChar(flags);
        if (hi.single === undefined || hi.single.codePointAt(0)! < lo.single.codePointAt(0)!) fail('invalid character class range', this.rest(dash - lo.width, this.i));
        out += `${escapeClassChar(lo.single)}-${escapeClassChar(hi.single)}`;
        if (flags.i) out += caseRange(lo.single, hi.single);
        continue;
      }
      out += lo.source;
    }
    return `[${negate ? '^' : ''}${out}]`;
  }

  /** A class item: a literal (`single`, for ranges) or an escape class, as JS source. */
  private classChar(flags: Flags): { source: string; single?: string; width: number } {
    const start = this.i;
    const c = this.peek()!;
    if (c === '\\') {
      const next = this.peek(1);
      const source = this.escape(flags, true);
      const width = this.i - start;
      const lit = decodeLiteral(next, this.rest(start, this.i));
      return lit === undefined ? { source, width } : { source, single: lit, width };
    }
    this.i++;
    return { source: literal(c, flags, true), single: c, width: 1 };
  }

  /** The complement of a class body inside an enclosing class (for [[:^alpha:]]). */
  private complement(body: string): string {
    const probe = new RegExp(`[${body}]`, 'u');
    // Build the complement from the ASCII range; beyond ASCII nothing is in a POSIX class.
    let out = '';
    for (let cp = 0; cp < 128; cp++) {
      const ch = String.fromCodePoint(cp);
      if (!probe.test(ch)) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    }
    return `${out}\\x80-\\u{10FFFF}`;
  }
}

/** The literal character an escape denotes, when it denotes one. */
function decodeLiteral(next: string | undefined, text: string): string | undefined {
  if (next === undefined) return undefined;
  const simple: Record<string, string> = { a: '\x07', f: '\f', t: '\t', n: '\n', r: '\r', v: '\v' };
  if (simple[next]) return simple[next];
  if (next === 'x') {
    const m = /^\\x(?:\{([0-9A-Fa-f]+)\}|([0-9A-Fa-f]{2}))$/.exec(text);
    return m ? String.fromCodePoint(parseInt(m[1] ?? m[2]!, 16)) : undefined;
  }
  if (/[0-7]/.test(next)) return String.fromCodePoint(parseInt(text.slice(1), 8));
  if (/[!-/:-@[-`{-~]/.test(next)) return next;
  return undefined;
}

/** The other-case letters of a range, for case-insensitive classes. */
function caseRange(lo: string, hi: string): string {
  const a = lo.codePointAt(0)!;
  const b = hi.codePointAt(0)!;
  if (b - a > 500) return '';
  let out = '';
  for (let cp = a; cp <= b; cp++) {
    const ch = String.fromCodePoint(cp);
    for (const other of [ch.toLowerCase(), ch.toUpperCase()]) if (other !== ch && [...other].length === 1) out += escapeClassChar(other);
  }
  return out;
}

/** Go's FindAllString(s, n): successive non-overlapping matches; an empty match right after a match is skipped. */
export function findAll(re: RegExp, s: string, n: number): string[] {
  const g = new RegExp(re.source, 'gu');
  const out: string[] = [];
  let prevEnd = -1;
  let pos = 0;
  while ((n < 0 || out.length < n) && pos <= s.length) {
    g.lastIndex = pos;
    const m = g.exec(s);
    if (!m) break;
    const start = m.index;
    const end = start + m[0].length;
    let accept = true;
    if (end === start) {
      if (start === prevEnd) accept = false;
      const cp = s.codePointAt(start);
      pos = start + (cp === undefined ? 1 : cp > 0xffff ? 2 : 1);
    } else {
      pos = end;
    }
    prevEnd = end;
    if (accept) out.push(m[0]);
  }
  return out;
}
