/**
 * Whether a field selector holds `field=value` (or `field==value`) among its terms, as upstream's
 * authorizers read attrs.GetFieldSelector(): a selector that does not parse holds nothing.
 */
const OPERATORS = ['!=', '==', '='] as const;

/** Splits on commas not escaped by a backslash. */
function terms(selector: string): string[] | undefined {
  const out: string[] = [];
  let current = '';
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i]!;
    if (c === '\\') {
      if (i + 1 >= selector.length) return undefined;
      current += c + selector[++i];
    } else if (c === ',') {
      out.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  out.push(current);
  return out;
}

/** `\,` `\=` `\\` in a value; any other escape is an error. */
function unescape(value: string): string | undefined {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (c === '\\') {
      const next = value[++i];
      if (next !== ',' && next !== '=' && next !== '\\') return undefined;
      out += next;
    } else if (c === ',' || c === '=') {
      return undefined;
    } else {
      out += c;
    }
  }
  return out;
}

/** The first operator in the term (the field part has no escapes). */
function splitTerm(term: string): { at: number; op: (typeof OPERATORS)[number] } | undefined {
  for (let at = 0; at < term.length; at++) {
    const op = OPERATORS.find((o) => term.startsWith(o, at));
    if (op) return { at, op };
  }
  return undefined;
}

export function fieldSelectorRequires(selector: string | undefined, field: string, value: string): boolean {
  if (!selector) return false;
  const parts = terms(selector);
  if (!parts) return false;
  let found = false;
  for (const part of parts) {
    if (part === '') continue;
    const split = splitTerm(part);
    if (!split) return false;
    const { at, op } = split;
    const rhs = unescape(part.slice(at + op.length));
    if (rhs === undefined) return false;
    if (op !== '!=' && part.slice(0, at) === field && rhs === value) found = true;
  }
  return found;
}
