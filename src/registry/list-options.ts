import { badRequest, invalid, type FieldError } from '../api/errors.ts';

/** The list and watch query parameters, parsed but not yet interpreted. */
export interface ListQuery {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly limit?: number;
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

function parseInt64(name: string, value: string | null): number | undefined {
  if (value === null || value === '') return undefined;
  if (!/^-?\d+$/.test(value)) throw badRequest(`invalid value for ${name}: "${value}": must be an integer`);
  return Number(value);
}

export function parseListQuery(q: URLSearchParams): ListQuery {
  const opt = (k: string) => {
    const v = q.get(k);
    return v === null || v === '' ? undefined : v;
  };
  return {
    labelSelector: opt('labelSelector'),
    fieldSelector: opt('fieldSelector'),
    limit: parseInt64('limit', q.get('limit')),
    continue: opt('continue'),
    resourceVersion: opt('resourceVersion'),
    resourceVersionMatch: opt('resourceVersionMatch'),
    watch: parseBool('watch', q.get('watch')) ?? false,
    allowWatchBookmarks: parseBool('allowWatchBookmarks', q.get('allowWatchBookmarks')) ?? false,
    sendInitialEvents: parseBool('sendInitialEvents', q.get('sendInitialEvents')),
    timeoutSeconds: parseInt64('timeoutSeconds', q.get('timeoutSeconds')),
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
    errs.push({ type: 'FieldValueInvalid', field: 'limit', value: q.limit, detail: 'must be greater than or equal to 0' });
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
