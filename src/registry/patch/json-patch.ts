/**
 * JSON Patch (RFC 6902, `application/json-patch+json`) with kube-apiserver's semantics.
 *
 * The apiserver decodes the body as a list of operations (400 BadRequest with Go's decoder message when
 * it is not one; `null` is an empty list), refuses more than 10000 operations (413), then applies them
 * with evanphx/json-patch v4. Any operation that does not apply makes the whole patch fail with the same
 * 422 Invalid, whatever the cause. The library's quirks are kept where they decide success or failure:
 * negative array indices count from the end, `replace` of a missing object key adds it, `test` of a
 * missing key passes only against `null`, `copy` of a missing object key copies `null`, and copies may
 * add at most 3 MiB in total (the apiserver's JSONPatchMaxCopyBytes).
 *
 * Each operation is resolved here and then carried out by fast-json-patch on the resolved pointer.
 */
import jsonpatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import { arrayIndex, findContainer, pointerTo } from './json-patch-target.ts';
import { cloneJson, hasKey, isJsonObject, jsonEqual, jsonKind, ownValue, type JsonObject, type JsonValue } from './json-value.ts';
import {
  MAX_JSON_PATCH_OPERATIONS,
  patchRejected,
  tooManyOperations,
  undecodablePatch,
  undecodableResult,
} from './patch-errors.ts';

/** The most bytes `copy` operations may add to a document (kube-apiserver's default JSONPatchMaxCopyBytes). */
export const MAX_COPY_BYTES = 3 * 1024 * 1024;

/** Why one operation does not apply, worded like the library upstream. */
class NotApplied extends Error {}

type Op = JsonObject | null;

function decodeOperations(patch: unknown): Op[] {
  if (patch === null || patch === undefined) return [];
  if (!Array.isArray(patch)) throw undecodablePatch(jsonKind(patch), 'jsonpatch.Patch');
  for (const op of patch) {
    if (op !== null && !isJsonObject(op)) throw undecodablePatch(jsonKind(op), 'jsonpatch.Operation');
  }
  return cloneJson(patch as Op[]);
}

function stringField(op: Op, kind: string, name: 'path' | 'from'): string {
  const v = op ? ownValue(op, name) : undefined;
  if (typeof v !== 'string') throw new NotApplied(`${kind} operation failed to decode ${name}: missing value`);
  return v;
}

function run(doc: JsonValue, operation: Operation): void {
  jsonpatch.applyOperation(doc, operation, true, true);
}

/** The element index `key` names in an array (for reading, replacing or removing). */
function existingIndex(list: JsonValue[], key: string, path: string, verb: string): number {
  const i = arrayIndex(key, list.length);
  if (i === undefined) throw new NotApplied(`error in ${verb} for path: '${path}': Unable to access invalid index: ${key}: invalid index referenced`);
  return i;
}

function add(doc: JsonValue, path: string, value: JsonValue, missing: string): void {
  const t = findContainer(doc, path);
  if (!t) throw new NotApplied(`${missing}: missing value`);
  const c = t.container;
  if (!Array.isArray(c)) return run(doc, { op: 'add', path: pointerTo(t, t.key), value });
  const i = t.key === '-' ? c.length : arrayIndex(t.key, c.length, true);
  if (i === undefined) throw new NotApplied(`error in add for path: '${path}': Unable to access invalid index: ${t.key}: invalid index referenced`);
  run(doc, { op: 'add', path: pointerTo(t, i), value });
}

/** Removes and returns the value at `path`. */
function remove(doc: JsonValue, path: string, missing: string): JsonValue {
  const t = findContainer(doc, path);
  if (!t) throw new NotApplied(`${missing}: missing value`);
  const c = t.container;
  if (Array.isArray(c)) {
    const i = existingIndex(c, t.key, path, 'remove');
    const value = c[i];
    run(doc, { op: 'remove', path: pointerTo(t, i) });
    return value;
  }
  if (!hasKey(c, t.key)) {
    throw new NotApplied(`error in remove for path: '${path}': Unable to remove nonexistent key: ${t.key}: missing value`);
  }
  const value = c[t.key];
  run(doc, { op: 'remove', path: pointerTo(t, t.key) });
  return value;
}

/** The value at `path` (a missing object key reads as null), for `test` and `copy`. */
function read(doc: JsonValue, path: string, missing: string, verb: string): JsonValue {
  const t = findContainer(doc, path);
  if (!t) throw new NotApplied(`${missing}: missing value`);
  const c = t.container;
  if (Array.isArray(c)) return c[existingIndex(c, t.key, path, verb)];
  return ownValue(c, t.key) ?? null;
}

function replace(doc: JsonValue, path: string, value: JsonValue): JsonValue {
  if (path === '') {
    if (typeof value !== 'object' || value === null) throw new NotApplied('replace operation value must be object or array');
    return value;
  }
  const t = findContainer(doc, path);
  if (!t) throw new NotApplied(`replace operation does not apply: doc is missing path: ${path}: missing value`);
  const c = t.container;
  if (Array.isArray(c)) {
    run(doc, { op: 'replace', path: pointerTo(t, existingIndex(c, t.key, path, 'replace')), value });
  } else {
    run(doc, { op: hasKey(c, t.key) ? 'replace' : 'add', path: pointerTo(t, t.key), value });
  }
  return doc;
}

function test(doc: JsonValue, path: string, value: JsonValue): void {
  const actual = path === '' ? doc : read(doc, path, `test operation does not apply: is missing path: ${path}`, 'test');
  if (!jsonEqual(actual ?? null, value)) throw new NotApplied(`testing value ${path} failed: test failed`);
}

function byteSize(value: JsonValue): number {
  return value === null ? 0 : Buffer.byteLength(JSON.stringify(value));
}

/** Applies the operations in order to a copy of `doc`; returns the patched copy. */
function applyOperations(doc: JsonValue, ops: Op[]): JsonValue {
  let copied = 0;
  for (const op of ops) {
    const kind = op && typeof op['op'] === 'string' ? op['op'] : 'unknown';
    const value = op && hasKey(op, 'value') ? op['value'] : null;
    switch (kind) {
      case 'add': {
        const path = stringField(op, kind, 'path');
        add(doc, path, value, `add operation does not apply: doc is missing path: "${path}"`);
        break;
      }
      case 'remove': {
        const path = stringField(op, kind, 'path');
        remove(doc, path, `remove operation does not apply: doc is missing path: "${path}"`);
        break;
      }
      case 'replace':
        doc = replace(doc, stringField(op, kind, 'path'), value);
        break;
      case 'test':
        test(doc, stringField(op, kind, 'path'), value);
        break;
      case 'move': {
        const from = stringField(op, kind, 'from');
        const moved = remove(doc, from, `move operation does not apply: doc is missing from path: ${from}`);
        const path = stringField(op, kind, 'path');
        add(doc, path, moved, `move operation does not apply: doc is missing destination path: ${path}`);
        break;
      }
      case 'copy': {
        const from = stringField(op, kind, 'from');
        const source = read(doc, from, `copy operation does not apply: doc is missing from path: ${from}`, 'copy');
        const path = stringField(op, kind, 'path');
        copied += byteSize(source);
        if (copied > MAX_COPY_BYTES) {
          throw new NotApplied(
            `Unable to complete the copy, the accumulated size increase of copy is ${copied}, exceeding the limit ${MAX_COPY_BYTES}`,
          );
        }
        add(doc, path, cloneJson(source), `copy operation does not apply: doc is missing destination path: ${path}`);
        break;
      }
      default:
        throw new NotApplied(`Unexpected kind: ${kind}`);
    }
  }
  return doc;
}

/**
 * Applies an RFC 6902 JSON patch to a copy of `current`.
 * @throws ApiError 400 when the body is not a list of operations, 413 past 10000 operations,
 *   422 when an operation does not apply or the result is not an object.
 */
export function applyJsonPatch(current: object, patch: unknown): JsonObject {
  const ops = decodeOperations(patch);
  if (ops.length > MAX_JSON_PATCH_OPERATIONS) throw tooManyOperations(ops.length);
  let result: JsonValue;
  try {
    result = applyOperations(cloneJson(current) as JsonObject, ops);
  } catch (err) {
    // Our own NotApplied, fast-json-patch's JsonPatchError, or its TypeError for `__proto__`.
    throw patchRejected(err instanceof jsonpatch.JsonPatchError ? `${err.name}: ${err.message.split('\n')[0]}` : String((err as Error).message));
  }
  if (!isJsonObject(result)) throw undecodableResult(result);
  return result;
}
