import type { ObjectSchema, TypeSchema } from '../schema/type-schema.ts';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** What Go's decoder puts where JSON has null inside a map or a list: the zero value of the element. */
function zeroOf(schema: TypeSchema): unknown {
  switch (schema.kind) {
    case 'string':
      return '';
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

function normalize(schema: TypeSchema, value: unknown): void {
  if (schema.kind === 'object' && isObject(value)) {
    dropNullFields(schema, value);
  } else if (schema.kind === 'map' && isObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (v === null) value[k] = zeroOf(schema.values);
      else normalize(schema.values, v);
    }
  } else if (schema.kind === 'array' && Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (value[i] === null) value[i] = zeroOf(schema.items);
      else normalize(schema.items, value[i]);
    }
  }
}

/**
 * Makes a decoded body read the way the real server's typed decoding leaves it: a field set to
 * null is simply unset (and so absent from what is stored and returned), and a null inside a map
 * or list becomes the element's zero value. Embedded free-form JSON (RawExtension, FieldsV1) and
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
    if (field) normalize(field.schema, value);
  }
}
