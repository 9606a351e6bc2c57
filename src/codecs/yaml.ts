import * as jsyaml from 'js-yaml';
import { checkExpansion, ExcessiveAliasingError, ExpandedTooLargeError, NonFiniteNumberError } from './yaml-expansion.ts';

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

/** Thrown for a document whose expansion (aliases, merge keys) is larger than allowed. */
export class YamlTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the decoded YAML document is larger than ${limit} bytes`);
    this.name = 'YamlTooLargeError';
  }
}

export interface ParseYamlOptions {
  /**
   * The most bytes of JSON text the decoded value may expand to (the request size limit). Default:
   * no limit beyond the alias budget.
   */
  readonly maxBytes?: number;
}

/**
 * Parses one YAML document into a JSON value. An empty document is `null`.
 * Duplicate keys keep the last value (strict field validation reports duplicates elsewhere).
 * Aliases are bounded as upstream bounds them (see yaml-expansion.ts), and the value returned is a
 * tree: an aliased node is copied, so changing one place never changes another.
 *
 * @throws YamlDecodeError with a message like `yaml: line 3: bad indentation of a mapping entry`,
 *   or `yaml: document contains excessive aliasing`.
 * @throws YamlTooLargeError when the decoded value passes `maxBytes`.
 */
export function parseYaml(text: string, options: ParseYamlOptions = {}): unknown {
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
  let shared: boolean;
  try {
    ({ shared } = checkExpansion(doc, options.maxBytes ?? Number.MAX_SAFE_INTEGER));
  } catch (err) {
    if (err instanceof ExcessiveAliasingError || err instanceof NonFiniteNumberError) throw new YamlDecodeError(err.message);
    if (err instanceof ExpandedTooLargeError) throw new YamlTooLargeError(err.limit);
    throw err;
  }
  // Within the budgets, so the copy is bounded too.
  return shared ? (JSON.parse(JSON.stringify(doc)) as unknown) : (doc ?? null);
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
