import type { Context } from 'koa';
import type { Logger } from 'pino';
import type { KubeObject, Status, SuccessStatus } from '../api/types.ts';
import { encodeBody, isPretty, negotiateResponse, type NegotiatedResponse } from '../codecs/index.ts';
import { encodeCbor } from '../codecs/cbor/index.ts';
import { encodeProtobufObject } from '../codecs/protobuf/index.ts';
import { servesCbor, type RequestScope } from './scope.ts';
import { apiVersionOf, type KindDefinition } from '../registry/kind.ts';
import { parseIncludeObject, toTable } from '../registry/table.ts';
import { stringifyJson } from '../codecs/deep-json.ts';

/**
 * Picks the response encoding for a resource request (406 when none fits): protobuf where the kind
 * has a protobuf form, CBOR while its feature gate is on.
 */
export function negotiate(ctx: Context, scope: Pick<RequestScope, 'kind' | 'context'>, options: { allowTable: boolean; isWatch?: boolean }): NegotiatedResponse {
  return negotiateResponse(ctx.get('accept') || undefined, {
    allowTable: options.allowTable,
    allowPartialMetadata: false,
    allowProtobuf: scope.kind.wire.protobuf,
    allowCbor: servesCbor(scope),
    isWatch: options.isWatch,
  });
}

/** A value in the negotiated format: JSON or YAML text, a protobuf envelope, or CBOR (typed by the kind's schema). */
export function encodeNegotiated(value: unknown, n: NegotiatedResponse, prettyOutput: boolean, kind?: KindDefinition): string | Buffer {
  if (n.format === 'protobuf') return Buffer.from(encodeProtobufObject(value as Record<string, unknown>));
  if (n.format === 'cbor') return encodeCbor(value, kind?.schema);
  return encodeBody(value, n.format === 'yaml' ? 'yaml' : 'json', { pretty: prettyOutput });
}

function pretty(ctx: Context, n: NegotiatedResponse): boolean {
  return n.pretty || isPretty(ctx.query.pretty as string | undefined, ctx.get('user-agent'));
}

function send(ctx: Context, code: number, contentType: string, body: string | Buffer): void {
  ctx.status = code;
  // Set before the body so koa does not pick a type (and a charset) of its own.
  ctx.set('Content-Type', contentType);
  // Bytes, not a string: Node writes the header block in the encoding of the first body chunk, and
  // only a Buffer body leaves UTF-8 header values (warnings) as the bytes they are.
  ctx.body = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
}

/**
 * Writes one object. JSON without pretty-printing sends the stored text as it is (no parse and
 * re-encode); other encodings and Tables work from the parsed object.
 */
export function writeObject(
  ctx: Context,
  kind: KindDefinition,
  code: number,
  object: KubeObject | (() => KubeObject),
  text: string | undefined,
  n: NegotiatedResponse,
): void {
  // A function is called only when the answer needs the parsed object (a stored JSON answer does not).
  const parsed = (): KubeObject => (typeof object === 'function' ? object() : object);
  if (n.output === 'table-json' || n.output === 'table-yaml') {
    const table = toTable(kind, [parsed()], { includeObject: parseIncludeObject(ctx.query.includeObject as string | undefined), version: n.convert?.version });
    send(ctx, code, n.contentType, encodeBody(table, n.output === 'table-yaml' ? 'yaml' : 'json', { pretty: pretty(ctx, n) }));
    return;
  }
  if (n.format === 'json' && text !== undefined && !pretty(ctx, n)) {
    send(ctx, code, n.contentType, text);
    return;
  }
  const obj = parsed();
  if (n.format === 'protobuf' || n.format === 'cbor') {
    obj.apiVersion ??= apiVersionOf(kind);
    obj.kind ??= kind.kind;
  }
  send(ctx, code, n.contentType, encodeNegotiated(obj, n, pretty(ctx, n), kind));
}

/**
 * Writes the answer to a write that is already committed. The encoding was negotiated before the
 * write (a 406 comes first, as upstream); should encoding the stored object still fail, the client
 * gets the stored JSON with the success code and the failure goes to the log: a committed write is
 * never answered with an error.
 */
export function writeCommitted(
  ctx: Context,
  scope: { readonly kind: KindDefinition; readonly logger: Logger },
  code: number,
  object: KubeObject,
  text: string | undefined,
  negotiated: NegotiatedResponse,
): void {
  try {
    writeObject(ctx, scope.kind, code, object, text, negotiated);
  } catch (err) {
    scope.logger.error({ err, method: ctx.method, url: ctx.url }, 'encoding the answer to a committed write failed; answering with JSON');
    send(ctx, code, 'application/json', text ?? `${stringifyJson(object)}\n`);
  }
}

/** Writes a Status (success or failure) in the negotiated type, falling back to JSON. */
export function writeStatus(ctx: Context, status: Status | SuccessStatus): void {
  let format: 'json' | 'yaml' = 'json';
  let contentType = 'application/json';
  try {
    const n = negotiateResponse(ctx.get('accept') || undefined, { allowTable: false });
    if (n.format === 'yaml') {
      format = 'yaml';
      contentType = n.contentType;
    }
  } catch {
    // A 406 still has to be told to the client: in JSON.
  }
  send(ctx, status.code ?? 200, contentType, encodeBody(status, format));
}
