/**
 * Structural schemas for the schema tests, written as upstream's tests write theirs
 * (`Structural{Generic: {Type: "object"}, Properties: …}`): `st({ type: 'object', properties: {…} })`
 * fills in the zero values.
 */
import type { Structural } from '../../src/crd/schema/structural.ts';

type Partial2 = Partial<Omit<Structural, 'properties' | 'items' | 'additionalProperties'>> & {
  properties?: Record<string, Structural>;
  items?: Structural;
  additionalProperties?: Structural['additionalProperties'];
};

/** A Structural node with upstream's zero values for everything not given. */
export function st(p: Partial2 = {}): Structural {
  const out: Structural = { type: '', nullable: false, xPreserveUnknownFields: false, xEmbeddedResource: false, xIntOrString: false, ...p } as Structural;
  if (p.properties) out.properties = Object.assign(Object.create(null) as Record<string, Structural>, p.properties);
  return out;
}

/** A fresh decoded copy of a JSON text (upstream's tests unmarshal their inputs). */
export function json(text: string): unknown {
  return JSON.parse(text);
}
