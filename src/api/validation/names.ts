/**
 * The name and label syntax of the API (upstream's k8s.io/apimachinery/pkg/util/validation), with
 * the texts the real server prints. One library for metadata validation, kinds and selectors, so the
 * same key is judged the same way everywhere. Lengths are counted in UTF-8 bytes, as Go's len does.
 * Each function returns the problems with a value (empty when it is valid).
 */

const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QUALIFIED_NAME_RE = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const QUALIFIED_NAME_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const QUALIFIED_NAME_MAX = 63;

const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_MAX = 63;

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_LABEL_RE = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const DNS1123_LABEL_MSG = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_LABEL_MAX = 63;

const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_MAX = 253;

const CONFIG_KEY_FMT = '[-._a-zA-Z0-9]+';
const CONFIG_KEY_RE = new RegExp(`^${CONFIG_KEY_FMT}$`);
const CONFIG_KEY_MSG = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";

/** `msg (e.g. 'a',  or 'b', regex used for validation is '…')`: the double space is the server's. */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  const shown = examples.map((e) => `'${e}', `).join(' or ');
  return `${msg} (e.g. ${shown}regex used for validation is '${fmt}')`;
}

function maxLenError(n: number): string {
  return `must be no more than ${n} characters`;
}

const EMPTY_ERROR = 'must be non-empty';

function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

export function dns1123LabelErrors(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX) errs.push(maxLenError(DNS1123_LABEL_MAX));
  if (!DNS1123_LABEL_RE.test(value)) errs.push(regexError(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, 'my-name', '123-abc'));
  return errs;
}

export function dns1123SubdomainErrors(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX));
  if (!DNS1123_SUBDOMAIN_RE.test(value)) errs.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  return errs;
}

/** Names that must be usable as a URL path segment. */
export function pathSegmentNameErrors(value: string): string[] {
  if (value === '.' || value === '..') return [`may not be '${value}'`];
  return ['/', '%'].filter((bad) => value.includes(bad)).map((bad) => `may not contain '${bad}'`);
}

/**
 * A qualified name (label and annotation keys, finalizers): an optional DNS subdomain prefix and
 * '/', then a name part of at most 63 bytes.
 *
 * @example qualifiedNameErrors('example.com/tier') // []
 */
export function qualifiedNameErrors(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push(`prefix part ${EMPTY_ERROR}`);
    else for (const e of dns1123SubdomainErrors(prefix)) errs.push(`prefix part ${e}`);
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push(`name part ${EMPTY_ERROR}`);
  else if (byteLength(name) > QUALIFIED_NAME_MAX) errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX)}`);
  if (!QUALIFIED_NAME_RE.test(name)) errs.push(`name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

/** A label value (empty is valid). */
export function labelValueErrors(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LABEL_VALUE_MAX) errs.push(maxLenError(LABEL_VALUE_MAX));
  if (!LABEL_VALUE_RE.test(value)) errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

/** A key of ConfigMap and Secret data. */
export function configMapKeyErrors(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX));
  if (!CONFIG_KEY_RE.test(value)) errs.push(regexError(CONFIG_KEY_MSG, CONFIG_KEY_FMT, 'key.name', 'KEY_NAME', 'key-name'));
  if (value === '.') errs.push("must not be '.'");
  else if (value === '..') errs.push("must not be '..'");
  else if (value.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

/** Finalizer names Kubernetes defines itself, which need no domain. */
const STANDARD_FINALIZERS = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

/**
 * A finalizer name of a built-in kind: a qualified name, and one without a domain must be one of the
 * standard finalizers.
 */
export function finalizerNameErrors(value: string): string[] {
  const errs = qualifiedNameErrors(value);
  if (!value.includes('/') && !STANDARD_FINALIZERS.has(value)) errs.push('name is neither a standard finalizer name nor is it fully qualified');
  return errs;
}

/** IsValidPortName: an IANA service name (`http`, `metrics-2`). */
export function portNameErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 15) errs.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(value)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(value)) errs.push('must contain at least one letter (a-z)');
  if (value.includes('--')) errs.push('must not contain consecutive hyphens');
  if (value.length > 0 && (value.startsWith('-') || value.endsWith('-'))) errs.push('must not begin or end with a hyphen');
  return errs;
}

/** IsValidPortNum: 1 to 65535. */
export function portNumberErrors(value: number): string[] {
  return value >= 1 && value <= 65535 ? [] : ['must be between 1 and 65535, inclusive'];
}

/** IsValidPercent: digits and a final `%` (`5%`). */
export function percentErrors(value: string): string[] {
  return /^[0-9]+%$/.test(value) ? [] : [regexError("a valid percent string must be a numeric string followed by an ending '%'", '[0-9]+%', '1%', '93%')];
}

const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_LABEL_RE = new RegExp(`^${DNS1035_LABEL_FMT}$`);
const DNS1035_LABEL_MSG = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";

/** IsDNS1035Label: a DNS label that starts with a letter (API versions, service names). */
export function dns1035LabelErrors(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX) errs.push(maxLenError(DNS1123_LABEL_MAX));
  if (!DNS1035_LABEL_RE.test(value)) errs.push(regexError(DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, 'my-name', 'abc-123'));
  return errs;
}
