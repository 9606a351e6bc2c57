import * as jsyaml from 'js-yaml';
import { goQuote } from '../api/go/quote.ts';

/**
 * Mapping keys JSON cannot have. Upstream converts YAML to JSON with sigs.k8s.io/yaml, which turns
 * scalar keys (strings, numbers, booleans) into strings and refuses any other key (a sequence, a
 * mapping, null) with `unsupported map key of type: …`. js-yaml instead stringifies such keys
 * (`[object Object]`, `a,b`, `null`), so they are found here, on a second pass over a document that
 * already parsed, from js-yaml's node events: a collection or null node is a key when it follows an
 * explicit `?` indicator or is followed by `:`.
 */

const LOAD_SCHEMA = jsyaml.CORE_SCHEMA;

interface NodeState {
  readonly position: number;
  readonly kind: string | null;
  readonly tag: string | null;
  readonly result: unknown;
}

/** Go's `%#v`-style rendering of a decoded YAML value, enough for the error text. */
function goValue(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[]interface {}{${value.map(goValue).join(', ')}}`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).map(([k, v]) => `${JSON.stringify(k)}:${goValue(v)}`);
    return `map[interface {}]interface {}{${entries.join(', ')}}`;
  }
  return String(value);
}

function goType(value: unknown): string {
  if (value === null || value === undefined) return '%!s(<nil>)';
  if (Array.isArray(value)) return '[]interface {}';
  return 'map[interface {}]interface {}';
}

function isKeyPosition(text: string, start: number, end: number): boolean {
  let i = end;
  while (i < text.length && (text[i] === ' ' || text[i] === '\t')) i++;
  if (text[i] === ':') return true;
  let j = start - 1;
  while (j >= 0 && (text[j] === ' ' || text[j] === '\t')) j--;
  return text[j] === '?' && (j === 0 || ' \t\n\r{[,'.includes(text[j - 1]!));
}

/** The error upstream's YAML-to-JSON conversion gives for the first non-string key, or undefined. */
export function unsupportedYamlKey(text: string): string | undefined {
  const starts: number[] = [];
  let found: string | undefined;
  try {
    jsyaml.loadAll(text, () => undefined, {
      schema: LOAD_SCHEMA,
      json: true,
      listener(event: jsyaml.EventType, raw: jsyaml.State) {
        // js-yaml's State type leaves out the node fields it carries.
        const state = raw as unknown as NodeState;
        if (event === 'open') {
          starts.push(state.position);
          return;
        }
        const start = starts.pop() ?? 0;
        if (found !== undefined) return;
        const complex = state.kind === 'mapping' || state.kind === 'sequence';
        const isNull = state.kind === 'scalar' && state.tag === 'tag:yaml.org,2002:null';
        if ((complex || isNull) && isKeyPosition(text, start, state.position)) {
          found = `unsupported map key of type: ${goType(state.result)}, key: ${goValue(state.result)}`;
        }
      },
    });
  } catch {
    return undefined;
  }
  return found;
}

/** The 1-based line of each offset of `text`, found by binary search over the line starts. */
function lineFinder(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

/**
 * The duplicate mapping keys of a YAML document, in document order, as upstream's strict YAML
 * decoding (yaml.v2) reports them: `line 10: key "paused" already set in map` (the line of the
 * repeated key; the key printed with %#v, so strings quoted and numbers and booleans bare). JSON
 * decoding of the same body keeps the last value; these are the field-validation problems.
 */
export function duplicateYamlKeys(text: string): string[] {
  const frames: { start: number; keys: Set<string> }[] = [];
  const found: string[] = [];
  const lineOf = lineFinder(text);
  try {
    jsyaml.loadAll(text, () => undefined, {
      schema: LOAD_SCHEMA,
      json: true,
      listener(event: jsyaml.EventType, raw: jsyaml.State) {
        const state = raw as unknown as NodeState;
        if (event === 'open') {
          frames.push({ start: state.position, keys: new Set() });
          return;
        }
        const frame = frames.pop();
        const parent = frames[frames.length - 1];
        if (!frame || !parent || state.kind !== 'scalar' || !isKeyPosition(text, frame.start, state.position)) return;
        const key = state.result;
        const identity = `${typeof key}:${String(key)}`;
        if (parent.keys.has(identity)) {
          // The scalar may start after spaces the node's start includes.
          let at = frame.start;
          while (at < text.length && ' \t\n\r'.includes(text[at]!)) at++;
          found.push(`line ${lineOf(at)}: key ${typeof key === 'string' ? goQuote(key) : String(key)} already set in map`);
        }
        parent.keys.add(identity);
      },
    });
  } catch {
    return [];
  }
  return found;
}
