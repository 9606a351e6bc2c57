import { MAX_JSON_DEPTH } from './deep-json.ts';

/**
 * Describes why a byte sequence is not JSON, in the words of Go's encoding/json (which is what
 * clients of the real server see): `invalid character 'x' looking for beginning of value`,
 * `unexpected end of JSON input` and so on.
 *
 * Only the error path uses this scanner (and input that parsed but nests too deep): valid input is
 * parsed with `JSON.parse`.
 */
export function jsonSyntaxError(bytes: Uint8Array): string | undefined {
  const scanner = new Scanner(bytes);
  try {
    scanner.document();
    return undefined;
  } catch (err) {
    if (err instanceof ScanError) return err.message;
    throw err;
  }
}

class ScanError extends Error {}

const END = 'unexpected end of JSON input';

/**
 * Go's scanner, iteratively: containers are tracked on an explicit stack, so input nested a million
 * levels deep is reported (`exceeded max depth` past MAX_JSON_DEPTH, as Go does) instead of
 * overflowing the JavaScript stack.
 */
class Scanner {
  readonly #b: Uint8Array;
  #i = 0;

  constructor(bytes: Uint8Array) {
    this.#b = bytes;
  }

  document(): void {
    this.#value();
    this.#space();
    if (this.#i < this.#b.length) this.#fail('after top-level value');
  }

  #peek(): number {
    if (this.#i >= this.#b.length) throw new ScanError(END);
    return this.#b[this.#i]!;
  }

  #fail(context: string): never {
    throw new ScanError(`invalid character ${quoteByte(this.#b[this.#i]!)} ${context}`);
  }

  #space(): void {
    const b = this.#b;
    while (this.#i < b.length) {
      const c = b[this.#i]!;
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
      this.#i++;
    }
  }

  /** One value, containers included; `stack` holds the open containers (0x7d or 0x5d, their closer). */
  #value(): void {
    const stack: number[] = [];
    for (;;) {
      // At the start of a value.
      this.#space();
      const c = this.#peek();
      if (c === 0x7b || c === 0x5b) {
        if (stack.length >= MAX_JSON_DEPTH) this.#fail('exceeded max depth');
        this.#i++;
        this.#space();
        const close = c === 0x7b ? 0x7d : 0x5d;
        if (this.#peek() === close) {
          this.#i++;
        } else {
          stack.push(close);
          if (close === 0x7d) this.#key();
          continue;
        }
      } else if (c === 0x22) this.#string();
      else if (c === 0x2d || isDigit(c)) this.#number();
      else if (c === 0x74) this.#literal('true');
      else if (c === 0x66) this.#literal('false');
      else if (c === 0x6e) this.#literal('null');
      else this.#fail('looking for beginning of value');
      // After a complete value: close containers or move to the next element.
      for (;;) {
        if (stack.length === 0) return;
        this.#space();
        const close = stack[stack.length - 1]!;
        const d = this.#peek();
        if (d === close) {
          this.#i++;
          stack.pop();
          continue;
        }
        if (d !== 0x2c) this.#fail(close === 0x7d ? 'after object key:value pair' : 'after array element');
        this.#i++;
        if (close === 0x7d) {
          this.#space();
          this.#key();
        }
        break;
      }
    }
  }

  /** An object key and its colon. */
  #key(): void {
    if (this.#peek() !== 0x22) this.#fail('looking for beginning of object key string');
    this.#string();
    this.#space();
    if (this.#peek() !== 0x3a) this.#fail('after object key');
    this.#i++;
  }

  #string(): void {
    this.#i++;
    for (;;) {
      const c = this.#peek();
      if (c === 0x22) {
        this.#i++;
        return;
      }
      if (c === 0x5c) {
        this.#i++;
        const e = this.#peek();
        if (e === 0x75) {
          this.#i++;
          for (let k = 0; k < 4; k++) {
            if (!isHex(this.#peek())) this.#fail('in \\u hexadecimal character escape');
            this.#i++;
          }
          continue;
        }
        // b f n r t / \ "
        if (![0x62, 0x66, 0x6e, 0x72, 0x74, 0x2f, 0x5c, 0x22].includes(e)) this.#fail('in string escape code');
        this.#i++;
        continue;
      }
      if (c < 0x20) this.#fail('in string literal');
      this.#i++;
    }
  }

  #number(): void {
    if (this.#peek() === 0x2d) {
      this.#i++;
      if (!isDigit(this.#peek())) this.#fail('in numeric literal');
    }
    if (this.#peek() === 0x30) this.#i++;
    else this.#digits();
    if (this.#i < this.#b.length && this.#b[this.#i] === 0x2e) {
      this.#i++;
      if (!isDigit(this.#peek())) this.#fail('after decimal point in numeric literal');
      this.#digits();
    }
    if (this.#i < this.#b.length && (this.#b[this.#i] === 0x65 || this.#b[this.#i] === 0x45)) {
      this.#i++;
      const s = this.#peek();
      if (s === 0x2b || s === 0x2d) this.#i++;
      if (!isDigit(this.#peek())) this.#fail('in exponent of numeric literal');
      this.#digits();
    }
  }

  #digits(): void {
    while (this.#i < this.#b.length && isDigit(this.#b[this.#i]!)) this.#i++;
  }

  #literal(word: string): void {
    this.#i++;
    for (let k = 1; k < word.length; k++) {
      const want = word.charCodeAt(k);
      if (this.#peek() !== want) this.#fail(`in literal ${word} (expecting ${quoteByte(want)})`);
      this.#i++;
    }
  }
}

/**
 * Whether JSON text (already known to parse) nests deeper than MAX_JSON_DEPTH. One pass over the
 * characters outside strings; text shorter than the limit cannot, and is not scanned.
 */
export function exceedsJsonDepth(text: string): boolean {
  if (text.length <= MAX_JSON_DEPTH) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip the string, escapes included.
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_JSON_DEPTH) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHex(c: number): boolean {
  return isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}

const ESCAPES: Record<number, string> = {
  0x07: '\\a',
  0x08: '\\b',
  0x0c: '\\f',
  0x0a: '\\n',
  0x0d: '\\r',
  0x09: '\\t',
  0x0b: '\\v',
  0x5c: '\\\\',
};

/** A byte the way Go quotes it in scanner errors: `'x'`, `'\n'`, `'\x00'`, `'Ã'`. */
export function quoteByte(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return `'"'`;
  const escaped = ESCAPES[c];
  if (escaped) return `'${escaped}'`;
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, '0')}'`;
  // Go turns the byte into the rune U+00xx; the C1 controls, NBSP and soft hyphen are not printable.
  if ((c >= 0x80 && c <= 0xa0) || c === 0xad) return `'\\u00${c.toString(16).padStart(2, '0')}'`;
  return `'${String.fromCharCode(c)}'`;
}
