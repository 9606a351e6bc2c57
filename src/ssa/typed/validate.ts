/**
 * Upstream's validating walker (TypedValue.Validate, run by AsTyped): scalar kinds, list and map shapes,
 * associative list items that can be named, duplicates (unless allowed), and undeclared struct fields.
 */
import { goType } from '../../api/go/values.ts';
import { pathElementString, type JsonValue, type PathElement } from '../fieldpath/path-element.ts';
import { deduceAtom, mapEntryAtom, scalarOnly, type Atom, type ListAtom, type MapAtom, type ScalarKind } from './atoms.ts';
import { errorAt, withPrefix, type ValidationError } from './errors.ts';
import { goValueWrapper, goValueWrapperSyntax } from './go-format.ts';
import { isJsonObject } from './json.ts';
import { listItemName } from './list-items.ts';
import { peKey } from './pe-key.ts';

/**
 * Upstream's validateScalar; `prefix` lands in the message (compare and merge use `lhs: ` and `rhs: `).
 * An absent or null value is always valid.
 */
export function scalarErrors(kind: ScalarKind, v: JsonValue | undefined, prefix: string): ValidationError[] {
  if (v === undefined || v === null) return [];
  const t = typeof v;
  switch (kind) {
    case 'numeric':
      if (t !== 'number') return errorAt(`${prefix}expected numeric (int or float), got ${goType(v)}`);
      return [];
    case 'string':
      if (t !== 'string') return errorAt(`${prefix}expected string, got ${goValueWrapperSyntax(v)}`);
      return [];
    case 'boolean':
      if (t !== 'boolean') return errorAt(`${prefix}expected boolean, got ${goValueWrapper(v)}`);
      return [];
    case 'untyped':
      if (t === 'object') return errorAt(`${prefix}expected any scalar, got ${goValueWrapper(v)}`);
      return [];
  }
}

/** Whether scalarErrors finds nothing wrong with `v` (without building any message). */
export function scalarFits(kind: ScalarKind, v: JsonValue | undefined): boolean {
  if (v === undefined || v === null) return true;
  switch (kind) {
    case 'numeric':
      return typeof v === 'number';
    case 'string':
      return typeof v === 'string';
    case 'boolean':
      return typeof v === 'boolean';
    case 'untyped':
      return typeof v !== 'object';
  }
}

/**
 * A scalar position as compare and merge check it: the walk goes on when either side is a valid
 * scalar, and fails with both sides' errors only when neither is.
 */
export function scalarPairErrors(kind: ScalarKind, lhs: JsonValue | undefined, rhs: JsonValue | undefined): ValidationError[] {
  const lerrs = scalarErrors(kind, lhs, 'lhs: ');
  if (lerrs.length === 0) return lerrs;
  const rerrs = scalarErrors(kind, rhs, 'rhs: ');
  return rerrs.length === 0 ? rerrs : [...lerrs, ...rerrs];
}

function validateList(list: ListAtom, v: JsonValue, allowDuplicates: boolean): ValidationError[] {
  if (v === null) return [];
  if (!Array.isArray(v)) return errorAt(`expected list, got ${goValueWrapper(v)}`);
  const errors: ValidationError[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < v.length; i++) {
    const child = v[i]!;
    let pe: PathElement;
    if (list.relationship !== 'associative') {
      pe = { kind: 'index', index: i };
    } else {
      const named = listItemName(list, child);
      if (named.error !== undefined) {
        // Without a name for the item nothing below it can be reported: upstream stops at this list.
        errors.push(...errorAt(`element ${i}: ${named.error}`));
        return errors;
      }
      pe = named.pe;
      const key = peKey(pe);
      if (seen.has(key) && !allowDuplicates) errors.push(...errorAt(`duplicate entries for key ${pathElementString(pe)}`));
      seen.add(key);
    }
    const childErrors = validateValue(child, list.element, allowDuplicates);
    if (childErrors.length > 0) errors.push(...withPrefix(childErrors, pathElementString(pe)));
  }
  return errors;
}

function validateMap(map: MapAtom, v: JsonValue, allowDuplicates: boolean): ValidationError[] {
  if (v === null) return [];
  if (!isJsonObject(v)) return errorAt(`expected map, got ${goValueWrapper(v)}`);
  const errors: ValidationError[] = [];
  for (const key of Object.keys(v)) {
    const atom = mapEntryAtom(map, key);
    if (!atom) {
      // Upstream stops walking this map at the first undeclared field.
      errors.push(...withPrefix(errorAt('field not declared in schema'), pathElementString({ kind: 'field', name: key })));
      break;
    }
    const child = v[key]!;
    // A scalar that fits its scalar-only atom has nothing to report (string maps, scalar fields).
    const kind = scalarOnly(atom);
    if (kind !== undefined && scalarFits(kind, child)) continue;
    const childErrors = validateValue(child, atom, allowDuplicates);
    // The prefix is worked out only when there is something to put it on.
    if (childErrors.length > 0) errors.push(...withPrefix(childErrors, pathElementString({ kind: 'field', name: key })));
  }
  return errors;
}

/** Errors of one value against an atom, paths relative to the value. */
export function validateValue(v: JsonValue, atom: Atom, allowDuplicates: boolean): ValidationError[] {
  const a = deduceAtom(atom, v);
  if (a.map) return validateMap(a.map, v, allowDuplicates);
  if (a.scalar) return scalarErrors(a.scalar, v, '');
  if (a.list) return validateList(a.list, v, allowDuplicates);
  return errorAt('schema error: invalid atom: inlined');
}
