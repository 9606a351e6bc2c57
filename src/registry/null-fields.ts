import { canonicalQuantity } from '../api/go/quantity.ts';
import type { ObjectSchema, TypeSchema } from '../schema/type-schema.ts';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** What Go's decoder puts where JSON has null inside a map or a list: the zero value of the element. */
function zeroOf(schema: TypeSchema): unknown {
  switch (schema.kind) {
    case 'string':
      // A zero Quantity prints as "0".
      return schema.format === 'quantity' ? '0' : '';
    case 'integer':
    case 'number':
    case 'int-or-string':
      return 0;
    case 'boolean':
      return false;
    case 'object':
    case 'map':
      return {};
    case 'array':
      return [];
    default:
      return null;
  }
}

/** The value as typed decoding leaves it (changed in place where it is an object or list). */
function normalize(schema: TypeSchema, value: unknown): unknown {
  if (schema.kind === 'object' && isObject(value)) {
    dropNullFields(schema, value);
  } else if (schema.kind === 'map' && isObject(value)) {
    for (const [k, v] of Object.entries(value)) value[k] = v === null ? zeroOf(schema.values) : normalize(schema.values, v);
  } else if (schema.kind === 'array' && Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = value[i] === null ? zeroOf(schema.items) : normalize(schema.items, value[i]);
  } else if (schema.kind === 'string' && schema.format === 'quantity' && (typeof value === 'string' || typeof value === 'number')) {
    // A Quantity is re-printed in its canonical form (1024Mi reads back as 1Gi, 0.5 as 500m).
    return canonicalQuantity(String(value));
  }
  return value;
}

/**
 * Makes a decoded body read the way the real server's typed decoding leaves it: a field set to
 * null is simply unset (and so absent from what is stored and returned), and a null inside a map
 * or list becomes the element's zero value, and quantities take their canonical form. Embedded free-form JSON (RawExtension, FieldsV1) and
 * fields the schema does not know are left alone. Changes the object in place.
 */
export function dropNullFields(schema: ObjectSchema, obj: Record<string, unknown>): void {
  for (const key of Object.keys(obj)) {
    const value = obj[key];
    const field = schema.fields.get(key);
    if (value === null) {
      if (field || key === 'apiVersion' || key === 'kind') delete obj[key];
      continue;
    }
    if (field) obj[key] = normalize(field.schema, value);
  }
}
