/**
 * How property names become CEL identifiers (k8s.io/apiserver/pkg/cel's Escape and Unescape):
 * `__` → `__underscores__`, `.` → `__dot__`, `-` → `__dash__`, `/` → `__slash__`, and a name that is
 * a CEL reserved word → `__{word}__`. A name starting with a digit, or with any other character
 * outside `[a-zA-Z0-9_./-]`, cannot be escaped: CEL rules cannot reach it.
 */

/** CEL's reserved words (the lexer's RESERVED symbols). */
export const RESERVED_WORDS: ReadonlySet<string> = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);

const ESCAPES: Record<string, string> = { __: '__underscores__', '.': '__dot__', '-': '__dash__', '/': '__slash__' };
const UNESCAPES: Record<string, string> = { underscores: '__', dot: '.', dash: '-', slash: '/' };

/** The CEL identifier of a property name, or undefined when it has none. */
export function escapeName(name: string): string | undefined {
  if (name === '' || (name[0]! >= '0' && name[0]! <= '9')) return undefined;
  if (RESERVED_WORDS.has(name)) return `__${name}__`;
  if (!/^[a-zA-Z0-9_./-]*$/.test(name)) return undefined;
  if (/^[a-zA-Z0-9_]*$/.test(name) && !name.includes('__')) return name;
  return name.replace(/__|[-./]/g, (m) => ESCAPES[m]!);
}

/** The property name of an escaped identifier, or undefined when its escapes are not valid. */
export function unescapeName(escaped: string): string | undefined {
  let ok = true;
  const out = escaped.replace(/__[^_]+__/g, (m) => {
    const inner = m.slice(2, -2);
    const plain = UNESCAPES[inner];
    if (plain !== undefined) return plain;
    if (RESERVED_WORDS.has(inner)) {
      // A reserved word is escaped only when it is the whole name.
      if (m.length !== escaped.length) ok = false;
      return inner;
    }
    ok = false;
    return '';
  });
  return ok ? out : undefined;
}
