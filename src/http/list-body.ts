import { Readable } from 'node:stream';
import type { KubeObject } from '../api/types.ts';
import { dumpYaml, type NegotiatedResponse } from '../codecs/index.ts';
import { encodeCborList, encodeCborValue } from '../codecs/cbor/index.ts';
import { protobufListParts } from '../codecs/protobuf/index.ts';
import { apiVersionOf, type KindDefinition } from '../registry/kind.ts';
import { toTable, type IncludeObject } from '../registry/table.ts';
import type { ListCursor } from '../registry/resource-store.ts';

export interface ListBodyOptions {
  readonly kind: KindDefinition;
  readonly negotiated: NegotiatedResponse;
  readonly pretty: boolean;
  readonly includeObject: IncludeObject;
  /** Called when reading fails after the response began: the response can then only be cut off. */
  readonly onError: (err: unknown) => void;
}

/**
 * The body of a whole list, written as it is read from a cursor: the same bytes, in every media type,
 * as the list built in one piece (list.ts), but the server holds one chunk of items at a time instead
 * of the collection. Protobuf is the exception: its envelope states the length of everything before
 * the items, so their encodings are collected first (still far less than the list's objects and
 * texts together). The cursor is closed when the body ends, fails, or the client goes away.
 */
export function listBody(cursor: ListCursor, options: ListBodyOptions): Readable {
  // One piece buffered ahead at most: the next chunk is read when the socket took the last one.
  const body = Readable.from(pieces(cursor, options), { objectMode: true, highWaterMark: 1 });
  body.once('close', () => void cursor.close());
  return body;
}

async function* pieces(cursor: ListCursor, options: ListBodyOptions): AsyncGenerator<string | Uint8Array> {
  try {
    yield* encode(cursor, options);
  } catch (err) {
    options.onError(err);
  } finally {
    await cursor.close();
  }
}

/** Every chunk of item texts, then nothing. */
async function* chunks(cursor: ListCursor): AsyncGenerator<string[]> {
  for (let items = await cursor.next(); items.length > 0; items = await cursor.next()) yield items;
}

function encode(cursor: ListCursor, o: ListBodyOptions): AsyncGenerator<string | Uint8Array> {
  const n = o.negotiated;
  const metadata = { resourceVersion: String(cursor.resourceVersion) };
  if (n.output === 'table-json' || n.output === 'table-yaml') return tableBody(cursor, o, metadata);
  const head = { kind: `${o.kind.kind}List`, apiVersion: apiVersionOf(o.kind), metadata };
  if (n.format === 'protobuf') return protobufBody(cursor, head);
  if (n.format === 'cbor') return cborBody(cursor, head, o.kind);
  if (n.format === 'yaml') return yamlBody(cursor, head, 'items', (texts) => texts.map((t) => JSON.parse(t) as unknown));
  if (o.pretty) return prettyJsonBody(cursor, head, 'items', (texts) => texts.map((t) => JSON.parse(t) as unknown));
  return jsonBody(cursor, head);
}

/** `{"kind":…,"metadata":{…},"items":[` + the stored texts as they are + `]}`. */
async function* jsonBody(cursor: ListCursor, head: object): AsyncGenerator<string> {
  const text = JSON.stringify(head);
  let first = true;
  yield `${text.slice(0, -1)},"items":[`;
  for await (const items of chunks(cursor)) {
    yield (first ? '' : ',') + items.join(',');
    first = false;
  }
  yield ']}\n';
}

/** JSON.stringify(list, null, 2) in pieces: `field` is the last key of `head`'s JSON and holds the items. */
async function* prettyJsonBody(cursor: ListCursor, head: object, field: string, values: (texts: string[]) => unknown[]): AsyncGenerator<string> {
  const empty = JSON.stringify({ ...head, [field]: [] }, null, 2);
  const tail = '[]\n}';
  yield empty.slice(0, -tail.length + 1); // up to and including the `[`
  let count = 0;
  for await (const texts of chunks(cursor)) {
    let piece = '';
    for (const value of values(texts)) {
      piece += `${count++ === 0 ? '' : ','}\n    ${JSON.stringify(value, null, 2).replace(/\n/g, '\n    ')}`;
    }
    yield piece;
  }
  yield count === 0 ? ']\n}' : '\n  ]\n}';
}

/** dumpYaml(list) in pieces: keys are sorted, so the items go where `<field>: []` stands in the empty list. */
async function* yamlBody(cursor: ListCursor, head: object, field: string, values: (texts: string[]) => unknown[]): AsyncGenerator<string> {
  const empty = dumpYaml({ ...head, [field]: [] });
  const marker = `\n${field}: []\n`;
  const at = empty.indexOf(marker);
  if (at < 0) throw new Error(`yamlBody: no "${field}: []" line in the empty list`);
  const before = empty.slice(0, at + 1);
  const after = empty.slice(at + marker.length);
  let count = 0;
  let pending = before;
  for await (const texts of chunks(cursor)) {
    let piece = count === 0 ? `${pending}${field}:\n` : '';
    for (const value of values(texts)) {
      piece += dumpYaml([value]);
      count++;
    }
    yield piece;
    pending = '';
  }
  yield count === 0 ? `${before}${field}: []\n${after}` : after;
}

/** The Table of the list: the rows of each chunk are rendered as they come, with one clock. */
function tableBody(cursor: ListCursor, o: ListBodyOptions, listMeta: { resourceVersion: string }): AsyncGenerator<string> {
  const version = o.negotiated.convert?.version;
  const now = new Date();
  const head = toTable(o.kind, [], { includeObject: o.includeObject, listMeta, version, now }) as unknown as Record<string, unknown>;
  delete head.rows;
  const rows = (texts: string[]) =>
    toTable(o.kind, texts.map((t) => JSON.parse(t) as KubeObject), { includeObject: o.includeObject, version, now, noHeaders: true }).rows;
  if (o.negotiated.output === 'table-yaml') return yamlBody(cursor, head, 'rows', rows);
  if (o.pretty) return prettyJsonBody(cursor, head, 'rows', rows);
  return compactJsonBody(cursor, head, 'rows', rows);
}

/** JSON.stringify(value) + '\n' in pieces, `field` being its last key. */
async function* compactJsonBody(cursor: ListCursor, head: object, field: string, values: (texts: string[]) => unknown[]): AsyncGenerator<string> {
  const text = JSON.stringify(head);
  let first = true;
  yield `${text.slice(0, -1)},"${field}":[`;
  for await (const texts of chunks(cursor)) {
    yield (first ? '' : ',') + values(texts).map((v) => JSON.stringify(v)).join(',');
    first = false;
  }
  yield ']}\n';
}

const EMPTY = new Uint8Array(0);

/** The protobuf list: item encodings first (the envelope states their length), then everything in order. */
/** CBOR has definite lengths only: the items' encodings are collected, then the list is written. */
async function* cborBody(cursor: ListCursor, head: object, kind: KindDefinition): AsyncGenerator<Uint8Array> {
  const items: Uint8Array[] = [];
  for await (const texts of chunks(cursor)) for (const t of texts) items.push(encodeCborValue(JSON.parse(t), kind.schema));
  yield encodeCborList(head as Record<string, unknown>, items);
}

async function* protobufBody(cursor: ListCursor, head: { kind: string; apiVersion: string; metadata: object }): AsyncGenerator<Uint8Array> {
  const itemKind = head.kind.slice(0, -'List'.length);
  const encoded: Uint8Array[] = [];
  let length = 0;
  const parts = protobufListParts(head.apiVersion, head.kind, itemKind, head.metadata);
  for await (const texts of chunks(cursor)) {
    for (const t of texts) {
      const item = parts.item(JSON.parse(t) as Record<string, unknown>);
      encoded.push(item);
      length += item.length;
    }
  }
  yield parts.head(length);
  // In slices of about a megabyte: the socket takes them as it can.
  let slice: Uint8Array[] = [];
  let sliceBytes = 0;
  for (let i = 0; i < encoded.length; i++) {
    const item = encoded[i];
    encoded[i] = EMPTY; // let what was written go
    slice.push(item);
    sliceBytes += item.length;
    if (sliceBytes >= 1024 * 1024) {
      yield Buffer.concat(slice);
      slice = [];
      sliceBytes = 0;
    }
  }
  if (slice.length > 0) yield Buffer.concat(slice);
  yield parts.tail();
}
