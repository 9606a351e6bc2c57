import { fieldsOf, shapeOfField, type JsonShape } from '../schema/generated/index.ts';

type Shape = JsonShape | { readonly kind: 'map'; readonly values: JsonShape };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** What Go's decoder puts where JSON has null inside a map or a list: the zero value of the element. */
function zeroOf(shape: Shape): unknown {
  switch (shape.kind) {
    case 'string':
      return '';
    case 'integer':
    case 'number':
    case 'int-or-string':
      return 0;
    case 'boolean':
      return false;
    case 'message':
    case 'map':
      return {};
    case 'array':
      return [];
    default:
      return null;
  }
}

function normalize(shape: Shape, value: unknown): void {
  if (shape.kind === 'message' && isObject(value)) {
    dropNullFields(shape.message, value);
  } else if (shape.kind === 'map' && isObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (v === null) value[k] = zeroOf(shape.values);
      else normalize(shape.values, v);
    }
  } else if (shape.kind === 'array' && Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (value[i] === null) value[i] = zeroOf(shape.items);
      else normalize(shape.items, value[i]);
    }
  }
}

/**
 * Makes a decoded body read the way the real server's typed decoding leaves it: a field set to
 * null is simply unset (and so absent from what is stored and returned), and a null inside a map
 * or list becomes the element's zero value. Embedded free-form JSON (RawExtension, FieldsV1) and
 * fields the schema does not know are left alone. Changes the object in place.
 */
export function dropNullFields(message: string, obj: Record<string, unknown>): void {
  const fields = fieldsOf(message);
  for (const key of Object.keys(obj)) {
    const value = obj[key];
    const field = Object.hasOwn(fields, key) ? fields[key] : undefined;
    if (value === null) {
      if (field || key === 'apiVersion' || key === 'kind') delete obj[key];
      continue;
    }
    if (field) normalize(shapeOfField(field), value);
  }
}
