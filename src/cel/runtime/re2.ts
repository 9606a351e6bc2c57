/**
 * Go's regexp for CEL: RE2 syntax and semantics (leftmost-first, `\s` `\d` `\w` `\b` ASCII-only,
 * `.` not matching `\n` unless `(?s)`, runes not UTF-16 units) with matching in time linear in
 * the input, so no pattern can stall the event loop the way `(a+)+$` stalls a backtracking
 * engine. The engine is re2js, a port of RE2/J, whose parser is Go's and reports Go's errors;
 * ./re2-go-syntax.ts settles the few places where it parses differently from Go 1.24.
 */
import { RE2JS, RE2JSSyntaxException } from 're2js';
import { goParseErrorMessage, re2jsPattern } from './re2-go-syntax.ts';

export class RegexSyntaxError extends Error {}

/** A compiled pattern with Go's MatchString, FindString and FindAllString. */
export class GoRegexp {
  constructor(private readonly re: RE2JS) {}

  /** regexp.MatchString: whether the pattern matches anywhere in s. */
  test(s: string): boolean {
    return this.re.test(s);
  }

  /** regexp.FindString: the leftmost-first match, or undefined when there is none. */
  find(s: string): string | undefined {
    const m = this.re.matcher(s);
    return m.find() ? s.slice(m.start(), m.end()) : undefined;
  }

  /**
   * regexp.FindAllString(s, n): successive non-overlapping matches, at most n of them (all when
   * n < 0). After an empty match the search moves on by one rune, and an empty match right where
   * the previous match ended is skipped.
   */
  findAll(s: string, n: number): string[] {
    const out: string[] = [];
    const m = this.re.matcher(s);
    let prevEnd = -1;
    let pos = 0;
    while ((n < 0 || out.length < n) && pos <= s.length) {
      if (!m.find(pos)) break;
      const start = m.start();
      const end = m.end();
      let accept = true;
      if (end === pos) {
        if (start === prevEnd) accept = false;
        const cp = s.codePointAt(pos);
        pos += cp === undefined ? 1 : cp > 0xffff ? 2 : 1;
      } else {
        pos = end;
      }
      prevEnd = end;
      if (accept) out.push(s.slice(start, end));
    }
    return out;
  }
}

const cache = new Map<string, GoRegexp | RegexSyntaxError>();

/** The pattern compiled (cached), or throws Go's parse error. */
export function compileRe2(pattern: string): GoRegexp {
  let r = cache.get(pattern);
  if (r === undefined) {
    r = compile(pattern);
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

function compile(pattern: string): GoRegexp | RegexSyntaxError {
  const adjusted = re2jsPattern(pattern);
  let re: RE2JS;
  try {
    re = RE2JS.compile(adjusted.source);
  } catch (e) {
    if (e instanceof RE2JSSyntaxException) return new RegexSyntaxError(goParseErrorMessage(pattern, adjusted, e.error, e.input));
    return new RegexSyntaxError(`error parsing regexp: ${(e as Error).message}: \`${pattern}\``);
  }
  preferDfaForTests(re);
  return new GoRegexp(re);
}

/**
 * re2js runs a capture-free test on its one-pass engine whenever the pattern is one-pass (as the
 * usual `^[a-z0-9-]+$` is), and there that is about five times slower than its DFA (~350 ns
 * against ~75 ns a short string). Without the one-pass program every call still has a
 * linear-time engine with the same semantics (DFA for tests; bounded backtracker or NFA for
 * find), so it is dropped. Should a later re2js rename the field, this does nothing.
 */
function preferDfaForTests(re: RE2JS): void {
  const engine = re.re2() as unknown as { onepass?: unknown };
  if (engine && 'onepass' in engine) engine.onepass = null;
}
