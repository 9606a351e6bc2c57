/**
 * RFC 6902 JSON Patch as mutating webhooks send it, applied the way upstream's json-patch library
 * (evanphx v4) applies it, with its error texts (`add operation does not apply: doc is missing path:
 * "/metadata/labels/x": missing value`). Works on a copy; the input is never changed.
 */
import { cloneJson } from '../../api/types.ts';

type Json = unknown;
type Container = Record<string, Json> | Json[];

export class PatchError extends Error {}

/** Decodes a patch's bytes (jsonpatch.DecodePatch): a JSON array of operations. */
export function decodePatch(bytes: Buffer): Record<string, unknown>[] {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    const text = bytes.toString('utf8').trimStart();
    throw new PatchError(text === '' ? 'unexpected end of JSON input' : `invalid character '${text[0]}' looking for beginning of value`);
  }
  if (!Array.isArray(value)) {
    const got = value === null ? 'null' : typeof value === 'object' ? 'object' : typeof value === 'string' ? 'string' : typeof value === 'number' ? 'number' : 'bool';
    if (got === 'null') return [];
    throw new PatchError(`json: cannot unmarshal ${got} into Go value of type jsonpatch.Patch`);
  }
  return value.map((op, i) => {
    if (!op || typeof op !== 'object' || Array.isArray(op)) throw new PatchError(`json: cannot unmarshal ${Array.isArray(op) ? 'array' : typeof op} into Go value of type jsonpatch.Operation (element ${i})`);
    return op as Record<string, unknown>;
  });
}

function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new PatchError(`Unable to parse pointer ${pointer}`);
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The container holding the pointer's last segment, and that segment; undefined when a parent is missing. */
function parentOf(doc: Json, parts: string[]): { parent: Container; key: string } | undefined {
  let cur: Json = doc;
  for (const part of parts.slice(0, -1)) {
    if (Array.isArray(cur)) {
      const i = arrayIndex(part, cur.length - 1);
      if (i === undefined) return undefined;
      cur = cur[i];
    } else if (cur && typeof cur === 'object') {
      if (!Object.hasOwn(cur, part)) return undefined;
      cur = (cur as Record<string, Json>)[part];
    } else {
      return undefined;
    }
  }
  if (!cur || typeof cur !== 'object') return undefined;
  return { parent: cur as Container, key: parts[parts.length - 1]! };
}

function arrayIndex(part: string, max: number): number | undefined {
  if (!/^(0|[1-9][0-9]*)$/.test(part)) return undefined;
  const i = Number(part);
  return i <= max ? i : undefined;
}

function getAt(doc: Json, pointer: string): { found: boolean; value?: Json } {
  const parts = parsePointer(pointer);
  if (parts.length === 0) return { found: true, value: doc };
  const p = parentOf(doc, parts);
  if (!p) return { found: false };
  if (Array.isArray(p.parent)) {
    const i = arrayIndex(p.key, p.parent.length - 1);
    return i === undefined ? { found: false } : { found: true, value: p.parent[i] };
  }
  return Object.hasOwn(p.parent, p.key) ? { found: true, value: p.parent[p.key] } : { found: false };
}

function add(doc: Json, pointer: string, value: Json, op = 'add'): Json {
  const parts = parsePointer(pointer);
  if (parts.length === 0) return value;
  const p = parentOf(doc, parts);
  if (!p) throw new PatchError(`${op} operation does not apply: doc is missing path: "${pointer}": missing value`);
  if (Array.isArray(p.parent)) {
    if (p.key === '-') p.parent.push(value);
    else {
      const i = /^(0|[1-9][0-9]*)$/.test(p.key) ? Number(p.key) : NaN;
      if (!(i >= 0 && i <= p.parent.length)) throw new PatchError(`Unable to access invalid index: ${p.key}: invalid index referenced`);
      p.parent.splice(i, 0, value);
    }
  } else {
    p.parent[p.key] = value;
  }
  return doc;
}

function remove(doc: Json, pointer: string, op = 'remove'): { doc: Json; value: Json } {
  const parts = parsePointer(pointer);
  const p = parts.length ? parentOf(doc, parts) : undefined;
  const missing = () => new PatchError(`${op} operation does not apply: doc is missing path: "${pointer}": missing value`);
  if (!p) throw missing();
  if (Array.isArray(p.parent)) {
    const i = arrayIndex(p.key, p.parent.length - 1);
    if (i === undefined) throw missing();
    return { doc, value: p.parent.splice(i, 1)[0] };
  }
  if (!Object.hasOwn(p.parent, p.key)) throw missing();
  const value = p.parent[p.key];
  delete p.parent[p.key];
  return { doc, value };
}

/** Deep equality of JSON values (for `test`). */
function equal(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as Json[]).length && a.every((v, i) => equal(v, (b as Json[])[i]));
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b as object, k) && equal((a as Record<string, Json>)[k], (b as Record<string, Json>)[k]));
}

/** Applies the operations in order to a copy of `doc`; throws a PatchError on the first that does not apply. */
export function applyPatch<T>(doc: T, operations: readonly Record<string, unknown>[]): T {
  let out: Json = cloneJson(doc);
  for (const op of operations) {
    const kind = typeof op.op === 'string' ? op.op : '';
    const path = typeof op.path === 'string' ? op.path : undefined;
    if (path === undefined) throw new PatchError(`${kind} operation missing path field`);
    switch (kind) {
      case 'add':
        out = add(out, path, cloneJson(op.value));
        break;
      case 'remove':
        out = remove(out, path).doc;
        break;
      case 'replace': {
        const found = getAt(out, path);
        if (!found.found) throw new PatchError(`replace operation does not apply: doc is missing key: ${path}: missing value`);
        if (parsePointer(path).length === 0) out = cloneJson(op.value);
        else {
          const p = parentOf(out, parsePointer(path))!;
          if (Array.isArray(p.parent)) p.parent[Number(p.key)] = cloneJson(op.value);
          else p.parent[p.key] = cloneJson(op.value);
        }
        break;
      }
      case 'move':
      case 'copy': {
        const from = typeof op.from === 'string' ? op.from : '';
        const found = getAt(out, from);
        if (!found.found) throw new PatchError(`${kind} operation does not apply: doc is missing from path: ${from}: missing value`);
        if (kind === 'move') out = remove(out, from, 'move').doc;
        out = add(out, path, cloneJson(found.value), kind);
        break;
      }
      case 'test': {
        const found = getAt(out, path);
        if (!found.found ? op.value !== null && op.value !== undefined : !equal(found.value, op.value)) throw new PatchError(`testing value ${path} failed: test failed`);
        break;
      }
      default:
        throw new PatchError(`Unexpected kind: ${kind}`);
    }
  }
  return out as T;
}
