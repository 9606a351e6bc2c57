/**
 * The `email` format: Go's net/mail.ParseAddress accepts the text as exactly one address
 * (`jane@example.com`, `Jane Doe <jane@example.com>`, `jane@example.com (Jane)`, a quoted local
 * part, an IP domain literal). Only the verdict is computed; the parser follows Go's addrParser.
 */
import { parseAddr } from '../../../api/go/netip.ts';

class MailError extends Error {}

const isVchar = (c: number) => (c >= 0x21 && c <= 0x7e) || c >= 0x80;
const isWSP = (c: number) => c === 0x20 || c === 0x09;
const isQtext = (c: number) => c !== 0x5c && c !== 0x22 && isVchar(c);
const isDtext = (c: number) => c !== 0x5b && c !== 0x5d && c !== 0x5c && isVchar(c);
const SPECIALS = new Set([...'()<>[]:;@\\,"'].map((c) => c.codePointAt(0)!));
const isAtext = (c: number, dot: boolean) => (c === 0x2e ? dot : !SPECIALS.has(c) && isVchar(c));

/** An encoded word (RFC 2047) whose charset Go's decoder does not know fails the phrase. */
const ENCODED_WORD = /^=\?([^?]+)\?([bBqQ])\?([^?]*)\?=$/;
const KNOWN_CHARSETS = new Set(['utf-8', 'iso-8859-1', 'us-ascii']);

class AddrParser {
  /** The rest of the input, as code points. */
  private s: number[];

  constructor(text: string) {
    this.s = [...text].map((c) => c.codePointAt(0)!);
  }

  private empty(): boolean {
    return this.s.length === 0;
  }

  private peek(): number {
    return this.s[0]!;
  }

  private consume(c: string): boolean {
    if (this.empty() || this.peek() !== c.charCodeAt(0)) return false;
    this.s = this.s.slice(1);
    return true;
  }

  private skipSpace(): void {
    let i = 0;
    while (i < this.s.length && isWSP(this.s[i]!)) i++;
    if (i > 0) this.s = this.s.slice(i);
  }

  private skipCFWS(): boolean {
    this.skipSpace();
    while (this.consume('(')) {
      if (!this.consumeComment().ok) return false;
      this.skipSpace();
    }
    return true;
  }

  private consumeComment(): { text: number[]; ok: boolean } {
    let depth = 1;
    const text: number[] = [];
    while (!this.empty() && depth !== 0) {
      if (this.peek() === 0x5c && this.s.length > 1) this.s = this.s.slice(1);
      else if (this.peek() === 0x28) depth++;
      else if (this.peek() === 0x29) depth--;
      if (depth > 0) text.push(this.s[0]!);
      this.s = this.s.slice(1);
    }
    return { text, ok: depth === 0 };
  }

  parseSingleAddress(): void {
    const count = this.parseAddress(true);
    if (!this.skipCFWS()) throw new MailError('misformatted parenthetical comment');
    if (!this.empty()) throw new MailError('expected single address');
    if (count === 0) throw new MailError('empty group');
    if (count > 1) throw new MailError('group with multiple addresses');
  }

  /** The number of addresses parsed (a group may hold several). */
  private parseAddress(handleGroup: boolean): number {
    this.skipSpace();
    if (this.empty()) throw new MailError('no address');
    if (this.tryAddrSpec()) {
      this.skipSpace();
      if (!this.empty() && this.peek() === 0x28) this.consumeDisplayNameComment();
      return 1;
    }
    let displayName: number[] = [];
    if (this.peek() !== 0x3c) displayName = this.consumePhrase();
    this.skipSpace();
    if (handleGroup && this.consume(':')) return this.consumeGroupList();
    if (!this.consume('<')) {
      throw new MailError(displayName.every((c) => isAtext(c, true)) ? "missing '@' or angle-addr" : 'no angle-addr');
    }
    this.consumeAddrSpec();
    if (!this.consume('>')) throw new MailError('unclosed angle-addr');
    return 1;
  }

  private consumeGroupList(): number {
    let count = 0;
    this.skipSpace();
    if (this.consume(';')) {
      if (!this.skipCFWS()) throw new MailError('misformatted parenthetical comment');
      return 0;
    }
    for (;;) {
      this.skipSpace();
      count += this.parseAddress(false);
      if (!this.skipCFWS()) throw new MailError('misformatted parenthetical comment');
      if (this.consume(';')) {
        if (!this.skipCFWS()) throw new MailError('misformatted parenthetical comment');
        return count;
      }
      if (!this.consume(',')) throw new MailError('expected comma');
    }
  }

  /** An addr-spec at the start, or nothing consumed. */
  private tryAddrSpec(): boolean {
    const saved = this.s;
    try {
      this.consumeAddrSpec();
      return true;
    } catch (e) {
      if (!(e instanceof MailError)) throw e;
      this.s = saved;
      return false;
    }
  }

  private consumeAddrSpec(): void {
    const saved = this.s;
    try {
      this.skipSpace();
      if (this.empty()) throw new MailError('no addr-spec');
      if (this.peek() === 0x22) {
        if (this.consumeQuotedString().length === 0) throw new MailError('empty quoted string in addr-spec');
      } else {
        this.consumeAtom(true, false);
      }
      if (!this.consume('@')) throw new MailError('missing @ in addr-spec');
      this.skipSpace();
      if (this.empty()) throw new MailError('no domain in addr-spec');
      if (this.peek() === 0x5b) this.consumeDomainLiteral();
      else this.consumeAtom(true, false);
    } catch (e) {
      this.s = saved;
      throw e;
    }
  }

  private consumePhrase(): number[] {
    const words: number[][] = [];
    for (;;) {
      if (words.length > 0 && !this.skipCFWS()) throw new MailError('misformatted parenthetical comment');
      this.skipSpace();
      if (this.empty()) break;
      try {
        if (this.peek() === 0x22) {
          words.push(this.consumeQuotedString());
        } else {
          const atom = this.consumeAtom(true, true);
          checkEncodedWord(atom);
          words.push(atom);
        }
      } catch (e) {
        if (!(e instanceof MailError)) throw e;
        if (words.length === 0) throw new MailError(`missing word in phrase: ${e.message}`);
        break;
      }
    }
    return words.flatMap((w, i) => (i === 0 ? w : [0x20, ...w]));
  }

  private consumeQuotedString(): number[] {
    const out: number[] = [];
    let escaped = false;
    let i = 1;
    for (;;) {
      if (i >= this.s.length) throw new MailError('unclosed quoted-string');
      const c = this.s[i]!;
      if (escaped) {
        if (!isVchar(c) && !isWSP(c)) throw new MailError('bad character in quoted-string');
        out.push(c);
        escaped = false;
      } else if (isQtext(c) || isWSP(c)) {
        out.push(c);
      } else if (c === 0x22) {
        break;
      } else if (c === 0x5c) {
        escaped = true;
      } else {
        throw new MailError('bad character in quoted-string');
      }
      i++;
    }
    this.s = this.s.slice(i + 1);
    return out;
  }

  private consumeAtom(dot: boolean, permissive: boolean): number[] {
    let i = 0;
    while (i < this.s.length && isAtext(this.s[i]!, dot)) i++;
    if (i === 0) throw new MailError('invalid string');
    const atom = this.s.slice(0, i);
    this.s = this.s.slice(i);
    if (!permissive) {
      const text = String.fromCodePoint(...atom);
      if (text.startsWith('.')) throw new MailError('leading dot in atom');
      if (text.includes('..')) throw new MailError('double dot in atom');
      if (text.endsWith('.')) throw new MailError('trailing dot in atom');
    }
    return atom;
  }

  private consumeDomainLiteral(): void {
    if (!this.consume('[')) throw new MailError('missing "[" in domain-literal');
    const dtext: number[] = [];
    for (;;) {
      if (this.empty()) throw new MailError('unclosed domain-literal');
      if (this.peek() === 0x5d) break;
      if (!isDtext(this.peek())) throw new MailError('bad character in domain-literal');
      dtext.push(this.peek());
      this.s = this.s.slice(1);
    }
    this.consume(']');
    const ip = parseAddr(String.fromCodePoint(...dtext));
    if ('error' in ip || ip.zone !== '') throw new MailError('invalid IP address in domain-literal');
  }

  private consumeDisplayNameComment(): void {
    if (!this.consume('(')) throw new MailError('comment does not start with (');
    const { text, ok } = this.consumeComment();
    if (!ok) throw new MailError('misformatted parenthetical comment');
    for (const word of String.fromCodePoint(...text).split(/[ \t]+/)) {
      if (word) checkEncodedWord([...word].map((c) => c.codePointAt(0)!));
    }
  }
}

/** An RFC 2047 word that decodes but names a charset Go cannot convert is an error. */
function checkEncodedWord(word: number[]): void {
  const m = ENCODED_WORD.exec(String.fromCodePoint(...word));
  if (!m) return;
  const [, charset, encoding, text] = m as unknown as [string, string, string, string];
  const decodes = encoding.toLowerCase() === 'b' ? /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text) : !/=(?![0-9A-Fa-f]{2})/.test(text);
  if (decodes && !KNOWN_CHARSETS.has(charset.toLowerCase())) throw new MailError(`charset not supported: "${charset}"`);
}

/** Whether Go's mail.ParseAddress accepts `s` (with a non-empty address). */
export function isEmailAddress(s: string): boolean {
  try {
    new AddrParser(s).parseSingleAddress();
    return true;
  } catch (e) {
    if (e instanceof MailError) return false;
    throw e;
  }
}
