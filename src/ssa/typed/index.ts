/**
 * The `typed` half of structured-merge-diff for server-side apply: values of a kind's schema turned into
 * field sets, compared, merged and pruned exactly as kube-apiserver does it.
 *
 * Every function is pure. Values are plain JSON (`undefined` never appears inside them); results may
 * share unchanged subtrees with the inputs, so treat all values as immutable.
 */
import { FieldSet } from '../fieldpath/field-set.ts';
import type { JsonValue } from '../fieldpath/path-element.ts';
import type { ObjectSchema } from '../../schema/type-schema.ts';
import { objectAtom } from './atoms.ts';
import { compareValues } from './compare.ts';
import { SchemaError, type SchemaErrorSubject } from './errors.ts';
import { mergeValues } from './merge.ts';
import { namedFieldsAsMembers } from './named-fields.ts';
import { reconcileWithSchema } from './reconcile.ts';
import { removeFrom } from './remove-items.ts';
import { fieldSetOf } from './to-field-set.ts';
import { validateValue } from './validate.ts';

export { SchemaError, type SchemaErrorSubject } from './errors.ts';

export interface ValidateOptions {
  /** Accept repeated items in associative lists and sets (live objects may have them; configurations may not). */
  readonly allowDuplicates?: boolean;
}

/**
 * Upstream's AsTyped validation. Throws SchemaError listing every violation, worded as upstream words
 * it (`.spec.foo: field not declared in schema`, `.spec.replicas: expected numeric (int or float), got string`,
 * `.metadata.finalizers: duplicate entries for key [="a"]`).
 */
export function validate(value: JsonValue, schema: ObjectSchema, options: ValidateOptions = {}, subject?: SchemaErrorSubject): void {
  const errors = validateValue(value, objectAtom(schema), options.allowDuplicates === true);
  if (errors.length > 0) throw new SchemaError(errors, subject);
}

/** Upstream's TypedValue.ToFieldSet, after validating the value as AsTyped would. */
export function toFieldSet(value: JsonValue, schema: ObjectSchema, options: ValidateOptions = {}): FieldSet {
  validate(value, schema, options);
  return fieldSetOf(value, objectAtom(schema));
}

export interface Comparison {
  readonly added: FieldSet;
  readonly modified: FieldSet;
  readonly removed: FieldSet;
}

/**
 * Upstream's TypedValue.Compare of `lhs` (before) and `rhs` (after). Both sides are validated first,
 * duplicates allowed, as kube-apiserver types both objects of an update.
 */
export function compare(lhs: JsonValue, rhs: JsonValue, schema: ObjectSchema): Comparison {
  validate(lhs, schema, { allowDuplicates: true });
  validate(rhs, schema, { allowDuplicates: true });
  const { comparison, errors } = compareValues(lhs, rhs, objectAtom(schema));
  if (errors.length > 0) throw new SchemaError(errors);
  return {
    added: FieldSet.fromPaths(comparison.added),
    modified: FieldSet.fromPaths(comparison.modified),
    removed: FieldSet.fromPaths(comparison.removed),
  };
}

/**
 * Upstream's TypedValue.Merge of a configuration over the live object. The live object may hold
 * duplicate list items; the configuration may not.
 */
export function merge(live: JsonValue, config: JsonValue, schema: ObjectSchema): JsonValue {
  validate(live, schema, { allowDuplicates: true }, 'live');
  validate(config, schema, {}, 'config');
  const { value, errors } = mergeValues(live, config, objectAtom(schema));
  if (errors.length > 0) throw new SchemaError(errors);
  return value ?? null;
}

/**
 * Upstream's TypedValue.RemoveItems: `value` without the fields and items in `set`. Containers left
 * empty become null, as upstream leaves them (kube-apiserver's conversion back to a Go struct then drops
 * them for omitempty fields).
 */
export function removeItems(value: JsonValue, set: FieldSet, schema: ObjectSchema): JsonValue {
  return removeFrom(value, set, objectAtom(schema));
}

/** Upstream's Set.EnsureNamedFieldsAreMembers against the kind's schema. */
export function ensureNamedFieldsAreMembers(set: FieldSet, schema: ObjectSchema): FieldSet {
  return namedFieldsAsMembers(set, objectAtom(schema));
}

/**
 * Upstream's ReconcileFieldSetWithSchema: the set with granular ownership under now-atomic fields
 * collapsed onto those fields, or undefined when nothing needed changing.
 */
export function reconcileFieldSetWithSchema(set: FieldSet, schema: ObjectSchema): FieldSet | undefined {
  return reconcileWithSchema(set, objectAtom(schema));
}
