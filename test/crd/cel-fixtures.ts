/**
 * Structural schemas for the CRD CEL tests, built as upstream's tests build theirs
 * (schema/cel/validation_test.go's integerType, listMapType, withRule …), so ported cases read
 * like their originals.
 */
import type { Structural, ValueValidation } from '../../src/crd/schema/structural.ts';
import type { ValidationRule } from '../../src/crd/schema/types.ts';

export function primitive(type: string, format = ''): Structural {
  return { type, nullable: false, xPreserveUnknownFields: false, xEmbeddedResource: false, xIntOrString: false, ...(format ? { valueValidation: { format } } : {}) };
}

export const integerType = () => primitive('integer');
export const int32Type = () => primitive('integer', 'int32');
export const int64Type = () => primitive('integer', 'int64');
export const numberType = () => primitive('number');
export const floatType = () => primitive('number', 'float');
export const doubleType = () => primitive('number', 'double');
export const stringType = () => primitive('string');
export const byteType = () => primitive('string', 'byte');
export const booleanType = () => primitive('boolean');
export const durationFormat = () => primitive('string', 'duration');
export const dateFormat = () => primitive('string', 'date');
export const dateTimeFormat = () => primitive('string', 'date-time');

export function objectType(props: Record<string, Structural>): Structural {
  return { ...primitive('object'), properties: Object.assign(Object.create(null) as Record<string, Structural>, props) };
}

/** An object with properties val1, val2 … of these schemas. */
export function schemas(...vals: Structural[]): Structural {
  return objectType(Object.fromEntries(vals.map((v, i) => [`val${i + 1}`, v])));
}

/** A value for each valN of `schemas`. */
export function objs(...vals: unknown[]): Record<string, unknown> {
  return Object.fromEntries(vals.map((v, i) => [`val${i + 1}`, v]));
}

export function arrayType(listType: string | undefined, keys: string[] | undefined, items: Structural): Structural {
  return { ...primitive('array'), items, ...(listType ? { xListType: listType } : {}), ...(keys && keys.length > 0 && listType === 'map' ? { xListMapKeys: keys } : {}) };
}
export const listType = (items: Structural) => arrayType('atomic', undefined, items);
export const listSetType = (items: Structural) => arrayType('set', undefined, items);
export const listMapType = (keys: string[], items: Structural) => arrayType('map', keys, items);

export function mapType(values: Structural): Structural {
  return { ...primitive('object'), additionalProperties: { bool: true, structural: values } };
}

export function intOrStringType(): Structural {
  return { ...primitive(''), xIntOrString: true };
}

export function withRules(s: Structural, ...rules: (string | ValidationRule)[]): Structural {
  return { ...s, xValidations: rules.map((r) => (typeof r === 'string' ? { rule: r } : r)) };
}
export const withRule = (s: Structural, rule: string) => withRules(s, rule);

export function withValidation(s: Structural, vv: ValueValidation): Structural {
  return { ...s, valueValidation: { ...s.valueValidation, ...vv } };
}
export const withMaxLength = (s: Structural, maxLength: number | undefined) => (maxLength === undefined ? s : withValidation(s, { maxLength }));
export const withMaxItems = (s: Structural, maxItems: number | undefined) => (maxItems === undefined ? s : withValidation(s, { maxItems }));
export const withMaxProperties = (s: Structural, maxProperties: number | undefined) => (maxProperties === undefined ? s : withValidation(s, { maxProperties }));

export function withNullable(s: Structural): Structural {
  return { ...s, nullable: true };
}
export function withDefault(s: Structural, d: unknown): Structural {
  return { ...s, default: d };
}
export function withPreserveUnknown(s: Structural): Structural {
  return { ...s, xPreserveUnknownFields: true };
}
export function withEmbedded(s: Structural): Structural {
  return { ...s, xEmbeddedResource: true };
}
