/**
 * RFC 3339 text ⇄ Unix seconds and nanoseconds, for `metav1.Time` (second precision,
 * `2024-01-02T03:04:05Z`) and `metav1.MicroTime` (`2024-01-02T03:04:05.123456Z`). Output is
 * always UTC with `Z`, as the real server writes it.
 */

export interface Timestamp {
  readonly seconds: number;
  readonly nanos: number;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** Parses RFC 3339 (any fraction up to nanoseconds, any offset); undefined when malformed. */
export function parseRfc3339(text: string): Timestamp | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, , offSign, offH, offM] = m;
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return undefined;
  const year = Number(y);
  let ms = Date.UTC(year, month - 1, day, hour, minute, second);
  if (year < 100) {
    // Date.UTC reads years 0–99 as 1900–1999.
    const date = new Date(ms);
    date.setUTCFullYear(year);
    ms = date.getTime();
  }
  if (new Date(ms).getUTCDate() !== day) return undefined; // Feb 30 and the like
  let seconds = ms / 1000;
  if (offSign) {
    const offset = (Number(offH) * 60 + Number(offM)) * 60;
    seconds += offSign === '+' ? -offset : offset;
  }
  const nanos = frac ? Number(frac.padEnd(9, '0')) : 0;
  return { seconds, nanos };
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/** Seconds since the epoch as `YYYY-MM-DDTHH:MM:SSZ` (UTC). */
export function formatRfc3339(seconds: number): string {
  const d = new Date(seconds * 1000);
  const year = d.getUTCFullYear();
  // toISOString is fast and exact for four-digit years; it writes others as ±YYYYYY.
  if (year >= 0 && year <= 9999) return `${d.toISOString().slice(0, 19)}Z`;
  return (
    `${pad(year, 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}` +
    `T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}Z`
  );
}

/** Seconds plus microseconds as `YYYY-MM-DDTHH:MM:SS.ffffffZ` (UTC, always six digits). */
export function formatRfc3339Micro(seconds: number, micros: number): string {
  const base = formatRfc3339(seconds);
  return `${base.slice(0, -1)}.${pad(micros, 6)}Z`;
}

/**
 * Normalizes a protobuf Timestamp the way Go's `time.Unix(sec, nsec)` does: nanos outside
 * [0, 1e9) carry into seconds.
 */
export function normalizeTimestamp(seconds: number, nanos: number): Timestamp {
  if (nanos >= 0 && nanos < 1e9) return { seconds, nanos };
  const carry = Math.floor(nanos / 1e9);
  return { seconds: seconds + carry, nanos: nanos - carry * 1e9 };
}
