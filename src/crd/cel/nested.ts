/**
 * Schema nodes under allOf, anyOf, oneOf and not (NestedValueValidation) seen as structural nodes,
 * as upstream's nestedToStructural makes them: their rules and value validations, with the
 * generics and extensions they were not allowed to carry put back in place.
 */
import type { NestedValueValidation, Structural } from '../schema/structural.ts';

export function nestedToStructural(nested: NestedValueValidation): Structural {
  const { items, properties, additionalProperties, forbiddenGenerics, forbiddenExtensions, xValidations, ...valueValidation } = nested;
  const s: Structural = {
    ...forbiddenGenerics,
    type: forbiddenGenerics.type ?? '',
    nullable: forbiddenGenerics.nullable ?? false,
    ...forbiddenExtensions,
    xPreserveUnknownFields: forbiddenExtensions.xPreserveUnknownFields ?? false,
    xEmbeddedResource: forbiddenExtensions.xEmbeddedResource ?? false,
    xIntOrString: forbiddenExtensions.xIntOrString ?? false,
    valueValidation,
  };
  if (xValidations) s.xValidations = xValidations;
  if (items) s.items = nestedToStructural(items);
  if (properties && Object.keys(properties).length > 0) {
    const props: Record<string, Structural> = Object.create(null);
    for (const [k, v] of Object.entries(properties)) props[k] = nestedToStructural(v);
    s.properties = props;
  }
  if (additionalProperties) s.additionalProperties = { structural: nestedToStructural(additionalProperties), bool: false };
  return s;
}
