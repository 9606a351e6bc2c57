/**
 * Label key and value syntax, with the error texts the real server prints
 * (`name part must consist of …`). Selectors validate with these; metadata
 * validation can reuse them.
 */

const NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const NAME_RE = new RegExp(`^${NAME_FMT}$`);
const NAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const NAME_MAX = 63;

const VALUE_FMT = `(${NAME_FMT})?`;
const VALUE_RE = new RegExp(`^${VALUE_FMT}$`);
const VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const VALUE_MAX = 63;

const DNS_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS_SUBDOMAIN_FMT = `${DNS_LABEL_FMT}(\\.${DNS_LABEL_FMT})*`;
const DNS_SUBDOMAIN_RE = new RegExp(`^${DNS_SUBDOMAIN_FMT}$`);
const DNS_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS_SUBDOMAIN_MAX = 253;

/** `msg (e.g. 'a',  or 'b', regex used for validation is '…')`: the double space is the server's. */
function regexError(msg: string, fmt: string, ...examples: string[]): string {
  const shown = examples.map((e) => `'${e}', `).join(' or ');
  return `${msg} (e.g. ${shown}regex used for validation is '${fmt}')`;
}

function maxLenError(n: number): string {
  return `must be no more than ${n} characters`;
}

/** Lengths are counted in UTF-8 bytes, as the server counts them. */
function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** Problems with a DNS-1123 subdomain (a label key prefix); empty when valid. */
export function dnsSubdomainErrors(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS_SUBDOMAIN_MAX) errs.push(maxLenError(DNS_SUBDOMAIN_MAX));
  if (!DNS_SUBDOMAIN_RE.test(value)) errs.push(regexError(DNS_SUBDOMAIN_MSG, DNS_SUBDOMAIN_FMT, 'example.com'));
  return errs;
}

/**
 * Problems with a label key (a "qualified name": optional `prefix/` then a name); empty when valid.
 *
 * @example labelKeyErrors('example.com/tier') // []
 */
export function labelKeyErrors(key: string): string[] {
  const errs: string[] = [];
  const parts = key.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else for (const e of dnsSubdomainErrors(prefix)) errs.push(`prefix part ${e}`);
  } else {
    return [
      `a qualified name ${regexError(NAME_MSG, NAME_FMT, 'MyName', 'my.name', '123-abc')}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (byteLength(name) > NAME_MAX) errs.push(`name part ${maxLenError(NAME_MAX)}`);
  if (!NAME_RE.test(name)) errs.push(`name part ${regexError(NAME_MSG, NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

/** Problems with a label value (empty is valid); empty when valid. */
export function labelValueErrors(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > VALUE_MAX) errs.push(maxLenError(VALUE_MAX));
  if (!VALUE_RE.test(value)) errs.push(regexError(VALUE_MSG, VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

/** One field error line: `path: Invalid value: "v": detail`. */
export function invalidValueText(path: string, shownValue: string, detail: string): string {
  return `${path}: Invalid value: ${shownValue}: ${detail}`;
}

/** Joins several errors the way an aggregate prints them: one alone, several as `[a, b]` without repeats. */
export function aggregateText(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}
