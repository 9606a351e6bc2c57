import * as jsyaml from 'js-yaml';

/**
 * YAML in and out, shaped like the real server's YAML: it converts YAML to JSON on the way in,
 * and writes JSON as YAML with sorted keys, 2-space indent and list items at the parent's
 * indentation on the way out.
 */

// Timestamps, binary and sets are not JSON values: the core schema plus `<<` merge keys reads
// YAML the way the YAML-to-JSON conversion does (a timestamp stays a string).
const mergeType = (jsyaml as unknown as { types: { merge: jsyaml.Type } }).types.merge;
const LOAD_SCHEMA = jsyaml.CORE_SCHEMA.extend({ implicit: [mergeType] });

/** Thrown for input that is not a single YAML document of JSON-compatible values. */
export class YamlDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'YamlDecodeError';
  }
}

/**
 * Parses one YAML document into a JSON value. An empty document is `null`.
 * Duplicate keys keep the last value (strict field validation reports duplicates elsewhere).
 *
 * @throws YamlDecodeError with a message like `yaml: line 3: bad indentation of a mapping entry`.
 */
export function parseYaml(text: string): unknown {
  let docs: unknown[];
  try {
    docs = jsyaml.loadAll(text, null, { schema: LOAD_SCHEMA, json: true });
  } catch (err) {
    if (err instanceof jsyaml.YAMLException) {
      const line = err.mark ? `line ${err.mark.line + 1}: ` : '';
      throw new YamlDecodeError(`yaml: ${line}${err.reason}`);
    }
    throw err;
  }
  if (docs.length > 1) throw new YamlDecodeError('yaml: expected a single document in the stream');
  const doc = docs.length === 0 ? null : docs[0];
  checkJsonCompatible(doc);
  return doc ?? null;
}

function checkJsonCompatible(value: unknown): void {
  if (typeof value === 'number' && !Number.isFinite(value)) {
    throw new YamlDecodeError(`json: unsupported value: ${value > 0 ? '+Inf' : value < 0 ? '-Inf' : 'NaN'}`);
  }
  if (Array.isArray(value)) {
    for (const v of value) checkJsonCompatible(v);
  } else if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) checkJsonCompatible(v);
  }
}

/** Writes a JSON value as YAML: sorted keys, no references, no line folding. */
export function dumpYaml(value: unknown): string {
  return jsyaml.dump(value, {
    sortKeys: true,
    noRefs: true,
    lineWidth: -1,
    noArrayIndent: true,
    quotingType: '"',
    skipInvalid: true,
  });
}
