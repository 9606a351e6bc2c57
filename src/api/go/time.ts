/**
 * Go's time.Parse for the two layouts the API's time types read: metav1.Time (RFC 3339) and
 * metav1.MicroTime (RFC 3339 with exactly six fractional digits). Only the verdict matters here:
 * undefined for a value Go accepts, else Go's error text, which is what the API answers with
 * (`parsing time "notatime" as "2006-01-02T15:04:05Z07:00": cannot parse "notatime" as "2006"`).
 */

export const RFC3339 = '2006-01-02T15:04:05Z07:00';
export const RFC3339_MICRO = '2006-01-02T15:04:05.000000Z07:00';

type Chunk =
  | { readonly kind: 'literal'; readonly text: string }
  | { readonly kind: 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second' | 'micros' | 'zone'; readonly text: string };

const CHUNKS: Readonly<Record<string, readonly Chunk[]>> = {
  [RFC3339]: chunks(false),
  [RFC3339_MICRO]: chunks(true),
};

function chunks(micro: boolean): Chunk[] {
  return [
    { kind: 'year', text: '2006' }, { kind: 'literal', text: '-' }, { kind: 'month', text: '01' }, { kind: 'literal', text: '-' },
    { kind: 'day', text: '02' }, { kind: 'literal', text: 'T' }, { kind: 'hour', text: '15' }, { kind: 'literal', text: ':' },
    { kind: 'minute', text: '04' }, { kind: 'literal', text: ':' }, { kind: 'second', text: '05' },
    ...(micro ? [{ kind: 'micros', text: '.000000' } as const] : []),
    { kind: 'zone', text: 'Z07:00' },
  ];
}

const isDigit = (s: string, i: number) => i < s.length && s.charCodeAt(i) >= 0x30 && s.charCodeAt(i) <= 0x39;

/** Go's time-package quote: ASCII as it is (`"` and `\` escaped), every other byte as `\xNN`. */
function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c >= 0x80 || c < 0x20) {
      for (const b of Buffer.from(ch, 'utf8')) out += `\\x${b.toString(16).padStart(2, '0')}`;
    } else {
      out += c === 0x22 || c === 0x5c ? `\\${ch}` : ch;
    }
  }
  return `${out}"`;
}

/** Go's getnum: one or two digits (exactly two when fixed). */
function getnum(s: string, fixed: boolean): [number, string] | undefined {
  if (!isDigit(s, 0)) return undefined;
  if (!isDigit(s, 1)) return fixed ? undefined : [s.charCodeAt(0) - 0x30, s.slice(1)];
  return [(s.charCodeAt(0) - 0x30) * 10 + (s.charCodeAt(1) - 0x30), s.slice(2)];
}

function daysIn(month: number, year: number): number {
  if (month === 2) return (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)) ? 29 : 28;
  return [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
}

/**
 * The form the server itself writes (UTC, `Z`, and six fraction digits for MicroTime): checked
 * character by character with the ranges, since nearly every time read is one of these (a custom
 * resource list reads several per item). Anything else takes Go's parse below, which also words the
 * errors.
 */
function canonicalAndValid(value: string, layout: string): boolean {
  const micro = layout === RFC3339_MICRO;
  if (value.length !== (micro ? 27 : 20) || value.charCodeAt(value.length - 1) !== 0x5a /* Z */) return false;
  if (value[4] !== '-' || value[7] !== '-' || value[10] !== 'T' || value[13] !== ':' || value[16] !== ':') return false;
  const two = (i: number) => (isDigit(value, i) && isDigit(value, i + 1) ? (value.charCodeAt(i) - 0x30) * 10 + (value.charCodeAt(i + 1) - 0x30) : -1);
  const century = two(0);
  const yy = two(2);
  const month = two(5);
  const day = two(8);
  const hour = two(11);
  const minute = two(14);
  const second = two(17);
  if (century < 0 || yy < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return false;
  if (micro && (value[19] !== '.' || ![20, 21, 22, 23, 24, 25].every((i) => isDigit(value, i)))) return false;
  return day <= daysIn(month, century * 100 + yy);
}

/** Whether `value` is a valid time in the form the server writes metav1.Time (`2006-01-02T15:04:05Z`). */
export function isCanonicalUtcTime(value: string): boolean {
  return canonicalAndValid(value, RFC3339);
}

/** Go's error for `value` parsed with `layout` (RFC3339 or RFC3339_MICRO), or undefined when it parses. */
export function goTimeParseError(value: string, layout: typeof RFC3339 | typeof RFC3339_MICRO): string | undefined {
  if (canonicalAndValid(value, layout)) return undefined;
  const cannot = (rest: string, elem: string) => `parsing time ${quote(value)} as ${quote(layout)}: cannot parse ${quote(rest)} as ${quote(elem)}`;
  const outOfRange = (what: string) => `parsing time ${quote(value)}: ${what} out of range`;
  const list = CHUNKS[layout]!;
  let rest = value;
  let year = 0;
  let month = 0;
  let day = 0;
  for (let k = 0; k < list.length; k++) {
    const chunk = list[k]!;
    const hold = rest;
    switch (chunk.kind) {
      case 'literal':
        if (!rest.startsWith(chunk.text)) return cannot(rest, chunk.text);
        rest = rest.slice(chunk.text.length);
        break;
      case 'year':
        if (rest.length < 4 || ![0, 1, 2, 3].every((i) => isDigit(rest, i))) return cannot(hold, chunk.text);
        year = Number(rest.slice(0, 4));
        rest = rest.slice(4);
        break;
      case 'month':
      case 'day':
      case 'hour':
      case 'minute':
      case 'second': {
        const got = getnum(rest, chunk.kind !== 'hour');
        if (!got) return cannot(hold, chunk.text);
        const [n, after] = got;
        rest = after;
        if (chunk.kind === 'month' && (n < 1 || n > 12)) return outOfRange('month');
        if (chunk.kind === 'hour' && n > 23) return outOfRange('hour');
        if (chunk.kind === 'minute' && n > 59) return outOfRange('minute');
        if (chunk.kind === 'second' && n > 59) return outOfRange('second');
        if (chunk.kind === 'month') month = n;
        if (chunk.kind === 'day') day = n;
        // A fraction the layout does not spell is still read (Go's special case), unless the layout has one.
        if (chunk.kind === 'second' && list[k + 1]?.kind !== 'micros' && rest.length >= 2 && (rest[0] === '.' || rest[0] === ',') && isDigit(rest, 1)) {
          let n2 = 2;
          while (isDigit(rest, n2)) n2++;
          rest = rest.slice(n2);
        }
        break;
      }
      case 'micros':
        if (rest.length < 7 || (rest[0] !== '.' && rest[0] !== ',') || ![1, 2, 3, 4, 5, 6].every((i) => isDigit(rest, i))) return cannot(hold, chunk.text);
        rest = rest.slice(7);
        break;
      case 'zone': {
        if (rest.startsWith('Z')) {
          rest = rest.slice(1);
          break;
        }
        if (rest.length < 6 || rest[3] !== ':') return cannot(hold, chunk.text);
        const sign = rest[0];
        const hh = getnum(rest.slice(1, 3), true);
        const mm = hh && getnum(rest.slice(4, 6), true);
        if (!hh || !mm) return cannot(hold, chunk.text);
        if (hh[0] > 24) return outOfRange('time zone offset hour');
        if (mm[0] > 60) return outOfRange('time zone offset minute');
        if (sign !== '+' && sign !== '-') return cannot(hold, chunk.text);
        rest = rest.slice(6);
        break;
      }
    }
  }
  if (rest.length > 0) return `parsing time ${quote(value)}: extra text: ${quote(rest)}`;
  if (day < 1 || day > daysIn(month, year)) return outOfRange('day');
  return undefined;
}
