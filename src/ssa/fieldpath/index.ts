/** The fieldpath package in one import: paths, field sets and their FieldsV1 form. */
export * from './path-element.ts';
export { compareValues, valuesEqual } from './value-order.ts';
export { valueToString } from './path-string.ts';
export { FieldSet } from './field-set.ts';
export { fieldSetToFieldsV1, fieldSetToFieldsV1Object, fieldSetFromFieldsV1 } from './fields-v1.ts';
export * from './set-filter.ts';
