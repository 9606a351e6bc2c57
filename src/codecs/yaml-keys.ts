import * as jsyaml from 'js-yaml';

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
