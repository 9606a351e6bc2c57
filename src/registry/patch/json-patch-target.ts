/**
 * Resolving an RFC 6901 pointer the way kube-apiserver's JSON patch library (evanphx/json-patch v4) does:
 * every token but the last must name an existing object or array, array tokens are base-10 integers
 * where negative ones count from the end, and a JSON null along the way counts as missing.
 */
import jsonpatch from 'fast-json-patch';
import { isJsonObject, ownValue, type JsonObject, type JsonValue } from './json-value.ts';

/** The container a pointer ends in, its last token, and the container's pointer with indices resolved. */
export interface PatchTarget {
  readonly container: JsonObject | JsonValue[];
  readonly key: string;
  /** Unescaped tokens from the root to the container, negative indices already resolved. */
  readonly trail: readonly string[];
}

/**
 * An index into an array of `length` elements, negative ones counting from the end, or undefined when the
 * token is not an integer or out of range. `forAdd` allows the position just past the end.
 */
export function arrayIndex(token: string, length: number, forAdd = false): number | undefined {
  if (!/^[+-]?\d+$/.test(token)) return undefined;
  let i = Number(token);
  const size = forAdd ? length + 1 : length;
  if (i < 0) {
    if (i < -size) return undefined;
    i += size;
  }
  return i < size ? i : undefined;
}

/** The container that `path` points into, or undefined when a step on the way is missing. */
export function findContainer(doc: JsonValue, path: string): PatchTarget | undefined {
  const tokens = path.split('/');
  if (tokens.length < 2) return undefined;
  let node: JsonValue = doc;
  const trail: string[] = [];
  for (const raw of tokens.slice(1, -1)) {
    const token = jsonpatch.unescapePathComponent(raw);
    let next: JsonValue | undefined;
    if (Array.isArray(node)) {
      const i = arrayIndex(token, node.length);
      if (i === undefined) return undefined;
      next = node[i];
      trail.push(String(i));
    } else if (isJsonObject(node)) {
      next = ownValue(node, token);
      trail.push(token);
    } else {
      return undefined;
    }
    if (next === undefined || next === null || typeof next !== 'object') return undefined;
    node = next;
  }
  if (typeof node !== 'object' || node === null) return undefined;
  return { container: node, key: jsonpatch.unescapePathComponent(tokens[tokens.length - 1]), trail };
}

/** The escaped pointer to `key` (a resolved index for arrays) inside the target's container. */
export function pointerTo(target: PatchTarget, key: string | number): string {
  return '/' + [...target.trail, String(key)].map((t) => jsonpatch.escapePathComponent(t)).join('/');
}
