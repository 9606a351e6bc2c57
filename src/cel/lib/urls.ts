/**
 * Kubernetes' URL library: url() (which must pass Go's ParseRequestURI, then keeps url.Parse's
 * reading), isURL and the getters. URLs compare by their parts, as upstream compares String().
 */
import { evalError } from '../errors.ts';
import { escapedPath, hostname, parseRequestURI, parseUrl, port, parseQuery, urlIdentity, UrlError, type GoUrl } from '../../api/go/url.ts';
import { actualSize, CelObject, type CelValue } from '../values.ts';
import { ceilCost, global, member, STRING_TRAVERSAL, type Overload } from './overload.ts';

export class CelUrl extends CelObject {
  readonly typeName = 'kubernetes.URL';
  constructor(readonly url: GoUrl) {
    super();
  }
  equals(other: CelValue): boolean | undefined {
    return other instanceof CelUrl ? urlIdentity(this.url) === urlIdentity(other.url) : undefined;
  }
}

function toUrl(s: string): CelUrl {
  try {
    parseRequestURI(s);
    return new CelUrl(parseUrl(s));
  } catch (e) {
    if (e instanceof UrlError) throw evalError(`URL parse error during conversion from string: ${e.message}`);
    throw e;
  }
}

function isUrl(s: string): boolean {
  try {
    parseRequestURI(s);
    return true;
  } catch {
    return false;
  }
}

const u = (v: CelValue | undefined) => (v as CelUrl).url;
const U = 'kubernetes.URL';

export const urlOverloads: readonly Overload[] = [
  global('string_to_url', 'url', ['string'], U, ([s]) => toUrl(s as string), { cost: (args) => ceilCost(actualSize(args[0]!), STRING_TRAVERSAL) }),
  global('is_url_string', 'isURL', ['string'], 'bool', ([s]) => isUrl(s as string)),
  member('url_get_scheme', 'getScheme', [U], 'string', ([x]) => u(x).scheme),
  member('url_get_host', 'getHost', [U], 'string', ([x]) => u(x).host),
  member('url_get_hostname', 'getHostname', [U], 'string', ([x]) => hostname(u(x))),
  member('url_get_port', 'getPort', [U], 'string', ([x]) => port(u(x))),
  member('url_get_escaped_path', 'getEscapedPath', [U], 'string', ([x]) => escapedPath(u(x))),
  member('url_get_query', 'getQuery', [U], 'map<string, list<string>>', ([x]) => parseQuery(u(x).rawQuery) as ReadonlyMap<string, CelValue>),
];
