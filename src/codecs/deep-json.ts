import { badRequest } from '../api/errors.ts';

/**
 * JSON values nested deeper than the JavaScript stack allows. Decoders accept up to
 * MAX_JSON_DEPTH levels (upstream's limit), and V8's own recursive JSON.stringify and
 * structuredClone give up at a few thousand: these helpers do the same work with an explicit
 * stack, and take the fast built-in path whenever it works.
 */

/** Go's encoding/json (and so kube-apiserver) refuses documents nested deeper than this. */
export const MAX_JSON_DEPTH = 10_000;

type Frame =
  | { readonly kind: 'array'; readonly value: readonly unknown[]; index: number }
  | { readonly kind: 'object'; readonly value: Record<string, unknown>; readonly keys: string[]; index: number; wrote: boolean };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON.stringify for plain JSON data of any depth (no toJSON, no replacer, no indent). */
export function stringifyJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    return stringifyIteratively(value);
  }
}

function scalar(value: unknown): string | undefined {
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return undefined;
  return JSON.stringify(value);
}

function stringifyIteratively(root: unknown): string {
  const out: string[] = [];
  const stack: Frame[] = [];
  // Writes one value: scalars at once, containers by pushing a frame. Returns false for undefined.
  const open = (value: unknown): boolean => {
    if (Array.isArray(value)) {
      out.push('[');
      stack.push({ kind: 'array', value, index: 0 });
      return true;
    }
    if (isRecord(value)) {
      out.push('{');
      stack.push({ kind: 'object', value, keys: Object.keys(value), index: 0, wrote: false });
      return true;
    }
    const text = scalar(value);
    if (text === undefined) return false;
    out.push(text);
    return true;
  };
  if (!open(root)) return undefined as unknown as string;
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.kind === 'array') {
      if (top.index >= top.value.length) {
        out.push(']');
        stack.pop();
        continue;
      }
      if (top.index > 0) out.push(',');
      const item = top.value[top.index++];
      if (!open(item)) out.push('null');
      continue;
    }
    if (top.index >= top.keys.length) {
      out.push('}');
      stack.pop();
      continue;
    }
    const key = top.keys[top.index++]!;
    const item = top.value[key];
    // Members whose value JSON leaves out (undefined, functions) are skipped, as JSON.stringify does.
    if (!Array.isArray(item) && !isRecord(item) && scalar(item) === undefined) continue;
    out.push(`${top.wrote ? ',' : ''}${JSON.stringify(key)}:`);
    top.wrote = true;
    open(item);
  }
  return out.join('');
}

/** A deep copy of plain JSON data of any depth (structuredClone's result, without its stack limit). */
export function cloneJson<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  const root: unknown = Array.isArray(value) ? [] : {};
  const work: [unknown, unknown][] = [[value, root]];
  while (work.length > 0) {
    const [from, to] = work.pop()!;
    if (Array.isArray(from)) {
      const target = to as unknown[];
      for (const item of from) {
        const copy = item !== null && typeof item === 'object' ? (Array.isArray(item) ? [] : {}) : item;
        target.push(copy);
        if (copy !== item) work.push([item, copy]);
      }
      continue;
    }
    const target = to as Record<string, unknown>;
    for (const [k, item] of Object.entries(from as Record<string, unknown>)) {
      const copy = item !== null && typeof item === 'object' ? (Array.isArray(item) ? [] : {}) : item;
      // defineProperty: a key named __proto__ stays an own property, as JSON.parse makes it.
      if (k === '__proto__') Object.defineProperty(target, k, { value: copy, writable: true, enumerable: true, configurable: true });
      else target[k] = copy;
      if (copy !== item) work.push([item, copy]);
    }
  }
  return root as T;
}

/** How deep a JSON value nests (a scalar is 0, `[]` is 1), counting no further than `stopAt`. */
export function jsonDepth(value: unknown, stopAt = Number.POSITIVE_INFINITY): number {
  if (value === null || typeof value !== 'object') return 0;
  let max = 0;
  const work: [unknown, number][] = [[value, 1]];
  while (work.length > 0) {
    const [v, d] = work.pop()!;
    if (d > max) max = d;
    if (max >= stopAt) return max;
    const children = Array.isArray(v) ? v : Object.values(v as Record<string, unknown>);
    for (const c of children) if (c !== null && typeof c === 'object') work.push([c, d + 1]);
  }
  return max;
}

/**
 * How deep an object this server keeps or patches. The JSON decoder takes MAX_JSON_DEPTH levels as
 * upstream's does, and fields it does not know are dropped before this check; what is left (free-form
 * fields such as managedFields[].fieldsV1, patches) goes through recursive code (patching, encoders,
 * V8's JSON.stringify and structuredClone) that the JavaScript stack bounds to a few thousand levels.
 * No Kubernetes object comes near this.
 */
export const MAX_OBJECT_DEPTH = 1_000;

/** 400 for a decoded object or patch nested deeper than MAX_OBJECT_DEPTH (checked without recursion). */
export function assertObjectDepth(value: unknown, what: 'object' | 'patch'): void {
  if (jsonDepth(value, MAX_OBJECT_DEPTH + 1) > MAX_OBJECT_DEPTH) {
    throw badRequest(`the ${what} is nested more than ${MAX_OBJECT_DEPTH} levels deep, more than this server keeps`);
  }
}
