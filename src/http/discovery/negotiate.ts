import { notAcceptable } from '../../api/errors.ts';
import { MEDIA_JSON, MEDIA_PROTOBUF, MEDIA_YAML, parseAccept, type MediaRange } from '../../codecs/media-type.ts';
import type { AggregatedDiscoveryVersion } from './types.ts';

export type DiscoveryFormat = 'json' | 'yaml' | 'protobuf';

export type DiscoveryNegotiation =
  | {
      readonly mode: 'aggregated';
      readonly version: AggregatedDiscoveryVersion;
      readonly format: DiscoveryFormat;
      /** e.g. `application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList` (clients match it literally). */
      readonly contentType: string;
    }
  | { readonly mode: 'legacy'; readonly format: DiscoveryFormat; readonly contentType: string };

export interface DiscoveryNegotiateOptions {
  /** Default true. */
  readonly allowYaml?: boolean;
  /** Default false. */
  readonly allowProtobuf?: boolean;
}

const TYPES: ReadonlyArray<readonly [DiscoveryFormat, string, string]> = [
  ['json', 'json', MEDIA_JSON],
  ['yaml', 'yaml', MEDIA_YAML],
  ['protobuf', 'vnd.kubernetes.protobuf', MEDIA_PROTOBUF],
];

/**
 * Decides how to answer `GET /api` or `GET /apis`.
 *
 * As in the real server, the aggregated document is served whenever any Accept clause asks for
 * `as=APIGroupDiscoveryList;g=apidiscovery.k8s.io;v=v2` (or v2beta1), whatever its position: the
 * aggregated negotiation only looks at such clauses, the most preferred one winning. Otherwise the
 * legacy document is negotiated among the plain media types.
 *
 * @throws ApiError 406 when neither is acceptable.
 */
export function negotiateDiscovery(accept: string | undefined, options: DiscoveryNegotiateOptions = {}): DiscoveryNegotiation {
  const served = TYPES.filter(([f]) => (f === 'yaml' ? options.allowYaml !== false : f === 'protobuf' ? options.allowProtobuf === true : true));
  if (!accept || accept.trim() === '') return { mode: 'legacy', format: 'json', contentType: MEDIA_JSON };
  const clauses = parseAccept(accept);

  for (const clause of clauses) {
    for (const [format, subtype, mediaType] of served) {
      if (!matches(clause, subtype)) continue;
      const version = aggregatedVersion(clause.params);
      if (!version) continue;
      return {
        mode: 'aggregated',
        version,
        format,
        contentType: `${mediaType};g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`,
      };
    }
  }

  for (const clause of clauses) {
    for (const [format, subtype, mediaType] of served) {
      if (!matches(clause, subtype)) continue;
      const p = clause.params;
      if ('as' in p || 'g' in p || 'v' in p) continue;
      if (p.stream && (p.stream !== 'watch' || format === 'yaml')) continue;
      if (p.sv) continue;
      return { mode: 'legacy', format, contentType: mediaType };
    }
  }
  throw notAcceptable(served.map(([, , m]) => m));
}

function matches(clause: MediaRange, subtype: string): boolean {
  if (clause.type === '*' && clause.subtype === '*') return true;
  return clause.type === 'application' && (clause.subtype === '*' || clause.subtype === subtype);
}

function aggregatedVersion(params: Readonly<Record<string, string>>): AggregatedDiscoveryVersion | undefined {
  if (params.g !== 'apidiscovery.k8s.io' || params.as !== 'APIGroupDiscoveryList') return undefined;
  return params.v === 'v2' || params.v === 'v2beta1' ? params.v : undefined;
}
