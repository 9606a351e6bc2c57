import { notAcceptable } from '../api/errors.ts';
import {
  MEDIA_CBOR,
  MEDIA_CBOR_SEQ,
  MEDIA_JSON,
  MEDIA_PROTOBUF,
  MEDIA_YAML,
  parseAccept,
  type MediaRange,
} from './media-type.ts';

/** A serialization the server can write. */
export type Format = 'json' | 'yaml' | 'protobuf' | 'cbor';

/** Object shapes a client can ask for with `;as=<Kind>;g=meta.k8s.io;v=<v1|v1beta1>`. */
export type ConvertKind = 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList';

export interface ConvertTarget {
  readonly kind: ConvertKind;
  readonly group: 'meta.k8s.io';
  readonly version: 'v1' | 'v1beta1';
}

export interface NegotiateOptions {
  /** The resource can be rendered as a Table (default true; Tables exist only as JSON and YAML). */
  readonly allowTable?: boolean;
  /** PartialObjectMetadata(List) may be requested (default true). */
  readonly allowPartialMetadata?: boolean;
  /** Default true. */
  readonly allowYaml?: boolean;
  /** Protobuf is served for this resource (built-in kinds only; default false). */
  readonly allowProtobuf?: boolean;
  /** CBOR is served (feature gated upstream; default false). */
  readonly allowCbor?: boolean;
  /** The request is a watch: the chosen format must have a stream form (YAML has none). */
  readonly isWatch?: boolean;
}

export interface NegotiatedResponse {
  readonly format: Format;
  /** A conversion requested through media type parameters, when there is one. */
  readonly convert?: ConvertTarget;
  /**
   * Shorthand for switch statements: the format, or `table-json` / `table-yaml` when a Table was
   * asked for. PartialObjectMetadata keeps the plain format name (see `convert`).
   */
  readonly output: Format | 'table-json' | 'table-yaml';
  /** The response Content-Type header. */
  readonly contentType: string;
  /** `pretty=1` was among the media type parameters. */
  readonly pretty: boolean;
}

interface Candidate {
  readonly format: Format;
  readonly type: string;
  readonly subtype: string;
  readonly mediaType: string;
  readonly streams: boolean;
}

const CANDIDATES: Record<Format, Candidate> = {
  json: { format: 'json', type: 'application', subtype: 'json', mediaType: MEDIA_JSON, streams: true },
  yaml: { format: 'yaml', type: 'application', subtype: 'yaml', mediaType: MEDIA_YAML, streams: false },
  protobuf: {
    format: 'protobuf',
    type: 'application',
    subtype: 'vnd.kubernetes.protobuf',
    mediaType: MEDIA_PROTOBUF,
    streams: true,
  },
  cbor: { format: 'cbor', type: 'application', subtype: 'cbor', mediaType: MEDIA_CBOR, streams: true },
};

/** The formats served, in the server's order (the order 406 messages list them in). */
export function servedFormats(options: Pick<NegotiateOptions, 'allowYaml' | 'allowProtobuf' | 'allowCbor'>): Format[] {
  const out: Format[] = ['json'];
  if (options.allowYaml !== false) out.push('yaml');
  if (options.allowProtobuf) out.push('protobuf');
  if (options.allowCbor) out.push('cbor');
  return out;
}

/** The media types a 406 names: `application/json, application/yaml, …` (with `;stream=watch` for watches). */
export function acceptedMediaTypes(options: NegotiateOptions): string[] {
  const formats = servedFormats(options);
  if (!options.isWatch) return formats.map((f) => CANDIDATES[f].mediaType);
  return formats.filter((f) => CANDIDATES[f].streams).map((f) => `${CANDIDATES[f].mediaType};stream=watch`);
}

/**
 * Reads `as`, `g` and `v` media type parameters into a conversion target. Returns `null` when
 * none is present, `undefined` when they name something the server cannot produce.
 */
export function convertTargetOf(params: Readonly<Record<string, string>>): ConvertTarget | null | undefined {
  if (!('as' in params) && !('g' in params) && !('v' in params)) return null;
  const kind = params.as;
  const group = params.g;
  const version = params.v;
  if (group !== 'meta.k8s.io' || (version !== 'v1' && version !== 'v1beta1')) return undefined;
  if (kind !== 'Table' && kind !== 'PartialObjectMetadata' && kind !== 'PartialObjectMetadataList') return undefined;
  return { kind, group, version };
}

/**
 * Chooses the response media type for an Accept header, the way the real server does: walk the
 * clauses in preference order and take the first one that names a served type (or a wildcard)
 * and whose parameters the endpoint can honour. A missing Accept means JSON.
 *
 * Watches: YAML has no stream form, so a watch whose best clause is YAML fails with 406 (as
 * upstream) rather than falling back; JSON watches are answered as `application/json`,
 * protobuf as `application/vnd.kubernetes.protobuf;stream=watch` and CBOR as `application/cbor-seq`.
 *
 * @throws ApiError 406 NotAcceptable naming the accepted media types.
 */
export function negotiateResponse(accept: string | undefined, options: NegotiateOptions = {}): NegotiatedResponse {
  const formats = servedFormats(options);
  let chosen: { candidate: Candidate; convert: ConvertTarget | undefined; pretty: boolean } | undefined;
  if (!accept || accept.trim() === '') {
    chosen = { candidate: CANDIDATES.json, convert: undefined, pretty: false };
  } else {
    outer: for (const clause of parseAccept(accept)) {
      for (const format of formats) {
        const candidate = CANDIDATES[format];
        if (!matches(clause, candidate)) continue;
        const accepted = acceptClause(clause, candidate, options);
        if (accepted) {
          chosen = { candidate, ...accepted };
          break outer;
        }
      }
    }
  }
  if (!chosen) throw notAcceptable(acceptedMediaTypes({ ...options, isWatch: false }));
  const { candidate, convert, pretty } = chosen;
  if (options.isWatch && !candidate.streams) throw notAcceptable(acceptedMediaTypes(options));

  let contentType = candidate.mediaType;
  if (options.isWatch) {
    if (candidate.format === 'cbor') contentType = MEDIA_CBOR_SEQ;
    else if (candidate.format !== 'json') contentType = `${candidate.mediaType};stream=watch`;
  }
  const output =
    convert?.kind === 'Table' ? (candidate.format === 'yaml' ? 'table-yaml' : 'table-json') : candidate.format;
  return convert ? { format: candidate.format, convert, output, contentType, pretty } : { format: candidate.format, output, contentType, pretty };
}

function matches(clause: MediaRange, candidate: Candidate): boolean {
  if (clause.type === '*' && clause.subtype === '*') return true;
  if (clause.type !== candidate.type) return false;
  return clause.subtype === '*' || clause.subtype === candidate.subtype;
}

/** Upstream's per-clause parameter check: returns undefined when the clause must be skipped. */
function acceptClause(
  clause: MediaRange,
  candidate: Candidate,
  options: NegotiateOptions,
): { convert: ConvertTarget | undefined; pretty: boolean } | undefined {
  const params = clause.params;
  if (params.stream !== undefined && params.stream !== '') {
    if (params.stream !== 'watch' || !candidate.streams) return undefined;
  }
  // `sv` asks for a server version of the group; no endpoint here allows one.
  if (params.sv !== undefined && params.sv !== '') return undefined;
  const target = convertTargetOf(params);
  if (target === undefined) return undefined;
  if (target) {
    if (target.kind === 'Table') {
      if (options.allowTable === false) return undefined;
      if (candidate.format !== 'json' && candidate.format !== 'yaml') return undefined;
    } else if (options.allowPartialMetadata === false) {
      return undefined;
    }
  }
  return { convert: target ?? undefined, pretty: params.pretty === '1' };
}

/**
 * Whether the response should be indented: the `pretty` query parameter when present (Go's
 * boolean spellings; anything else is false), otherwise true for curl, Wget and browsers.
 */
export function isPretty(query: string | null | undefined, userAgent?: string): boolean {
  if (query !== undefined && query !== null && query !== '') {
    return ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(query);
  }
  const ua = userAgent ?? '';
  return ua.startsWith('curl') || ua.startsWith('Wget') || ua.startsWith('Mozilla/5.0');
}
