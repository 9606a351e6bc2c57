/**
 * A rule's `fieldPath` checked against the schema of the rule's node (validation.go's
 * ValidFieldPath): a JSON path of field accessors only, `.name` or `['name']` (single-quoted,
 * with `\'`, `\\` and the usual control escapes), each naming a property of the object reached so
 * far or any key of a map (additionalProperties). The result is the path in field-error form:
 * `.spec['a.b'].x` → `spec[a.b].x` for a map, `spec.a.b.x`-like children for properties.
 */
import { FieldPath } from '../../registry/validation/field.ts';
import type { Structural } from '../schema/structural.ts';

export interface ValidPath {
  /** The path as field errors print it. */
  readonly path: string;
  /** The schema the path reaches (undefined past a map whose additionalProperties is a boolean). */
  readonly schema: Structural | undefined;
}

const ESCAPES: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', "'": "'", '\\': '\\' };

function unescapeSingleQuote(s: string): string | Error {
  let bad: string | undefined;
  const out = s.replace(/\\[\s\S]/g, (m) => {
    const plain = ESCAPES[m[1]!];
    if (plain === undefined) {
      bad ??= m;
      return '';
    }
    return plain;
  });
  return bad !== undefined ? new Error(`invalid string literal: invalid escape char ${bad}`) : out;
}

/** The tokens: `.`, `[`, `]`, single-quoted strings (quotes kept) and the names between. */
function tokens(path: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < path.length) {
    const c = path[i]!;
    if (c === "'") {
      // A quoted string runs to the next quote not preceded by a backslash, else to the end.
      let j = i + 1;
      while (j < path.length && !(path[j] === "'" && path[j - 1] !== '\\')) j++;
      out.push(path.slice(i, Math.min(j + 1, path.length)));
      i = j + 1;
      continue;
    }
    if (c === '.' || c === '[' || c === ']') {
      out.push(c);
      i++;
      continue;
    }
    let j = i;
    while (j < path.length && path[j] !== '.' && path[j] !== '[' && path[j] !== ']') j++;
    out.push(path.slice(i, j));
    i = j;
  }
  return out;
}

const hasProperties = (s: Structural) => s.properties !== undefined && Object.keys(s.properties).length > 0;

/**
 * The path `jsonPath` names in `schema`, or an Error with upstream's reason. `allowArrayNotation`
 * false refuses `['name']` (selectable fields use that).
 */
export function validFieldPath(jsonPath: string, schema: Structural, allowArrayNotation = true): ValidPath | Error {
  let path = FieldPath.of();
  let at: Structural | undefined = schema;
  const toks = tokens(jsonPath);
  let i = 0;
  const next = () => (i < toks.length ? toks[i++] : undefined);
  const step = (name: string): Error | undefined => {
    if (!at) return new Error('does not refer to a valid field');
    if (hasProperties(at)) {
      path = path.child(name);
      const prop: Structural | undefined = at.properties![name];
      if (!prop) return new Error('does not refer to a valid field');
      at = prop;
    } else if (at.additionalProperties !== undefined) {
      path = path.key(name);
      at = at.additionalProperties.structural;
    } else {
      return new Error('does not refer to a valid field');
    }
    return undefined;
  };
  for (let tok = next(); tok !== undefined; tok = next()) {
    if (tok === '[') {
      if (!allowArrayNotation) return new Error('array notation is not allowed');
      const quoted = next();
      if (quoted === undefined) return new Error('unexpected end of JSON path');
      if (quoted.length < 2 || quoted[0] !== "'" || quoted[quoted.length - 1] !== "'") return new Error(`expected single quoted string but got ${quoted}`);
      const name = unescapeSingleQuote(quoted.slice(1, -1));
      if (name instanceof Error) return name;
      const err = step(name);
      if (err) return err;
      const close = next();
      if (close === undefined) return new Error('unexpected end of JSON path');
      if (close !== ']') return new Error(`expected ] but got ${close}`);
    } else if (tok === '.') {
      const name = next();
      if (name === undefined) return new Error('unexpected end of JSON path');
      const err = step(name);
      if (err) return err;
    } else {
      return new Error(`expected [ or . but got: ${tok}`);
    }
  }
  return { path: path.toString(), schema: at };
}
