/**
 * Whole-schema rewrites of upstream's structural package: Unfold (unfold.go), StripValueValidations
 * and StripNullable (skeleton.go), and DeepCopy. Each returns a new schema and leaves its argument
 * alone, since built schemas are shared by every request of a CRD version.
 */
import type { NestedValueValidation, Structural, ValueValidation } from './structural.ts';
import { emptyNested } from './convert.ts';
import { isIntOrStringAllOfPattern, isIntOrStringAnyOfPattern } from './validate-structural.ts';
import { deepCopyJson } from './json.ts';

/** A deep copy of a structural schema (defaults and enum values included). */
export function deepCopyStructural(s: Structural): Structural {
  const out: Structural = { ...s };
  if (s.default !== undefined) out.default = deepCopyJson(s.default);
  if (s.xListMapKeys) out.xListMapKeys = [...s.xListMapKeys];
  if (s.xValidations) out.xValidations = s.xValidations.map((r) => ({ ...r }));
  if (s.valueValidation) out.valueValidation = copyValueValidation(s.valueValidation);
  if (s.items) out.items = deepCopyStructural(s.items);
  if (s.properties) out.properties = mapRecord(s.properties, deepCopyStructural);
  if (s.additionalProperties) {
    out.additionalProperties = s.additionalProperties.structural
      ? { structural: deepCopyStructural(s.additionalProperties.structural), bool: s.additionalProperties.bool }
      : { bool: s.additionalProperties.bool };
  }
  return out;
}

function copyValueValidation<V extends ValueValidation>(v: V): V {
  const out: V = { ...v };
  if (v.enum) out.enum = v.enum.map(deepCopyJson);
  if (v.required) out.required = [...v.required];
  if (v.allOf) out.allOf = v.allOf.map(copyNested);
  if (v.anyOf) out.anyOf = v.anyOf.map(copyNested);
  if (v.oneOf) out.oneOf = v.oneOf.map(copyNested);
  if (v.not) out.not = copyNested(v.not);
  return out;
}

function copyNested(n: NestedValueValidation): NestedValueValidation {
  const out = copyValueValidation(n);
  out.forbiddenGenerics = { ...n.forbiddenGenerics };
  if (n.forbiddenGenerics.default !== undefined) out.forbiddenGenerics.default = deepCopyJson(n.forbiddenGenerics.default);
  out.forbiddenExtensions = { ...n.forbiddenExtensions };
  if (n.xValidations) out.xValidations = n.xValidations.map((r) => ({ ...r }));
  if (n.items) out.items = copyNested(n.items);
  if (n.properties) out.properties = mapRecord(n.properties, copyNested);
  if (n.additionalProperties) out.additionalProperties = copyNested(n.additionalProperties);
  return out;
}

function mapRecord<T>(r: Record<string, T>, f: (v: T) => T): Record<string, T> {
  const out: Record<string, T> = Object.create(null);
  for (const k of Object.keys(r)) out[k] = f(r[k]!);
  return out;
}

/** Applies `f` to every Structural node (not to junctor contents), top-down, on a copy. */
function mapStructural(s: Structural, f: (s: Structural) => void): Structural {
  const copy = deepCopyStructural(s);
  const visit = (n: Structural): void => {
    f(n);
    if (n.items) visit(n.items);
    if (n.properties) for (const k of Object.keys(n.properties)) visit(n.properties[k]!);
    if (n.additionalProperties?.structural) visit(n.additionalProperties.structural);
  };
  visit(copy);
  return copy;
}

function typed(type: string): NestedValueValidation {
  const n = emptyNested();
  n.forbiddenGenerics.type = type;
  return n;
}

/**
 * Expands x-kubernetes-int-or-string into the value validation it implies: `anyOf: [{type:
 * integer}, {type: string}]`, put first in an allOf when the node already has an anyOf (upstream's
 * Unfold). Nodes already written in one of the two patterns are left as they are.
 */
export function unfold(s: Structural): Structural {
  return mapStructural(s, (n) => {
    if (!n.xIntOrString || isIntOrStringAnyOfPattern(n) || isIntOrStringAllOfPattern(n)) return;
    const vv = (n.valueValidation ??= {});
    if (!vv.anyOf) {
      vv.anyOf = [typed('integer'), typed('string')];
    } else {
      const wrapper = emptyNested();
      wrapper.anyOf = [typed('integer'), typed('string')];
      vv.allOf = [wrapper, ...(vv.allOf ?? [])];
    }
  });
}

/** A copy without any value validation (upstream's StripValueValidations). */
export function stripValueValidations(s: Structural): Structural {
  return mapStructural(s, (n) => {
    delete n.valueValidation;
  });
}

/** A copy with nullable false everywhere (upstream's StripNullable). */
export function stripNullable(s: Structural): Structural {
  return mapStructural(s, (n) => {
    n.nullable = false;
  });
}
