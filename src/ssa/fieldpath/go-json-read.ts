/**
 * A reader that accepts, rejects and reports JSON exactly as json-iterator (the "compatible with the
 * standard library" configuration) does where upstream reads FieldsV1 and the JSON inside `k:`/`v:`
 * path elements. It is more lenient than JSON.parse in places (text after a value is not read, a key
 * may be `null`, a control character is allowed in a string after its first escape, `+1` is a number)
 * and stricter in others (nesting deeper than 10000), and its errors name the byte where they were
 * found with the text around it.
 *
 * json-iterator keeps reading after its first error and reports only that one; here the first error
 * is thrown (a JsonIterError), which comes to the same, the one place that clears an error (skipping a
 * number) catching it.
 *
 * Bytes are read in one piece for path elements; FieldsV1 comes through an io.Reader in 4096-byte
 * chunks, which shows in the error texts of bigger documents and in the fast paths that stop at the
 * end of a chunk, so that mode is kept too.
 */
import { goQuote } from '../../api/go/quote.ts';
import { goBytesText } from '../../api/go/strings.ts';
import type { JsonValue } from './path-element.ts';

export class JsonIterError extends Error {}

const MAX_DEPTH = 10000;
const READER_CHUNK = 4096;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

// Bytes that end a number on json-iterator's fast path (note: not \r).
function endsNumber(c: number): boolean {
  return c === 0x2c || c === 0x5d || c === 0x7d || c === 0x20 || c === 0x09 || c === 0x0a;
}

// Bytes that readNumberAsString collects: + - . e E and digits.
function isNumberByte(c: number): boolean {
  return isDigit(c) || c === 0x2b || c === 0x2d || c === 0x2e || c === 0x65 || c === 0x45;
}

// The one-letter escapes after a backslash (`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`) and the bytes they stand for.
const SIMPLE_ESCAPES: ReadonlyMap<number, number> = new Map([
  [QUOTE, QUOTE],
  [BACKSLASH, BACKSLASH],
  [0x2f, 0x2f],
  [0x62, 0x08],
  [0x66, 0x0c],
  [0x6e, 0x0a],
  [0x72, 0x0d],
  [0x74, 0x09],
]);

const GO_FLOAT_SYNTAX = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

// How json-iterator prints one byte in a message (string([]byte{c})).
function byteText(c: number): string {
  return goBytesText(Uint8Array.of(c));
}

function setKey(obj: { [key: string]: JsonValue }, key: string, value: JsonValue): void {
  // A plain assignment to "__proto__" would replace the prototype instead of adding the key.
  if (key === '__proto__') Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

export class JsonIterator {
  private buf: Uint8Array;
  private head = 0;
  private tail = 0;
  private depth = 0;
  // json-iterator's Error == io.EOF: the input ran out, which is not yet an error.
  private eof = false;
  // The next chunk to load, in reader mode.
  private next = 0;

  private constructor(
    private readonly input: Uint8Array,
    private readonly chunked: boolean,
  ) {
    this.buf = chunked ? input.subarray(0, 0) : input;
    this.tail = chunked ? 0 : input.length;
  }

  /** Reads bytes held in memory (json-iterator's ParseBytes). */
  static ofBytes(input: Uint8Array): JsonIterator {
    return new JsonIterator(input, false);
  }

  /** Reads bytes as if through an io.Reader (json-iterator's Parse with a 4096-byte buffer). */
  static ofReader(input: Uint8Array): JsonIterator {
    return new JsonIterator(input, true);
  }

  /** json-iterator's ReportError: the message with the position and the text around it. */
  reportError(operation: string, message: string): never {
    const peekStart = Math.max(this.head - 10, 0);
    const peekEnd = Math.min(this.head + 10, this.tail);
    const contextStart = Math.max(this.head - 50, 0);
    const contextEnd = Math.min(this.head + 50, this.tail);
    const parsing = goBytesText(this.buf.subarray(peekStart, peekEnd));
    const context = goBytesText(this.buf.subarray(contextStart, contextEnd));
    throw new JsonIterError(
      `${operation}: ${message}, error found in #${this.head - peekStart} byte of ...|${parsing}|..., bigger context ...|${context}|...`,
    );
  }

  private loadMore(): boolean {
    if (!this.chunked || this.next >= this.input.length) {
      if (!this.chunked && !this.eof) this.head = this.tail;
      this.eof = true;
      return false;
    }
    this.buf = this.input.subarray(this.next, this.next + READER_CHUNK);
    this.next += this.buf.length;
    this.head = 0;
    this.tail = this.buf.length;
    return true;
  }

  /** The next byte that is not whitespace, consumed; 0 at the end of the input. */
  private nextToken(): number {
    for (;;) {
      for (let i = this.head; i < this.tail; i++) {
        const c = this.buf[i]!;
        if (isWhitespace(c)) continue;
        this.head = i + 1;
        return c;
      }
      if (!this.loadMore()) return 0;
    }
  }

  private unreadByte(): void {
    if (!this.eof) this.head--;
  }

  private readByte(): number {
    if (this.head === this.tail) {
      if (this.loadMore()) return this.buf[this.head++]!;
      return 0;
    }
    return this.buf[this.head++]!;
  }

  private incrementDepth(): void {
    if (++this.depth > MAX_DEPTH) this.reportError('incrementDepth', 'exceeded max depth');
  }

  private skipBytes(operation: string, expected: string): void {
    for (let i = 0; i < expected.length; i++) {
      if (this.readByte() !== expected.charCodeAt(i)) this.reportError(operation, `expect ${expected}`);
    }
  }

  /** json-iterator's ReadString; `null` reads as "". */
  private readString(): string {
    const c = this.nextToken();
    if (c === QUOTE) {
      for (let i = this.head; i < this.tail; i++) {
        const b = this.buf[i]!;
        if (b === QUOTE) {
          const s = Buffer.from(this.buf.buffer, this.buf.byteOffset + this.head, i - this.head).toString('utf8');
          this.head = i + 1;
          return s;
        }
        if (b === BACKSLASH) break;
        if (b < 0x20) this.reportError('ReadString', `invalid control character found: ${b}`);
      }
      return this.readStringSlowPath();
    }
    if (c === 0x6e) {
      this.skipBytes('skipThreeBytes', 'ull');
      return '';
    }
    return this.reportError('ReadString', `expects " or n, but found ${byteText(c)}`);
  }

  private readStringSlowPath(): string {
    const out: number[] = [];
    while (!this.eof) {
      const c = this.readByte();
      if (c === QUOTE) return Buffer.from(out).toString('utf8');
      if (c === BACKSLASH) this.readEscapedChar(this.readByte(), out);
      else out.push(c);
    }
    return this.reportError('readStringSlowPath', 'unexpected end of input');
  }

  private readEscapedChar(c: number, out: number[]): void {
    if (c !== 0x75) {
      const byte = SIMPLE_ESCAPES.get(c);
      if (byte === undefined) this.reportError('readEscapedChar', 'invalid escape char after \\');
      out.push(byte);
      return;
    }
    const r = this.readU4();
    if (r < 0xd800 || r > 0xdfff) return appendRune(out, r);
    // A surrogate: combine it with a following \u escape when the two make a pair.
    let c2 = this.readByte();
    if (this.eof) return;
    if (c2 !== BACKSLASH) {
      this.unreadByte();
      return appendRune(out, r);
    }
    c2 = this.readByte();
    if (this.eof) return;
    if (c2 !== 0x75) {
      appendRune(out, r);
      return this.readEscapedChar(c2, out);
    }
    const r2 = this.readU4();
    if (this.eof) return;
    if (r < 0xdc00 && r2 >= 0xdc00 && r2 <= 0xdfff) return appendRune(out, 0x10000 + ((r - 0xd800) << 10) + (r2 - 0xdc00));
    appendRune(out, r);
    appendRune(out, r2);
  }

  private readU4(): number {
    let r = 0;
    for (let i = 0; i < 4; i++) {
      const c = this.readByte();
      if (this.eof) return r;
      const d = isDigit(c) ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1;
      if (d < 0) this.reportError('readU4', `expects 0~9 or a~f, but found ${byteText(c)}`);
      r = r * 16 + d;
    }
    return r;
  }

  private readBool(): boolean {
    const c = this.nextToken();
    if (c === 0x74) {
      this.skipBytes('skipThreeBytes', 'rue');
      return true;
    }
    if (c === 0x66) {
      this.skipBytes('skipFourBytes', 'alse');
      return false;
    }
    return this.reportError('ReadBool', `expect t or f, but found ${byteText(c)}`);
  }

  /** ReadFloat64 (or ReadFloat32, which Skip uses for numbers that start with 0). */
  private readFloat(bits: 32 | 64): number {
    const c = this.nextToken();
    if (c === 0x2d) return -this.readPositiveFloat(bits);
    this.unreadByte();
    return this.readPositiveFloat(bits);
  }

  // The fast path's own errors; whatever it accepts, the slow path reads to the same value and end.
  private readPositiveFloat(bits: 32 | 64): number {
    const operation = `readFloat${bits}`;
    if (this.head < this.tail) {
      const c = this.buf[this.head]!;
      if (endsNumber(c)) this.reportError(operation, 'empty number');
      if (c === 0x2e) this.reportError(operation, 'leading dot is invalid');
      if (c === 0x30 && this.head + 1 < this.tail && isDigit(this.buf[this.head + 1]!)) {
        this.reportError(operation, 'leading zero is invalid');
      }
    }
    const text = this.readNumberAsString();
    const problem = floatProblem(text);
    if (problem) this.reportError(`readFloat${bits}SlowPath`, problem);
    return parseGoFloat(text, bits);
  }

  private readNumberAsString(): string {
    let text = '';
    outer: for (;;) {
      for (let i = this.head; i < this.tail; i++) {
        const c = this.buf[i]!;
        if (!isNumberByte(c)) {
          this.head = i;
          break outer;
        }
        text += String.fromCharCode(c);
      }
      if (!this.loadMore()) break;
    }
    if (text === '') this.reportError('readNumberAsString', 'invalid number');
    return text;
  }

  /** json-iterator's Read: any JSON value as the plain value Go's interface{} would hold. */
  read(): JsonValue {
    const c = this.nextToken();
    this.unreadByte();
    if (c === QUOTE) return this.readString();
    if (c === 0x2d || isDigit(c)) return this.readFloat(64);
    if (c === 0x74 || c === 0x66) return this.readBool();
    if (c === 0x6e) {
      this.skipBytes('skipFourBytes', 'null');
      return null;
    }
    if (c === 0x5b) {
      const list: JsonValue[] = [];
      this.readArrayCB(() => list.push(this.read()));
      return list;
    }
    if (c === 0x7b) {
      const map: { [key: string]: JsonValue } = {};
      this.readMapCB((key) => setKey(map, key, this.read()));
      return map;
    }
    // json-iterator names the value type it found, which for anything else is InvalidValue, 0.
    return this.reportError('Read', 'unexpected value type: 0');
  }

  /** ReadArrayCB: calls back for each item, which the callback must read; accepts null. */
  readArrayCB(item: () => void): void {
    let c = this.nextToken();
    if (c === 0x5b) {
      this.incrementDepth();
      c = this.nextToken();
      if (c !== 0x5d) {
        this.unreadByte();
        do {
          item();
          c = this.nextToken();
        } while (c === 0x2c);
        if (c !== 0x5d) this.reportError('ReadArrayCB', `expect ] in the end, but found ${byteText(c)}`);
      }
      this.depth--;
      return;
    }
    if (c === 0x6e) return this.skipBytes('skipThreeBytes', 'ull');
    this.reportError('ReadArrayCB', `expect [ or n, but found ${byteText(c)}`);
  }

  /**
   * ReadMapCB: calls back with each key, the iterator just past the colon, for the callback to read
   * the value; accepts null. Its missing-colon message names the byte before the key, as upstream's.
   */
  readMapCB(entry: (key: string) => void): void {
    this.readObject('ReadMapCB', 'ReadMapCB', entry, true);
  }

  /** ReadObjectCB: as readMapCB, but reports a missing colon as ReadObject, naming what it found. */
  readObjectCB(entry: (key: string) => void): void {
    this.readObject('ReadObject', 'ReadObjectCB', entry, false);
  }

  private readObject(colonOperation: string, operation: string, entry: (key: string) => void, staleColonByte: boolean): void {
    let c = this.nextToken();
    if (c === 0x7b) {
      this.incrementDepth();
      c = this.nextToken();
      if (c === QUOTE) {
        this.unreadByte();
        // c is the byte before each key: the `"` of the first one, then the comma.
        do {
          const key = this.readString();
          const colon = this.nextToken();
          if (colon !== 0x3a) this.reportError(colonOperation, `expect : after object field, but found ${byteText(staleColonByte ? c : colon)}`);
          entry(key);
          c = this.nextToken();
        } while (c === 0x2c);
        if (c !== 0x7d) this.reportError(operation, 'object not ended with }');
        this.depth--;
        return;
      }
      if (c === 0x7d) {
        this.depth--;
        return;
      }
      this.reportError(operation, `expect " after {, but found ${byteText(c)}`);
    }
    if (c === 0x6e) return this.skipBytes('skipThreeBytes', 'ull');
    this.reportError(operation, `expect { or n, but found ${byteText(c)}`);
  }

  /** json-iterator's Skip (the strict variant, the one built by default). */
  skip(): void {
    const c = this.nextToken();
    switch (c) {
      case QUOTE:
        if (!this.trySkipString()) {
          this.unreadByte();
          this.readString();
        }
        return;
      case 0x6e:
        return this.skipBytes('skipThreeBytes', 'ull');
      case 0x74:
        return this.skipBytes('skipThreeBytes', 'rue');
      case 0x66:
        return this.skipBytes('skipFourBytes', 'alse');
      case 0x30:
        this.unreadByte();
        this.readFloat(32);
        return;
      case 0x5b:
        this.unreadByte();
        return this.readArrayCB(() => this.skip());
      case 0x7b:
        this.unreadByte();
        return this.readObjectCB(() => this.skip());
      default:
        if (c === 0x2d || isDigit(c)) return this.skipNumber();
        this.reportError('Skip', `do not know how to skip: ${c}`);
    }
  }

  private trySkipString(): boolean {
    for (let i = this.head; i < this.tail; i++) {
      const c = this.buf[i]!;
      if (c === QUOTE) {
        this.head = i + 1;
        return true;
      }
      if (c === BACKSLASH) return false;
      if (c < 0x20) this.reportError('trySkipString', `invalid control character found: ${c}`);
    }
    return false;
  }

  private skipNumber(): void {
    if (this.trySkipNumber()) return;
    this.unreadByte();
    try {
      this.readFloat(64);
    } catch (err) {
      if (!(err instanceof JsonIterError)) throw err;
      // json-iterator clears the error and reads the rest as a big.Float.
      this.eof = false;
      const text = this.readNumberAsString();
      const problem = bigFloatProblem(text);
      if (problem) throw new JsonIterError(problem);
    }
  }

  // Checks the number in the buffer without parsing it: true when it is known to be fine.
  private trySkipNumber(): boolean {
    let dotFound = false;
    for (let i = this.head; i < this.tail; i++) {
      const c = this.buf[i]!;
      if (isDigit(c)) continue;
      if (c === 0x2e) {
        if (dotFound) this.reportError('validateNumber', 'more than one dot found in number');
        if (i + 1 === this.tail) return false;
        if (!isDigit(this.buf[i + 1]!)) this.reportError('validateNumber', 'missing digit after dot');
        dotFound = true;
        continue;
      }
      if (endsNumber(c) || c === 0x0d) {
        if (this.head === i) return false;
        this.head = i;
        return true;
      }
      return false;
    }
    return false;
  }
}

function appendRune(out: number[], r: number): void {
  const code = r >= 0xd800 && r <= 0xdfff ? 0xfffd : r;
  for (const b of Buffer.from(String.fromCodePoint(code), 'utf8')) out.push(b);
}

// json-iterator's validateFloat, which catches what strconv.ParseFloat would let through.
function floatProblem(text: string): string | undefined {
  if (text[0] === '-') return '-- is not valid';
  const dot = text.indexOf('.');
  if (dot === -1) return undefined;
  if (dot === text.length - 1) return 'dot can not be last character';
  return isDigit(text.charCodeAt(dot + 1)) ? undefined : 'missing digit after dot';
}

// strconv.ParseFloat on the characters readNumberAsString collected.
function parseGoFloat(text: string, bits: 32 | 64): number {
  if (!GO_FLOAT_SYNTAX.test(text)) throw new JsonIterError(`strconv.ParseFloat: parsing ${goQuote(text)}: invalid syntax`);
  const value = bits === 32 ? Math.fround(Number(text)) : Number(text);
  if (!Number.isFinite(value)) throw new JsonIterError(`strconv.ParseFloat: parsing ${goQuote(text)}: value out of range`);
  return value;
}

// big.Float's Parse, which has no range limit: only the syntax can be wrong.
function bigFloatProblem(text: string): string | undefined {
  const mantissa = /^[+-]?(?:\d+\.?\d*|\.\d+)/.exec(text);
  if (!mantissa) return 'number has no digits';
  let rest = text.slice(mantissa[0].length);
  if (rest[0] === 'e' || rest[0] === 'E') {
    const exponent = /^[eE][+-]?\d+/.exec(rest);
    if (!exponent) return 'number has no digits';
    rest = rest.slice(exponent[0].length);
  }
  return rest === '' ? undefined : `expected end of string, found '${rest[0]}'`;
}
