/**
 * Lone UTF-16 surrogates. JSON text can spell them (`"\ud800"`), JavaScript strings can hold them,
 * but they are not Unicode text: PostgreSQL refuses them in jsonb and Node in headers. Go's decoder
 * turns each one into U+FFFD, in keys as in values, and so do we, once, where a body is decoded.
 * (Raw bytes that are not UTF-8 never get this far: decoding a body to text already replaces them.)
 */

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/** Whether JSON text has a `\u` escape in the surrogate range, the only way a lone surrogate gets in. */
export function mayHaveEscapedSurrogate(jsonText: string): boolean {
  return /\\u[dD][89a-fA-F]/.test(jsonText);
}

export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

/** The text with each lone surrogate replaced by U+FFFD, as Go's encoding/json does. */
export function replaceLoneSurrogates(text: string): string {
  return hasLoneSurrogate(text) ? text.replace(LONE_SURROGATES, '\ufffd') : text;
}

type Container = unknown[] | Record<string, unknown>;

function isContainer(value: unknown): value is Container {
  return typeof value === 'object' && value !== null;
}

/**
 * Replaces lone surrogates in every string and key of a decoded JSON value (in place where it can;
 * returns the value to use). Iterative: the value may nest as deep as the decoder allows.
 */
export function replaceLoneSurrogatesDeep(value: unknown): unknown {
  if (typeof value === 'string') return replaceLoneSurrogates(value);
  if (!isContainer(value)) return value;
  const work: Container[] = [value];
  while (work.length > 0) {
    const node = work.pop()!;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const item = node[i];
        if (typeof item === 'string') node[i] = replaceLoneSurrogates(item);
        else if (isContainer(item)) work.push(item);
      }
      continue;
    }
    const keys = Object.keys(node);
    const rename = keys.some(hasLoneSurrogate);
    const entries = keys.map((k) => [k, node[k]] as [string, unknown]);
    if (rename) for (const k of keys) delete node[k];
    for (const [k, item] of entries) {
      const fixed = typeof item === 'string' ? replaceLoneSurrogates(item) : item;
      if (isContainer(item)) work.push(item);
      if (rename) {
        // As Go's decoder: a key that now repeats an earlier one replaces its value.
        Object.defineProperty(node, replaceLoneSurrogates(k), { value: fixed, writable: true, enumerable: true, configurable: true });
      } else if (fixed !== item) {
        node[k] = fixed;
      }
    }
  }
  return value;
}

/** Whether any string or key of a decoded value holds a lone surrogate (iterative). */
export function containsLoneSurrogate(value: unknown): boolean {
  const work: unknown[] = [value];
  while (work.length > 0) {
    const node = work.pop();
    if (typeof node === 'string') {
      if (hasLoneSurrogate(node)) return true;
    } else if (Array.isArray(node)) {
      for (const item of node) work.push(item);
    } else if (isContainer(node)) {
      for (const [k, item] of Object.entries(node)) {
        if (hasLoneSurrogate(k)) return true;
        work.push(item);
      }
    }
  }
  return false;
}
