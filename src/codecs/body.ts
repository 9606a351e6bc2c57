import { badRequest, requestEntityTooLarge } from '../api/errors.ts';
import { CborDecodeError, decodeCbor } from './cbor/index.ts';
import type { BodyFormat, PatchFormat } from './content-type.ts';
import { exceedsJsonDepth, jsonSyntaxError } from './json-syntax.ts';
import { containsLoneSurrogate, mayHaveEscapedSurrogate, replaceLoneSurrogatesDeep } from './unicode.ts';
import { dumpYaml, parseYaml, YamlDecodeError, YamlTooLargeError } from './yaml.ts';
import { unsupportedYamlKey } from './yaml-keys.ts';

export interface DecodeOptions {
  /**
   * The Kind the endpoint expects (`ConfigMap`). When given, the body must be a JSON object and
   * errors read like the real server's: `the object provided is unrecognized (must be of type
   * ConfigMap): couldn't get version/kind; json parse error: … ({"bad" ...)`.
   */
  readonly expectKind?: string;
  /**
   * The request size limit (`--max-request-body-bytes`). JSON cannot decode to more than its own
   * text; YAML can (aliases), and its decoded value may not be larger than this either (413).
   */
  readonly maxDecodedBytes?: number;
}

/**
 * Decodes a request body into a JSON value. JSON goes straight to `JSON.parse`; nothing else is
 * done on the success path.
 *
 * Formats: `json` and the JSON patch types, `yaml` and `apply-patch-yaml`, `cbor` and `apply-patch-cbor`.
 *
 * @throws ApiError 400 BadRequest for malformed input (never a 500).
 */
export function decodeBody(body: Uint8Array | string, format: BodyFormat | PatchFormat, options: DecodeOptions = {}): unknown {
  switch (format) {
    case 'json':
    case 'json-patch':
    case 'merge-patch':
    case 'strategic-merge-patch':
      return decodeJson(body, options);
    case 'yaml':
    case 'apply-patch-yaml':
      return decodeYaml(body, options);
    case 'cbor':
    case 'apply-patch-cbor':
      return decodeCborBody(body, options);
    default:
      throw new Error(`decodeBody: no decoder for ${format}`);
  }
}

function decodeJson(body: Uint8Array | string, options: DecodeOptions): unknown {
  const text = typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
    // JSON.parse takes any depth; Go's decoder, and so the API, stops at MAX_JSON_DEPTH.
    if (exceedsJsonDepth(text)) throw new SyntaxError('too deep');
  } catch {
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    const why = jsonSyntaxError(bytes) ?? 'invalid JSON';
    if (!options.expectKind) throw badRequest(why);
    throw unrecognized(options.expectKind, `couldn't get version/kind; json parse error: ${why}`, bytes);
  }
  if (mayHaveEscapedSurrogate(text)) value = replaceLoneSurrogatesDeep(value);
  if (options.expectKind) requireObject(value, options.expectKind, body);
  return value;
}

function decodeCborBody(body: Uint8Array | string, options: DecodeOptions): unknown {
  let value: unknown;
  try {
    value = decodeCbor(typeof body === 'string' ? Buffer.from(body, 'latin1') : body);
  } catch (err) {
    if (err instanceof CborDecodeError) throw badRequest(err.message);
    throw err;
  }
  if (options.expectKind && (value === null || typeof value !== 'object' || Array.isArray(value))) {
    throw badRequest(`cbor: cannot unmarshal ${jsonTypeOf(value)} into Go value of type ${options.expectKind}`);
  }
  return value;
}

function decodeYaml(body: Uint8Array | string, options: DecodeOptions): unknown {
  const text = typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  let value: unknown;
  try {
    value = parseYaml(text, { maxBytes: options.maxDecodedBytes });
  } catch (err) {
    if (err instanceof YamlTooLargeError) throw requestEntityTooLarge(err.limit);
    if (!(err instanceof YamlDecodeError)) throw err;
    const why = `error converting YAML to JSON: ${err.message}`;
    if (!options.expectKind) throw badRequest(why);
    throw unrecognized(options.expectKind, why, body);
  }
  // Keys JSON cannot have (a sequence, a mapping, null): refused as upstream's YAML-to-JSON conversion does.
  // Only a document that could spell one gets the second pass.
  const badKey = /[?[{~]|null|Null|NULL/.test(text) ? unsupportedYamlKey(text) : undefined;
  if (badKey) {
    const why = `error converting YAML to JSON: ${badKey}`;
    if (!options.expectKind) throw badRequest(why);
    throw unrecognized(options.expectKind, why, body);
  }
  // Go's YAML scanner refuses a `\u` escape in the surrogate range; only such an escape makes a lone one.
  if (containsLoneSurrogate(value)) {
    const why = 'error converting YAML to JSON: yaml: found invalid Unicode character escape code';
    if (!options.expectKind) throw badRequest(why);
    throw unrecognized(options.expectKind, why, body);
  }
  if (options.expectKind) requireObject(value, options.expectKind, body);
  return value;
}

/** Go's name for the value the type sniffing step could not read. */
const GO_TYPE_PROBE = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

function jsonTypeOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'boolean' ? 'bool' : typeof value;
}

function requireObject(value: unknown, kind: string, body: Uint8Array | string): void {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    // The type sniffing step reads apiVersion and kind as strings first.
    for (const field of ['apiVersion', 'kind'] as const) {
      const v = (value as Record<string, unknown>)[field];
      if (v !== undefined && v !== null && typeof v !== 'string') {
        throw unrecognized(kind, `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonTypeOf(v)} into Go struct field .${field} of type string`, body);
      }
    }
    return;
  }
  if (value === null) throw badRequest(`Object 'Kind' is missing in '${text(body).trim() || 'null'}'`);
  throw unrecognized(kind, `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonTypeOf(value)} into Go value of type ${GO_TYPE_PROBE}`, body);
}

function unrecognized(kind: string, why: string, body: Uint8Array | string) {
  return badRequest(`the object provided is unrecognized (must be of type ${kind}): ${why} (${summarize(body)})`);
}

function text(body: Uint8Array | string): string {
  return typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
}

/** The real server quotes the first 30 bytes of a bad body: as text when it starts with `{`, else hex. */
function summarize(body: Uint8Array | string, max = 30): string {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (bytes.length === 0) return '<empty>';
  const head = bytes.subarray(0, max);
  const more = bytes.length > max ? ' ...' : '';
  return (bytes[0] === 0x7b ? head.toString('utf8') : head.toString('hex')) + more;
}

export type EncodeFormat = 'json' | 'yaml';

export interface EncodeOptions {
  /** Indent JSON by two spaces (no trailing newline, as upstream's pretty printer). */
  readonly pretty?: boolean;
}

/**
 * Encodes a response body. JSON is `JSON.stringify` plus the trailing newline Go's encoder
 * writes; YAML is sorted-key block YAML as the real server writes it.
 */
export function encodeBody(value: unknown, format: EncodeFormat, options: EncodeOptions = {}): string {
  if (format === 'json') return options.pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value) + '\n';
  if (format === 'yaml') return dumpYaml(value);
  throw new Error(`encodeBody: no encoder for ${format as string}`);
}
