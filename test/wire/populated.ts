import type { KindDefinition } from '../../src/registry/kind.ts';
import { apiVersionOf } from '../../src/registry/kind.ts';
import type { TypeSchema } from '../../src/schema/type-schema.ts';

const APIEXTENSIONS = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1';
const UNION_VALUES: Readonly<Record<string, unknown>> = {
  [`${APIEXTENSIONS}.JSONSchemaPropsOrBool`]: false,
  [`${APIEXTENSIONS}.JSONSchemaPropsOrArray`]: [{ type: 'string' }, { type: 'integer' }],
  [`${APIEXTENSIONS}.JSONSchemaPropsOrStringArray`]: ['other'],
};

/** A value of every type a schema names: each field set, each list and map with one entry. */
function valueOf(schema: TypeSchema, depth: number, seen: ReadonlySet<string>): unknown {
  switch (schema.kind) {
    case 'string':
      switch (schema.format) {
        case 'byte':
          return Buffer.from([0, 1, 2, 253, 254, 255]).toString('base64');
        case 'quantity':
          return '1536Mi';
        case 'date-time':
          return '2024-01-02T03:04:05Z';
        case 'micro-time':
          return '2024-01-02T03:04:05.123456Z';
        case 'duration':
          return '1m30s';
        default:
          return 'ünïcødé ✓';
      }
    case 'integer':
      return schema.format === 'int64' ? 1234567890123 : 42;
    case 'number':
      return 1.5;
    case 'boolean':
      return true;
    case 'int-or-string':
      return depth % 2 === 0 ? 8080 : '25%';
    case 'any':
      // A JSON Schema union takes one of its forms (its protobuf form has no room for anything else).
      return UNION_VALUES[schema.message ?? ''] ?? { free: ['form', 1, true, null, { x: 1.25 }] };
    case 'array':
      return [valueOf(schema.items, depth + 1, seen)];
    case 'map':
      return { key: valueOf(schema.values, depth + 1, seen) };
    case 'object': {
      // Recursive types (JSONSchemaProps) stop after one level.
      const name = schema.message ?? schema.goName;
      if (seen.has(name) || depth > 12) return {};
      const inner = new Set(seen).add(name);
      const out: Record<string, unknown> = {};
      for (const [key, field] of schema.fields) {
        if (key === 'apiVersion' || key === 'kind') continue;
        out[key] = valueOf(field.schema, depth + 1, inner);
      }
      return out;
    }
  }
}

/** An object of the kind with every field of its schema set (not a valid object: a wire fixture). */
export function populated(kind: KindDefinition): Record<string, unknown> {
  const body = valueOf(kind.schema, 0, new Set()) as Record<string, unknown>;
  return { apiVersion: apiVersionOf(kind), kind: kind.kind, ...body };
}
