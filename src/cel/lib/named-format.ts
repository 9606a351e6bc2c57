/**
 * Kubernetes' format library: the named formats (`format.dns1123Label()`, `format.named("uuid")`)
 * and `<format>.validate(s)`, which is optional.none() when s is valid and optional.of(errors)
 * otherwise, with apimachinery's and kube-openapi's messages.
 */
import { dns1035LabelErrors, dns1123LabelErrors, dns1123SubdomainErrors, labelValueErrors, qualifiedNameErrors } from '../../api/validation/names.ts';
import { parseRequestURI, UrlError } from '../../api/go/url.ts';
import { actualSize, CelObject, CelOptional, type CelValue } from '../values.ts';
import { ceilCost, global, member, REGEX_LENGTH, STRING_TRAVERSAL, type Overload } from './overload.ts';

export class CelNamedFormat extends CelObject {
  readonly typeName = 'kubernetes.NamedFormat';
  constructor(
    readonly name: string,
    readonly validate: (s: string) => string[],
    /** What upstream charges a validation as (the size of the regex it stands for). */
    readonly maxRegexSize: number,
  ) {
    super();
  }
  equals(other: CelValue): boolean | undefined {
    return other instanceof CelNamedFormat ? this.name === other.name : undefined;
  }
}

/** apimachinery's maskTrailingDash: a name that is only a prefix may end in '-'. */
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
}

const UUID_PATTERN = '(?i)(^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$)|(^[0-9a-f]{32}$)';
const UUID = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32})$/i;
const DATE_TIME_PATTERN = '^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$';
const DATE_TIME = new RegExp(DATE_TIME_PATTERN);
/** The URL library's size bound upstream uses for uri. */
const URL_LENGTH = 1103;
const BASE64_LENGTH = 84;

/** time.Parse("2006-01-02", s). */
function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  const days = [31, (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1]!;
  return d <= days;
}

/** kube-openapi's IsDateTime: a date, `t`, then a time matching its pattern within range. */
function isDateTime(s: string): boolean {
  if (s.length < 4) return false;
  const parts = s.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0]!)) return false;
  const m = DATE_TIME.exec(parts[1]!);
  return m !== null && m[1]! <= '23' && m[2]! <= '59' && m[3]! <= '59';
}

/** base64.StdEncoding.DecodeString succeeds: padded standard alphabet, nothing else. */
function isBase64(s: string): boolean {
  return s.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(s) && !/=[^=]/.test(s);
}

function uriErrors(s: string): string[] {
  try {
    parseRequestURI(s);
    return [];
  } catch (e) {
    if (e instanceof UrlError) return [e.message];
    throw e;
  }
}

export const NAMED_FORMATS: ReadonlyMap<string, CelNamedFormat> = new Map(
  (
    [
      ['dns1123Label', 'DNS1123Label', (s: string) => dns1123LabelErrors(s), 30],
      ['dns1123Subdomain', 'DNS1123Subdomain', (s: string) => dns1123SubdomainErrors(s), 60],
      ['dns1035Label', 'DNS1035Label', (s: string) => dns1035LabelErrors(s), 30],
      ['qualifiedName', 'QualifiedName', (s: string) => qualifiedNameErrors(s), 60],
      ['dns1123LabelPrefix', 'DNS1123LabelPrefix', (s: string) => dns1123LabelErrors(maskTrailingDash(s)), 30],
      ['dns1123SubdomainPrefix', 'DNS1123SubdomainPrefix', (s: string) => dns1123SubdomainErrors(maskTrailingDash(s)), 60],
      ['dns1035LabelPrefix', 'DNS1035LabelPrefix', (s: string) => dns1035LabelErrors(maskTrailingDash(s)), 30],
      ['labelValue', 'LabelValue', (s: string) => labelValueErrors(s), 40],
      ['uri', 'URI', uriErrors, URL_LENGTH],
      ['uuid', 'uuid', (s: string) => (UUID.test(s) ? [] : ['does not match the UUID format']), UUID_PATTERN.length],
      ['byte', 'byte', (s: string) => (isBase64(s) ? [] : ['invalid base64']), BASE64_LENGTH],
      ['date', 'date', (s: string) => (isDate(s) ? [] : ['invalid date']), DATE_TIME_PATTERN.length],
      ['datetime', 'datetime', (s: string) => (isDateTime(s) ? [] : ['invalid datetime']), DATE_TIME_PATTERN.length],
    ] as const
  ).map(([key, name, validate, size]) => [key, new CelNamedFormat(name, validate, size)]),
);

const F = 'kubernetes.NamedFormat';

function validate(f: CelNamedFormat, s: string): CelOptional {
  const errs = f.validate(s);
  return errs.length === 0 ? CelOptional.NONE : CelOptional.of(errs);
}

export const namedFormatOverloads: readonly Overload[] = [
  member('format-validate', 'validate', [F, 'string'], `optional<list<string>>`, ([f, s]) => validate(f as CelNamedFormat, s as string), {
    cost: ([f, s]) => ceilCost(1 + actualSize(s!), STRING_TRAVERSAL) * ceilCost((f as CelNamedFormat).maxRegexSize, REGEX_LENGTH),
  }),
  global('format-named', 'format.named', ['string'], `optional<${F}>`, ([n]) => {
    const f = NAMED_FORMATS.get(n as string);
    return f ? CelOptional.of(f) : CelOptional.NONE;
  }, { cost: () => 1 }),
  ...[...NAMED_FORMATS].map(([key, f]) => global(`format.${key}`, `format.${key}`, [], F, () => f)),
];
