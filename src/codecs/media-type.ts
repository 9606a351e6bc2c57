/**
 * Media types as the Kubernetes API server reads them: the Accept header of a response and the
 * Content-Type header of a request body.
 */

/** One clause of an Accept header: `application/json;as=Table;v=v1;g=meta.k8s.io;q=0.9`. */
export interface MediaRange {
  /** `application`, or `*`. Lowercased. */
  readonly type: string;
  /** `json`, or `*`. Lowercased. */
  readonly subtype: string;
  /** Parameters other than `q`, keys and values trimmed, values case preserved. */
  readonly params: Readonly<Record<string, string>>;
  /** Quality, 1 when absent; an unparsable q counts as 0 (as the real server does). */
  readonly q: number;
}

export const MEDIA_JSON = 'application/json';
export const MEDIA_YAML = 'application/yaml';
export const MEDIA_PROTOBUF = 'application/vnd.kubernetes.protobuf';
export const MEDIA_CBOR = 'application/cbor';
export const MEDIA_CBOR_SEQ = 'application/cbor-seq';
export const MEDIA_JSON_PATCH = 'application/json-patch+json';
export const MEDIA_MERGE_PATCH = 'application/merge-patch+json';
export const MEDIA_STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
export const MEDIA_APPLY_PATCH_YAML = 'application/apply-patch+yaml';
export const MEDIA_APPLY_PATCH_CBOR = 'application/apply-patch+cbor';

/**
 * Parses an Accept header into clauses, most preferred first.
 *
 * The order is the one the real server uses: clauses are sorted by q (highest first), then
 * concrete types before wildcards; clauses that tie keep the order the client wrote them in.
 * Clauses without a `/` (other than a bare `*`) are dropped. A q of 0 is kept, sorted last,
 * because the real server does not discard such clauses either.
 *
 * @example
 * parseAccept('application/json;q=0.5, application/yaml')
 * // → [{type:'application', subtype:'yaml', …, q:1}, {type:'application', subtype:'json', …, q:0.5}]
 */
export function parseAccept(header: string | undefined): MediaRange[] {
  if (!header) return [];
  const out: MediaRange[] = [];
  for (const rawPart of header.split(',')) {
    const pieces = rawPart.trim().split(';');
    const range = pieces[0]!.trim().toLowerCase();
    const slash = range.split('/');
    let type: string;
    let subtype: string;
    if (slash.length === 1 && slash[0] === '*') {
      type = '*';
      subtype = '*';
    } else if (slash.length === 2) {
      type = slash[0]!.trim();
      subtype = slash[1]!.trim();
    } else {
      continue;
    }
    const params: Record<string, string> = {};
    let q = 1;
    for (const piece of pieces.slice(1)) {
      const eq = piece.indexOf('=');
      if (eq < 0) continue;
      const key = piece.slice(0, eq).trim();
      const value = piece.slice(eq + 1).trim();
      if (key === 'q') {
        const n = Number(value);
        q = value !== '' && Number.isFinite(n) ? n : 0;
      } else {
        params[key] = value;
      }
    }
    out.push({ type, subtype, params, q });
  }
  sortClauses(out);
  return out;
}

/**
 * The real server sorts with a comparison that is not a strict order (q first, then "not a
 * wildcard" beats "wildcard" regardless of q), using an insertion sort for short headers. We run
 * the same insertion sort with the same comparison so ties and odd mixes land where they do there.
 */
function sortClauses(list: MediaRange[]): void {
  for (let i = 1; i < list.length; i++) {
    for (let j = i; j > 0 && before(list[j]!, list[j - 1]!); j--) {
      const t = list[j]!;
      list[j] = list[j - 1]!;
      list[j - 1] = t;
    }
  }
}

function before(a: MediaRange, b: MediaRange): boolean {
  if (a.q > b.q) return true;
  if (a.type !== '*' && b.type === '*') return true;
  if (a.subtype !== '*' && b.subtype === '*') return true;
  return false;
}

/** A Content-Type header split into its lowercased essence (`application/json`) and parameters. */
export interface ParsedMediaType {
  readonly essence: string;
  readonly params: Readonly<Record<string, string>>;
}

/**
 * Parses a Content-Type header. Returns undefined when the value is not `type/subtype`.
 * Quoted parameter values are unquoted.
 */
export function parseMediaType(header: string): ParsedMediaType | undefined {
  const pieces = header.split(';');
  const essence = pieces[0]!.trim().toLowerCase();
  if (!/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(essence)) return undefined;
  const params: Record<string, string> = {};
  for (const piece of pieces.slice(1)) {
    const eq = piece.indexOf('=');
    if (eq < 0) {
      if (piece.trim() === '') continue;
      return undefined;
    }
    const key = piece.slice(0, eq).trim().toLowerCase();
    let value = piece.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    if (!key) return undefined;
    params[key] = value;
  }
  return { essence, params };
}
