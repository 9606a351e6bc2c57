/**
 * What OpenAPI v2 cannot say, taken out of a structural schema (upstream's ToStructuralOpenAPIV2,
 * pkg/controller/openapi/v2): the junctors go (Swagger 2.0 has no oneOf/anyOf/not, and kubectl
 * 1.27's validator reads allOf as a conjunction of full schemas); a nullable node loses its type,
 * items and properties (kubectl would refuse null otherwise) and is no longer required by its
 * parent; a node preserving unknown fields loses its items and properties, and an object or array
 * left without a schema for its content loses its type, since kubectl's validator would refuse
 * every field it could not name.
 */
import { deepCopyStructural } from '../schema/transform.ts';
import type { Structural } from '../schema/structural.ts';

function withoutRequired(s: Structural, field: string): void {
  const req = s.valueValidation?.required;
  if (!req || !req.includes(field)) return;
  const left = req.filter((r) => r !== field);
  s.valueValidation!.required = left.length > 0 ? left : undefined;
}

function convertNode(s: Structural): void {
  const vv = s.valueValidation;
  if (vv) {
    delete vv.allOf;
    delete vv.oneOf;
    delete vv.anyOf;
    delete vv.not;
  }
  if (s.nullable) {
    s.type = '';
    s.nullable = false;
    delete s.items;
    delete s.properties;
  }
  if (s.xPreserveUnknownFields) {
    delete s.items;
    delete s.properties;
  }
  if (!s.items && s.type === 'array') s.type = '';
  if (s.xPreserveUnknownFields && s.type === 'object') s.type = '';
  // Read before the children are converted: a nullable child drops out of `required`.
  if (s.properties) for (const [name, child] of Object.entries(s.properties)) if (child.nullable) withoutRequired(s, name);
  if (s.additionalProperties?.structural?.nullable && s.valueValidation) s.valueValidation.required = undefined;
  if (s.items) convertNode(s.items);
  if (s.properties) for (const child of Object.values(s.properties)) convertNode(child);
  if (s.additionalProperties?.structural) convertNode(s.additionalProperties.structural);
}

/** A copy of `s` that Swagger 2.0 (and kubectl's validation from it) can hold. */
export function toStructuralOpenAPIV2(s: Structural): Structural {
  const out = deepCopyStructural(s);
  convertNode(out);
  return out;
}
