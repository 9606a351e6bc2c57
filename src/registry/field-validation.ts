/**
 * Server-side field validation (`?fieldValidation=Ignore|Warn|Strict`): unknown and duplicate fields.
 *
 * Paths and wording follow kube-apiserver: `metadata.name`, `spec.template.spec.containers[0].image`
 * (no leading dot, `[i]` for list items, map keys appended with a dot); problems read
 * `unknown field "spec.foo"` and `duplicate field "metadata.name"`. Under Warn each problem is one
 * `Warning` header; under Strict the request fails with 400 BadRequest:
 * `ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "spec.foo", …`.
 *
 * Like the upstream typed decoder, a field that is both unknown and repeated is reported once, as unknown,
 * and nothing inside an unknown field, a RawExtension or a FieldsV1 value is inspected.
 */
import { badRequest, type ApiError } from '../api/errors.ts';
import { replaceLoneSurrogates } from '../codecs/unicode.ts';
import { goQuote } from '../api/go/quote.ts';
import type { ObjectSchema, TypeSchema } from '../schema/type-schema.ts';

export type FieldValidationDirective = 'Ignore' | 'Warn' | 'Strict';

export interface FieldProblem {
  readonly kind: 'unknown' | 'duplicate';
  /** `spec.template.spec.containers[0].image` */
  readonly path: string;
}

/** What the walk expects of a value: a schema node, or nothing known (only duplicate keys are looked for). */
type Expect = TypeSchema | { readonly kind: 'free' };

const FREE: Expect = { kind: 'free' };
/** A value nothing inside of which is looked at (an unknown field, embedded raw JSON). */
const OPAQUE: Expect = { kind: 'any' };

function isTypeMetaKey(key: string): boolean {
  return key === 'apiVersion' || key === 'kind';
}

/** Values whose insides are not checked: scalars and embedded raw JSON. */
function opaque(e: Expect): boolean {
  return e.kind !== 'object' && e.kind !== 'map' && e.kind !== 'array' && e.kind !== 'free';
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function childPath(parent: string, key: string): string {
  return parent ? `${parent}.${key}` : key;
}

function walk(expect: Expect, value: unknown, path: string, isRoot: boolean, out: string[], remove: boolean): void {
  switch (expect.kind) {
    case 'object': {
      if (!isPlainObject(value)) return;
      // apiVersion and kind are known at the top level and in every type that embeds TypeMeta.
      const typeMeta = isRoot || expect.typeMeta;
      for (const key of Object.keys(value)) {
        const field = expect.fields.get(key);
        if (field) {
          walk(field.schema, value[key], childPath(path, key), false, out, remove);
        } else if (!(typeMeta && isTypeMetaKey(key))) {
          out.push(childPath(path, key));
          if (remove) delete value[key];
        }
      }
      return;
    }
    case 'map':
      if (!isPlainObject(value) || opaque(expect.values)) return;
      for (const key of Object.keys(value)) walk(expect.values, value[key], childPath(path, key), false, out, remove);
      return;
    case 'array':
      if (!Array.isArray(value) || opaque(expect.items)) return;
      for (let i = 0; i < value.length; i++) walk(expect.items, value[i], `${path}[${i}]`, false, out, remove);
      return;
    default:
      return;
  }
}

/**
 * Paths of the fields in `obj` that the message does not have, in object key order (none when the
 * message is not in the generated schema). `apiVersion` and `kind` are known at the top level and in every type that embeds TypeMeta;
 * map keys are free; RawExtension and FieldsV1 values accept anything.
 *
 * @example findUnknownFields('k8s.io.api.core.v1.ConfigMap', { data: {}, spec: { a: 1 } }) // ['spec']
 */
export function findUnknownFields(schema: ObjectSchema, obj: unknown): string[] {
  const out: string[] = [];
  walk(schema, obj, '', true, out, false);
  return out;
}

/**
 * Removes, in place, the fields `findUnknownFields` would report (what Ignore and Warn do: the object
 * is stored without them). Returns their paths.
 */
export function removeUnknownFields(schema: ObjectSchema, obj: unknown): string[] {
  const out: string[] = [];
  walk(schema, obj, '', true, out, true);
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Scanning raw JSON text: duplicate keys are invisible once JSON.parse has run, so the text is walked once,
// linearly, with an explicit stack (no recursion, so deep nesting cannot overflow the call stack).

interface Frame {
  readonly isArray: boolean;
  readonly expect: Expect;
  /** Key or index naming this container in its parent; undefined at the root. */
  readonly seg: string | number | undefined;
  readonly isRoot: boolean;
  index: number;
  keys: string[] | undefined;
  keySet: Set<string> | undefined;
  unknown: Set<string> | undefined;
}

const enum Ch {
  Quote = 0x22,
  Comma = 0x2c,
  Colon = 0x3a,
  OpenBracket = 0x5b,
  Backslash = 0x5c,
  CloseBracket = 0x5d,
  OpenBrace = 0x7b,
  CloseBrace = 0x7d,
}

function skipWs(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
    else return i;
  }
}

/** `i` is at an opening quote; returns the index of the closing quote (or text.length). */
function stringEnd(text: string, i: number): number {
  let j = text.indexOf('"', i + 1);
  while (j !== -1) {
    let backslashes = 0;
    for (let k = j - 1; text.charCodeAt(k) === Ch.Backslash; k--) backslashes++;
    if (backslashes % 2 === 0) return j;
    j = text.indexOf('"', j + 1);
  }
  return text.length;
}

/** Skips a number or literal; returns the index after it. */
function scalarEnd(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (Number.isNaN(c) || c === Ch.Comma || c === Ch.CloseBrace || c === Ch.CloseBracket ||
        c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
      return i;
    }
    i++;
  }
}

/** `i` is at `{` or `[`; returns the index after the matching close, without looking inside. */
function containerEnd(text: string, i: number): number {
  let depth = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === Ch.Quote) i = stringEnd(text, i);
    else if (c === Ch.OpenBrace || c === Ch.OpenBracket) depth++;
    else if (c === Ch.CloseBrace || c === Ch.CloseBracket) {
      depth--;
      if (depth === 0) return i + 1;
    }
    i++;
  }
  return n;
}

function framePath(stack: readonly Frame[], last: string | number): string {
  let path = '';
  const segs: (string | number | undefined)[] = stack.map((f) => f.seg);
  segs.push(last);
  for (const seg of segs) {
    if (seg === undefined) continue;
    if (typeof seg === 'number') path += `[${seg}]`;
    else path = path ? `${path}.${seg}` : seg;
  }
  return path;
}

/** Records `key` in the object frame; true when it was already there. */
function seenBefore(frame: Frame, key: string): boolean {
  if (frame.keySet) {
    if (frame.keySet.has(key)) return true;
    frame.keySet.add(key);
    return false;
  }
  const keys = (frame.keys ??= []);
  if (keys.includes(key)) return true;
  keys.push(key);
  if (keys.length > 16) {
    frame.keySet = new Set(keys);
    frame.keys = undefined;
  }
  return false;
}

/** Handles the key of an object member; returns what the member's value must be. */
function onKey(stack: Frame[], frame: Frame, key: string, out: FieldProblem[]): Expect {
  const duplicate = seenBefore(frame, key);
  const expect = frame.expect;
  if (expect.kind === 'object') {
    const field = expect.fields.get(key);
    if (!field) {
      if ((frame.isRoot || expect.typeMeta) && isTypeMetaKey(key)) {
        if (duplicate) out.push({ kind: 'duplicate', path: framePath(stack, key) });
        return OPAQUE;
      }
      // Unknown and repeated: reported once, as unknown.
      if (!frame.unknown?.has(key)) {
        (frame.unknown ??= new Set()).add(key);
        out.push({ kind: 'unknown', path: framePath(stack, key) });
      }
      return OPAQUE;
    }
    if (duplicate) out.push({ kind: 'duplicate', path: framePath(stack, key) });
    return field.schema;
  }
  if (duplicate) out.push({ kind: 'duplicate', path: framePath(stack, key) });
  return expect.kind === 'map' ? expect.values : FREE;
}

function scan(text: string, root: Expect): FieldProblem[] {
  const out: FieldProblem[] = [];
  const stack: Frame[] = [];
  const n = text.length;
  let i = skipWs(text, 0);
  let expect = root;
  let seg: string | number | undefined;

  for (;;) {
    // A value starts at i.
    const c = text.charCodeAt(i);
    const isObject = c === Ch.OpenBrace;
    if (isObject || c === Ch.OpenBracket) {
      const matches = isObject ? expect.kind === 'object' || expect.kind === 'map' || expect.kind === 'free'
        : expect.kind === 'array' || expect.kind === 'free';
      if (!matches) {
        i = containerEnd(text, i);
      } else {
        stack.push({ isArray: !isObject, expect, seg, isRoot: stack.length === 0, index: 0,
          keys: undefined, keySet: undefined, unknown: undefined });
        i = skipWs(text, i + 1);
        const close = text.charCodeAt(i);
        if (close === Ch.CloseBrace || close === Ch.CloseBracket) {
          stack.pop();
          i++;
        } else {
          const top = stack[stack.length - 1];
          if (top.isArray) {
            expect = top.expect.kind === 'array' ? top.expect.items : FREE;
            seg = 0;
            continue;
          }
          const next = readMember(text, i, stack, top, out);
          if (next === undefined) return out;
          [i, expect, seg] = next;
          continue;
        }
      }
    } else if (c === Ch.Quote) {
      i = stringEnd(text, i) + 1;
    } else {
      const end = scalarEnd(text, i);
      if (end === i) return out; // malformed: never loop without progress
      i = end;
    }

    // After a value: close finished containers, then move to the next member or item.
    for (;;) {
      if (stack.length === 0) return out;
      i = skipWs(text, i);
      if (i >= n) return out;
      const top = stack[stack.length - 1];
      const ch = text.charCodeAt(i);
      if (ch === Ch.Comma) {
        i = skipWs(text, i + 1);
        if (top.isArray) {
          top.index++;
          expect = top.expect.kind === 'array' ? top.expect.items : FREE;
          seg = top.index;
        } else {
          const next = readMember(text, i, stack, top, out);
          if (next === undefined) return out;
          [i, expect, seg] = next;
        }
        break;
      }
      if (ch !== Ch.CloseBrace && ch !== Ch.CloseBracket) return out;
      stack.pop();
      i++;
    }
  }
}

/** Reads `"key":` at i; returns the index of the value, what it must be, and its path segment. */
function readMember(text: string, i: number, stack: Frame[], top: Frame, out: FieldProblem[]):
  [number, Expect, string] | undefined {
  if (text.charCodeAt(i) !== Ch.Quote) return undefined;
  const end = stringEnd(text, i);
  let key = text.slice(i + 1, end);
  // Decoded as the body was: escapes resolved, a lone surrogate made U+FFFD.
  if (key.includes('\\')) key = replaceLoneSurrogates(JSON.parse(text.slice(i, end + 1)) as string);
  i = skipWs(text, end + 1);
  if (text.charCodeAt(i) !== Ch.Colon) return undefined;
  const expect = onKey(stack, top, key, out);
  return [skipWs(text, i + 1), expect, key];
}

/**
 * Paths of keys that appear more than once in the same JSON object, anywhere in the text, in document
 * order (`metadata.name`, `spec.containers[0].image`, `metadata.labels.app`). One linear pass; meant for
 * every write, so it allocates nothing per key beyond a small array per object. Schema-free: it also looks
 * inside embedded raw JSON; use `findFieldProblems` for the typed view.
 */
export function findDuplicateFields(jsonText: string): string[] {
  return scan(jsonText, FREE).map((p) => p.path);
}

/**
 * Unknown and duplicate fields of a JSON body in document order, as kube-apiserver's strict decoder
 * reports them, from one pass over the text (run it beside `JSON.parse`, not instead of it).
 * For bodies that were not JSON (YAML, CBOR) use `findUnknownFields` on the decoded object.
 */
export function findFieldProblems(schema: ObjectSchema, jsonText: string): FieldProblem[] {
  return scan(jsonText, schema);
}

/**
 * `unknown field "spec.foo"` / `duplicate field "metadata.name"`: the text of a warning or of a strict error
 * item. The path is quoted as Go's strconv.Quote does (control characters escaped, other text as it is).
 */
export function fieldProblemText(p: FieldProblem): string {
  return `${p.kind} field ${goQuote(p.path)}`;
}

/** `strict decoding error: unknown field "spec.foo", duplicate field "metadata.name"` */
export function strictDecodingMessage(problems: readonly (FieldProblem | string)[]): string {
  const items = problems.map((p) => (typeof p === 'string' ? p : fieldProblemText(p)));
  return `strict decoding error: ${items.join(', ')}`;
}

/**
 * The 400 BadRequest a Strict request fails with. `kind`/`version` name what the body declared;
 * `intoKind` is the kind of the endpoint.
 */
export function strictDecodingError(kind: string, version: string, intoKind: string,
  problems: readonly (FieldProblem | string)[]): ApiError {
  return badRequest(`${kind} in version ${JSON.stringify(version)} cannot be handled as a ${intoKind}: ` +
    strictDecodingMessage(problems));
}

/**
 * Reads the `fieldValidation` query parameter. Absent or empty means Warn for kube-apiserver 1.27+
 * (the default became Warn when the feature went GA). Returns undefined for an invalid value.
 */
export function parseFieldValidation(value: string | null | undefined): FieldValidationDirective | undefined {
  if (value === undefined || value === null || value === '') return 'Warn';
  return value === 'Ignore' || value === 'Warn' || value === 'Strict' ? value : undefined;
}
