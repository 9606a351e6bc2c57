/**
 * Describes why a byte sequence is not JSON, in the words of Go's encoding/json (which is what
 * clients of the real server see): `invalid character 'x' looking for beginning of value`,
 * `unexpected end of JSON input` and so on.
 *
 * Only the error path uses this scanner: valid input is parsed with `JSON.parse`.
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

  #value(): void {
    this.#space();
    const c = this.#peek();
    if (c === 0x7b) return this.#object();
    if (c === 0x5b) return this.#array();
    if (c === 0x22) return this.#string();
    if (c === 0x2d || isDigit(c)) return this.#number();
    if (c === 0x74) return this.#literal('true');
    if (c === 0x66) return this.#literal('false');
    if (c === 0x6e) return this.#literal('null');
    this.#fail('looking for beginning of value');
  }

  #object(): void {
    this.#i++;
    this.#space();
    if (this.#peek() === 0x7d) {
      this.#i++;
      return;
    }
    for (;;) {
      if (this.#peek() !== 0x22) this.#fail('looking for beginning of object key string');
      this.#string();
      this.#space();
      if (this.#peek() !== 0x3a) this.#fail('after object key');
      this.#i++;
      this.#value();
      this.#space();
      const c = this.#peek();
      if (c === 0x7d) {
        this.#i++;
        return;
      }
      if (c !== 0x2c) this.#fail('after object key:value pair');
      this.#i++;
      this.#space();
    }
  }

  #array(): void {
    this.#i++;
    this.#space();
    if (this.#peek() === 0x5d) {
      this.#i++;
      return;
    }
    for (;;) {
      this.#value();
      this.#space();
      const c = this.#peek();
      if (c === 0x5d) {
        this.#i++;
        return;
      }
      if (c !== 0x2c) this.#fail('after array element');
      this.#i++;
    }
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
