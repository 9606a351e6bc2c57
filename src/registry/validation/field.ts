/**
 * The kind-authoring kit's field errors: one helper per error type of apimachinery's field package,
 * with its 1.34 texts, and field paths written as upstream writes them (`spec.finalizers[0]`,
 * `data[key]`). Kinds use these instead of building FieldError literals.
 *
 * @example
 * import * as field from '../registry/validation/field.ts';
 * const spec = field.path('spec');
 * errs.push(field.invalid(spec.child('leaseDurationSeconds'), 0, 'must be greater than 0'));
 */
import type { FieldError } from '../../api/errors.ts';
import { goQuote } from '../../api/go/quote.ts';

/** A path into an object: `root.child[3][key]`. */
export class FieldPath {
  readonly #text: string;

  private constructor(text: string) {
    this.#text = text;
  }

  /** The root of a path (`path('spec')`); `path()` is the whole object (''). */
  static of(...names: string[]): FieldPath {
    return new FieldPath(names.join('.'));
  }

  child(...names: string[]): FieldPath {
    return new FieldPath([this.#text, ...names].filter((n) => n !== '').join('.'));
  }

  index(i: number): FieldPath {
    return new FieldPath(`${this.#text}[${i}]`);
  }

  key(k: string): FieldPath {
    return new FieldPath(`${this.#text}[${k}]`);
  }

  toString(): string {
    return this.#text;
  }
}

export type PathLike = FieldPath | string;

/** A field path from its root names. */
export function path(...names: string[]): FieldPath {
  return FieldPath.of(...names);
}

const at = (p: PathLike) => String(p);

/** A value that must be set is not (`Required value[: detail]`). */
export function required(p: PathLike, detail = ''): FieldError {
  return { type: 'FieldValueRequired', field: at(p), ...(detail ? { detail } : {}) };
}

/** A malformed value (`Invalid value: <value>: detail`). */
export function invalid(p: PathLike, value: unknown, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field: at(p), value, detail };
}

/** A value of the wrong schema type. */
export function typeInvalid(p: PathLike, value: unknown, detail: string): FieldError {
  return { type: 'FieldValueTypeInvalid', field: at(p), value, detail };
}

/** A value outside an enumeration (`Unsupported value: "x": supported values: "a", "b"`). */
export function notSupported(p: PathLike, value: unknown, supported: readonly string[]): FieldError {
  const detail = supported.length > 0 ? `supported values: ${supported.map(goQuote).join(', ')}` : '';
  return { type: 'FieldValueNotSupported', field: at(p), value, ...(detail ? { detail } : {}) };
}

/** A valid value that is not allowed here (`Forbidden: detail`). */
export function forbidden(p: PathLike, detail: string): FieldError {
  return { type: 'FieldValueForbidden', field: at(p), detail };
}

/** Longer than `maxBytes` (negative: no limit named): `Too long: may not be more than N bytes`. */
export function tooLong(p: PathLike, maxBytes: number): FieldError {
  const detail = maxBytes >= 0 ? `may not be more than ${maxBytes} ${maxBytes === 1 ? 'byte' : 'bytes'}` : 'value is too long';
  return { type: 'FieldValueTooLong', field: at(p), detail };
}

/** Longer than `max` characters: `Too long: may not be more than N characters`. */
export function tooLongCharacters(p: PathLike, max: number): FieldError {
  const detail = max >= 0 ? `may not be more than ${max} ${max === 1 ? 'character' : 'characters'}` : 'value is too long';
  return { type: 'FieldValueTooLong', field: at(p), detail };
}

/** A list with too many items: `Too many: <actual>: must have at most N items` (a negative actual is not shown). */
export function tooMany(p: PathLike, actual: number, max: number): FieldError {
  const detail = max >= 0 ? `must have at most ${max} ${max === 1 ? 'item' : 'items'}` : 'has too many items';
  return { type: 'FieldValueTooMany', field: at(p), ...(actual >= 0 ? { value: actual } : {}), detail };
}

/** A value that must be unique is not: `Duplicate value: <value>`. */
export function duplicate(p: PathLike, value: unknown): FieldError {
  return { type: 'FieldValueDuplicate', field: at(p), value };
}

/** A value that refers to something missing: `Not found: <value>`. */
export function notFound(p: PathLike, value: unknown): FieldError {
  return { type: 'FieldValueNotFound', field: at(p), value };
}

/** An update changed a field that may not change (upstream's ValidateImmutableField). */
export function immutable(p: PathLike, value: unknown): FieldError {
  return invalid(p, value, 'field is immutable');
}
