import { badRequest, invalid, type FieldError } from '../api/errors.ts';
import { goQuote } from '../api/go/quote.ts';

/** The list and watch query parameters, parsed but not yet interpreted. */
export interface ListQuery {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly limit?: number;
  /** The limit as the client wrote it (error messages show it exactly). */
  readonly limitText?: string;
  readonly continue?: string;
  readonly resourceVersion?: string;
  readonly resourceVersionMatch?: string;
  readonly watch: boolean;
  readonly allowWatchBookmarks: boolean;
  readonly sendInitialEvents?: boolean;
  readonly timeoutSeconds?: number;
}

function parseBool(name: string, value: string | null): boolean | undefined {
  if (value === null) return undefined;
  // The real server's query decoder accepts these spellings; anything else is a 400.
  if (value === '' || value === 'true' || value === '1' || value === 'True' || value === 'TRUE') return true;
  if (value === 'false' || value === '0' || value === 'False' || value === 'FALSE') return false;
  throw badRequest(`invalid boolean value for ${name}: "${value}"`);
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * An integer query parameter as upstream's parameter codec reads it (Go's strconv.ParseInt, base 10,
 * 64 bits): an optional sign and decimal digits, any int64. Anything else is 400 with Go's own error
 * text, `strconv.ParseInt: parsing "abc": invalid syntax` or `…: value out of range`. An empty value
 * counts as absent. The result is a JavaScript number: beyond 2^53 it is rounded, which no count,
 * page size or timeout here can tell apart.
 */
export function parseQueryInt64(value: string | null): number | undefined {
  if (value === null || value === '') return undefined;
  const fail = (why: string) => badRequest(`strconv.ParseInt: parsing ${goQuote(value)}: ${why}`);
  if (!/^[+-]?\d+$/.test(value)) throw fail('invalid syntax');
  const n = BigInt(value);
  if (n < INT64_MIN || n > INT64_MAX) throw fail('value out of range');
  return Number(n);
}

/** A page size as storage takes it: beyond 2^53-1 every collection fits one page anyway. */
function pageSize(limit: number | undefined): number | undefined {
  return limit === undefined ? undefined : Math.min(limit, Number.MAX_SAFE_INTEGER);
}

export function parseListQuery(q: URLSearchParams): ListQuery {
  const opt = (k: string) => {
    const v = q.get(k);
    return v === null || v === '' ? undefined : v;
  };
  return {
    labelSelector: opt('labelSelector'),
    fieldSelector: opt('fieldSelector'),
    limit: pageSize(parseQueryInt64(q.get('limit'))),
    limitText: opt('limit'),
    continue: opt('continue'),
    resourceVersion: opt('resourceVersion'),
    resourceVersionMatch: opt('resourceVersionMatch'),
    watch: parseBool('watch', q.get('watch')) ?? false,
    allowWatchBookmarks: parseBool('allowWatchBookmarks', q.get('allowWatchBookmarks')) ?? false,
    sendInitialEvents: parseBool('sendInitialEvents', q.get('sendInitialEvents')),
    timeoutSeconds: parseQueryInt64(q.get('timeoutSeconds')),
  };
}

const EXACT = 'Exact';
const NOT_OLDER_THAN = 'NotOlderThan';

/** The ListOptions rules of the real server (422 Invalid on kind ListOptions.meta.k8s.io). */
export function validateListQuery(q: ListQuery): void {
  const errs: FieldError[] = [];
  const match = q.resourceVersionMatch;
  if (q.watch) {
    if (q.sendInitialEvents !== undefined && match !== NOT_OLDER_THAN) {
      errs.push({ type: 'FieldValueForbidden', field: 'resourceVersionMatch', detail: `sendInitialEvents requires setting resourceVersionMatch to ${NOT_OLDER_THAN}` });
    }
    if (match) {
      if (q.sendInitialEvents === undefined) {
        errs.push({ type: 'FieldValueForbidden', field: 'resourceVersionMatch', detail: 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided' });
      }
      if (match !== NOT_OLDER_THAN) {
        errs.push({ type: 'FieldValueNotSupported', field: 'resourceVersionMatch', value: match, detail: `supported values: "${NOT_OLDER_THAN}"` });
      }
      if (q.continue) {
        errs.push({ type: 'FieldValueForbidden', field: 'resourceVersionMatch', detail: 'resourceVersionMatch is forbidden when continue is provided' });
      }
    }
  } else {
    if (match) {
      if (!q.resourceVersion) {
        errs.push({ type: 'FieldValueForbidden', field: 'resourceVersionMatch', detail: 'resourceVersionMatch is forbidden unless resourceVersion is provided' });
      }
      if (q.continue) {
        errs.push({ type: 'FieldValueForbidden', field: 'resourceVersionMatch', detail: 'resourceVersionMatch is forbidden when continue is provided' });
      }
      if (match !== EXACT && match !== NOT_OLDER_THAN) {
        errs.push({ type: 'FieldValueNotSupported', field: 'resourceVersionMatch', value: match, detail: `supported values: "${EXACT}", "${NOT_OLDER_THAN}", ""` });
      }
      if (match === EXACT && q.resourceVersion === '0') {
        errs.push({ type: 'FieldValueForbidden', field: 'resourceVersionMatch', detail: 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"' });
      }
    }
    if (q.sendInitialEvents !== undefined) {
      errs.push({ type: 'FieldValueForbidden', field: 'sendInitialEvents', detail: 'sendInitialEvents is forbidden for list' });
    }
  }
  if (q.limit !== undefined && q.limit < 0) {
    // Printed as Go prints the int64 (a JavaScript number would round -9223372036854775808).
    const shown = Number.isSafeInteger(q.limit) ? String(q.limit) : BigInt(q.limit).toString();
    errs.push({ type: 'FieldValueInvalid', field: 'limit', rawValue: q.limitText ?? shown, detail: 'must be greater than or equal to 0' });
  }
  if (errs.length > 0) throw invalid('meta.k8s.io', 'ListOptions', '', errs);
}

/** Parses a resourceVersion query value; opaque to clients, a decimal number to us. */
export function parseResourceVersion(value: string): number {
  if (!/^\d+$/.test(value) || value.length > 18) {
    throw badRequest(`invalid resource version "${value}": must be a non-negative integer`);
  }
  return Number(value);
}
