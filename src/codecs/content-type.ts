import { unsupportedMediaType } from '../api/errors.ts';
import {
  MEDIA_APPLY_PATCH_CBOR,
  MEDIA_APPLY_PATCH_YAML,
  MEDIA_CBOR,
  MEDIA_JSON,
  MEDIA_JSON_PATCH,
  MEDIA_MERGE_PATCH,
  MEDIA_PROTOBUF,
  MEDIA_STRATEGIC_MERGE_PATCH,
  MEDIA_YAML,
  parseMediaType,
} from './media-type.ts';

/** How a create/update body is encoded. */
export type BodyFormat = 'json' | 'yaml' | 'protobuf' | 'cbor';

/** How a PATCH body is encoded; the media type also chooses the patch algorithm. */
export type PatchFormat = 'json-patch' | 'merge-patch' | 'strategic-merge-patch' | 'apply-patch-yaml' | 'apply-patch-cbor';

export interface ContentTypeOptions {
  /** The request is a PATCH: only patch media types are accepted and Content-Type is required. */
  readonly patch?: boolean;
  /** Default true; YAML bodies for create/update. */
  readonly allowYaml?: boolean;
  /** Protobuf bodies (built-in kinds only; default false). */
  readonly allowProtobuf?: boolean;
  /** CBOR bodies and CBOR apply patches (default false). */
  readonly allowCbor?: boolean;
  /** Strategic merge patch (built-in kinds; never custom resources; default true). */
  readonly allowStrategicMerge?: boolean;
}

const BODY_TYPES: ReadonlyArray<readonly [string, BodyFormat]> = [
  [MEDIA_JSON, 'json'],
  [MEDIA_YAML, 'yaml'],
  [MEDIA_PROTOBUF, 'protobuf'],
  [MEDIA_CBOR, 'cbor'],
];

const PATCH_TYPES: ReadonlyArray<readonly [string, PatchFormat]> = [
  [MEDIA_JSON_PATCH, 'json-patch'],
  [MEDIA_MERGE_PATCH, 'merge-patch'],
  [MEDIA_STRATEGIC_MERGE_PATCH, 'strategic-merge-patch'],
  [MEDIA_APPLY_PATCH_YAML, 'apply-patch-yaml'],
  [MEDIA_APPLY_PATCH_CBOR, 'apply-patch-cbor'],
];

/** The media types a 415 lists for this endpoint, in the real server's order. */
export function acceptedContentTypes(options: ContentTypeOptions = {}): string[] {
  if (options.patch) {
    return PATCH_TYPES.filter(([, f]) => allowedPatch(f, options)).map(([m]) => m);
  }
  return BODY_TYPES.filter(([, f]) => allowedBody(f, options)).map(([m]) => m);
}

function allowedBody(f: BodyFormat, o: ContentTypeOptions): boolean {
  if (f === 'yaml') return o.allowYaml !== false;
  if (f === 'protobuf') return o.allowProtobuf === true;
  if (f === 'cbor') return o.allowCbor === true;
  return true;
}

function allowedPatch(f: PatchFormat, o: ContentTypeOptions): boolean {
  if (f === 'strategic-merge-patch') return o.allowStrategicMerge !== false;
  if (f === 'apply-patch-cbor') return o.allowCbor === true;
  return true;
}

/**
 * Classifies the Content-Type of a request body.
 *
 * Create and update: a missing Content-Type means JSON; parameters such as `charset` are ignored.
 * PATCH (`options.patch`): the Content-Type is required and picks the patch type; everything after
 * the first `;` is ignored, as upstream does.
 *
 * @throws ApiError 415 UnsupportedMediaType listing the accepted media types.
 */
export function parseContentType(header: string | undefined, options: ContentTypeOptions & { patch: true }): PatchFormat;
export function parseContentType(header: string | undefined, options?: ContentTypeOptions & { patch?: false }): BodyFormat;
export function parseContentType(header: string | undefined, options?: ContentTypeOptions): BodyFormat | PatchFormat;
export function parseContentType(header: string | undefined, options: ContentTypeOptions = {}): BodyFormat | PatchFormat {
  const raw = (header ?? '').trim();
  if (options.patch) {
    const semi = raw.indexOf(';');
    const essence = (semi > 0 ? raw.slice(0, semi) : raw).trim().toLowerCase();
    const found = PATCH_TYPES.find(([m, f]) => m === essence && allowedPatch(f, options));
    if (found) return found[1];
    throw unsupported(options);
  }
  if (raw === '') return 'json';
  const parsed = parseMediaType(raw);
  const found = parsed && BODY_TYPES.find(([m, f]) => m === parsed.essence && allowedBody(f, options));
  if (found) return found[1];
  throw unsupported(options);
}

function unsupported(options: ContentTypeOptions) {
  // The real server's 415 Status carries only the message, no details; an empty content type
  // keeps errors.ts from adding a cause.
  return unsupportedMediaType('', acceptedContentTypes(options));
}
