/**
 * Whether a schema is structural (upstream's ValidateStructural, pkg/apiserver/schema/validation.go
 * and complete.go), with upstream's paths and texts:
 *
 * - a `type` at every specified level (`type: Required value: must not be empty for specified object fields`),
 *   except where x-kubernetes-int-or-string or x-kubernetes-preserve-unknown-fields allow none;
 * - `object` at the root, `items` for arrays, no `additionalProperties` at the root;
 * - nothing but value validation under allOf/anyOf/oneOf/not (`must be empty to be structural`,
 *   `must be undefined to be structural`, `must be false to be structural`), with the two
 *   int-or-string patterns (`anyOf: [{type: integer}, {type: string}]`, or that anyOf first in allOf) allowed;
 * - x-kubernetes-embedded-resource only on objects, with preserve-unknown-fields or properties;
 * - `metadata` at the root restricting only name and generateName, never in a junctor;
 * - every field or item named in value validation also specified structurally (completeness);
 * - patterns that Go's regexp compiles.
 *
 * The errors come sorted by their text, as upstream sorts them.
 */
import type { FieldError } from '../../api/errors.ts';
import * as field from '../../registry/validation/field.ts';
import type { FieldPath, PathLike } from '../../registry/validation/field.ts';
import { re2Error } from '../../cel/runtime/re2.ts';
import { propertyOf, type NestedValueValidation, type Structural, type ValueValidation } from './structural.ts';
import { rootPath, sortFieldErrors } from './field-errors.ts';

const enum Level {
  Root,
  Item,
  Field,
}

/** Upstream's ValidationOptions; the CRD path uses all false. */
export interface StructuralValidationOptions {
  allowNestedAdditionalProperties?: boolean;
  allowNestedXValidations?: boolean;
  allowValidationPropertiesWithAdditionalProperties?: boolean;
}

/**
 * The reasons `s` is not structural; empty when it is. `root` is the path the schema sits at
 * (`spec.versions[0].schema.openAPIV3Schema`).
 */
export function validateStructural(root: PathLike | undefined, s: Structural, opts: StructuralValidationOptions = {}): FieldError[] {
  const p = rootPath(root);
  const errs = [...invariants(s, Level.Root, p, opts), ...completeness(s, p, opts)];
  return sortFieldErrors(errs);
}

function invariants(s: Structural | undefined, lvl: Level, p: FieldPath, opts: StructuralValidationOptions): FieldError[] {
  if (!s) return [];
  const errs: FieldError[] = [];
  if (s.type === 'array' && !s.items) errs.push(field.required(p.child('items'), 'must be specified'));
  errs.push(...invariants(s.items, Level.Item, p.child('items'), opts));
  if (s.properties) {
    for (const k of Object.keys(s.properties)) errs.push(...invariants(s.properties[k], Level.Field, p.child('properties').key(k), opts));
  }
  if (s.additionalProperties) {
    if (lvl === Level.Root) errs.push(field.forbidden(p.child('additionalProperties'), 'must not be used at the root'));
    errs.push(...invariants(s.additionalProperties.structural, Level.Field, p.child('additionalProperties'), opts));
  }

  if (s.xIntOrString && s.xPreserveUnknownFields) {
    errs.push(field.invalid(p.child('x-kubernetes-preserve-unknown-fields'), true, 'must be false if x-kubernetes-int-or-string is true'));
  }
  if (s.xIntOrString && s.xEmbeddedResource) {
    errs.push(field.invalid(p.child('x-kubernetes-embedded-resource'), true, 'must be false if x-kubernetes-int-or-string is true'));
  }

  errs.push(...valueValidationErrors(s.valueValidation, isIntOrStringAnyOfPattern(s), isIntOrStringAllOfPattern(s), lvl, p, opts));

  const checkMetadata = lvl === Level.Root || s.xEmbeddedResource;
  if (s.xEmbeddedResource && s.type !== 'object') {
    if (s.type === '') errs.push(field.required(p.child('type'), 'must be object if x-kubernetes-embedded-resource is true'));
    else errs.push(field.invalid(p.child('type'), s.type, 'must be object if x-kubernetes-embedded-resource is true'));
  } else if (s.type === '' && !s.xIntOrString && !s.xPreserveUnknownFields) {
    const detail =
      lvl === Level.Root
        ? 'must not be empty at the root'
        : lvl === Level.Item
          ? 'must not be empty for specified array items'
          : 'must not be empty for specified object fields';
    errs.push(field.required(p.child('type'), detail));
  }
  if (s.xEmbeddedResource && s.additionalProperties) {
    errs.push(field.forbidden(p.child('additionalProperties'), 'must not be used if x-kubernetes-embedded-resource is set'));
  }
  if (lvl === Level.Root && s.type !== '' && s.type !== 'object') {
    errs.push(field.invalid(p.child('type'), s.type, 'must be object at the root'));
  }

  const props = s.properties;
  if (props && checkMetadata) {
    for (const name of ['kind', 'apiVersion'] as const) {
      const sub = props[name];
      if (sub && sub.type !== 'string') errs.push(field.invalid(p.child('properties').key(name).child('type'), sub.type, 'must be string'));
    }
  }
  const metadata = props?.['metadata'];
  if (metadata) errs.push(...metadataInvariants(metadata, checkMetadata, lvl, p.child('properties').key('metadata')));

  if (s.xEmbeddedResource && !s.xPreserveUnknownFields && (!props || Object.keys(props).length === 0)) {
    errs.push(field.required(p.child('properties'), 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'));
  }
  return errs;
}

/** The metadata of a resource is the server's: a schema may only restrict name and generateName at the root. */
function metadataInvariants(s: Structural, checkMetadata: boolean, lvl: Level, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (checkMetadata && s.type !== 'object') errs.push(field.invalid(p.child('type'), s.type, 'must be object'));
  if (lvl === Level.Root && !restrictsOnlyNames(s)) {
    errs.push(field.forbidden(p, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
  }
  return errs;
}

/** Upstream blanks type, default and a {name, generateName} property set, then wants nothing left. */
function restrictsOnlyNames(s: Structural): boolean {
  if (s.properties) {
    const keys = Object.keys(s.properties);
    const onlyNames = keys.length > 0 && keys.length <= 2 && keys.every((k) => k === 'name' || k === 'generateName');
    if (!onlyNames) return false;
  }
  return (
    !s.items &&
    !s.additionalProperties &&
    !s.description &&
    !s.title &&
    !s.nullable &&
    !s.xPreserveUnknownFields &&
    !s.xEmbeddedResource &&
    !s.xIntOrString &&
    !s.xListMapKeys &&
    s.xListType === undefined &&
    s.xMapType === undefined &&
    !(s.xValidations && s.xValidations.length > 0) &&
    isEmptyValueValidation(s.valueValidation)
  );
}

function isEmptyValueValidation(v: ValueValidation | undefined): boolean {
  if (!v) return true;
  for (const k of Object.keys(v) as (keyof ValueValidation)[]) {
    if (v[k] !== undefined) return false;
  }
  return true;
}

/** A junctor branch that is exactly `{type: <t>}`. */
function isBareType(n: NestedValueValidation, type: string): boolean {
  const g = n.forbiddenGenerics;
  const x = n.forbiddenExtensions;
  return (
    g.type === type &&
    !g.nullable &&
    !g.description &&
    !g.title &&
    g.default === undefined &&
    !x.xPreserveUnknownFields &&
    !x.xEmbeddedResource &&
    !x.xIntOrString &&
    !x.xListMapKeys &&
    x.xListType === undefined &&
    x.xMapType === undefined &&
    !n.items &&
    !n.properties &&
    !n.additionalProperties &&
    !(n.xValidations && n.xValidations.length > 0) &&
    isEmptyValueValidation(valueValidationOf(n))
  );
}

/** The ValueValidation part of a nested node. */
export function valueValidationOf(n: NestedValueValidation): ValueValidation {
  const { items: _i, properties: _p, additionalProperties: _a, forbiddenGenerics: _g, forbiddenExtensions: _x, xValidations: _v, ...vv } = n;
  return vv;
}

function isIntOrStringAnyOf(anyOf: NestedValueValidation[] | undefined): boolean {
  return anyOf !== undefined && anyOf.length === 2 && isBareType(anyOf[0]!, 'integer') && isBareType(anyOf[1]!, 'string');
}

/** `anyOf: [{type: integer}, {type: string}]`. */
export function isIntOrStringAnyOfPattern(s: Structural): boolean {
  return isIntOrStringAnyOf(s.valueValidation?.anyOf);
}

/** `allOf: [{anyOf: [{type: integer}, {type: string}]}, …]`. */
export function isIntOrStringAllOfPattern(s: Structural): boolean {
  const allOf = s.valueValidation?.allOf;
  return allOf !== undefined && allOf.length >= 1 && isIntOrStringAnyOf(allOf[0]!.anyOf);
}

function valueValidationErrors(
  v: ValueValidation | undefined,
  skipAnyOf: boolean,
  skipFirstAllOfAnyOf: boolean,
  lvl: Level,
  p: FieldPath,
  opts: StructuralValidationOptions,
): FieldError[] {
  if (!v) return [];
  const errs: FieldError[] = [];
  // CEL rules are only allowed under allOf (when at all): the other junctors would need the
  // OpenAPI validator to know CEL.
  const noCel = { ...opts, allowNestedXValidations: false };
  if (!skipAnyOf) v.anyOf?.forEach((n, i) => errs.push(...nestedErrors(n, false, lvl, p.child('anyOf').index(i), noCel)));
  v.allOf?.forEach((n, i) => errs.push(...nestedErrors(n, skipFirstAllOfAnyOf && i === 0, lvl, p.child('allOf').index(i), opts)));
  v.oneOf?.forEach((n, i) => errs.push(...nestedErrors(n, false, lvl, p.child('oneOf').index(i), noCel)));
  if (v.not) errs.push(...nestedErrors(v.not, false, lvl, p.child('not'), noCel));
  if (v.pattern) {
    const problem = re2Error(v.pattern);
    if (problem !== undefined) errs.push(field.invalid(p.child('pattern'), v.pattern, `must be a valid regular expression, but isn't: ${problem}`));
  }
  return errs;
}

function nestedErrors(v: NestedValueValidation | undefined, skipAnyOf: boolean, lvl: Level, p: FieldPath, opts: StructuralValidationOptions): FieldError[] {
  if (!v) return [];
  const errs: FieldError[] = [];
  errs.push(...valueValidationErrors(v, skipAnyOf, false, lvl, p, opts));
  errs.push(...nestedErrors(v.items, false, lvl, p.child('items'), opts));
  if (v.properties) {
    for (const k of Object.keys(v.properties)) errs.push(...nestedErrors(v.properties[k], false, Level.Field, p.child('properties').key(k), opts));
  }
  const g = v.forbiddenGenerics;
  const x = v.forbiddenExtensions;
  if (g.type) errs.push(field.forbidden(p.child('type'), 'must be empty to be structural'));
  if (v.additionalProperties && !opts.allowNestedAdditionalProperties) {
    errs.push(field.forbidden(p.child('additionalProperties'), 'must be undefined to be structural'));
  } else {
    errs.push(...nestedErrors(v.additionalProperties, false, lvl, p.child('additionalProperties'), opts));
  }
  if (g.default !== undefined) errs.push(field.forbidden(p.child('default'), 'must be undefined to be structural'));
  if (g.title) errs.push(field.forbidden(p.child('title'), 'must be empty to be structural'));
  if (g.description) errs.push(field.forbidden(p.child('description'), 'must be empty to be structural'));
  if (g.nullable) errs.push(field.forbidden(p.child('nullable'), 'must be false to be structural'));
  if (x.xPreserveUnknownFields) errs.push(field.forbidden(p.child('x-kubernetes-preserve-unknown-fields'), 'must be false to be structural'));
  if (x.xEmbeddedResource) errs.push(field.forbidden(p.child('x-kubernetes-embedded-resource'), 'must be false to be structural'));
  if (x.xIntOrString) errs.push(field.forbidden(p.child('x-kubernetes-int-or-string'), 'must be false to be structural'));
  if (x.xListMapKeys && x.xListMapKeys.length > 0) errs.push(field.forbidden(p.child('x-kubernetes-list-map-keys'), 'must be empty to be structural'));
  if (x.xListType !== undefined) errs.push(field.forbidden(p.child('x-kubernetes-list-type'), 'must be undefined to be structural'));
  if (x.xMapType !== undefined) errs.push(field.forbidden(p.child('x-kubernetes-map-type'), 'must be undefined to be structural'));
  if (v.xValidations && v.xValidations.length > 0 && !opts.allowNestedXValidations) {
    errs.push(field.forbidden(p.child('x-kubernetes-validations'), 'must be empty to be structural'));
  }
  // Reasoning about metadata in a junctor could restrict it in ways the server cannot honour.
  if (v.properties && Object.hasOwn(v.properties, 'metadata')) {
    errs.push(field.forbidden(p.child('properties').key('metadata'), 'must not be specified in a nested context'));
  }
  return errs;
}

/**
 * Every property, item or additionalProperties named in value validation must be specified in the
 * structural part of the schema at the same place (upstream's validateStructuralCompleteness).
 */
function completeness(s: Structural, p: FieldPath, opts: StructuralValidationOptions): FieldError[] {
  return vvCompleteness(s.valueValidation, s, p, p, opts);
}

function vvCompleteness(v: ValueValidation | undefined, s: Structural | undefined, sPath: FieldPath, vPath: FieldPath, opts: StructuralValidationOptions): FieldError[] {
  if (!v) return [];
  if (!s) return [field.required(sPath, `because it is defined in ${vPath}`)];
  const errs: FieldError[] = [];
  errs.push(...nestedCompleteness(v.not, s, sPath, vPath.child('not'), opts));
  v.allOf?.forEach((n, i) => errs.push(...nestedCompleteness(n, s, sPath, vPath.child('allOf').index(i), opts)));
  v.anyOf?.forEach((n, i) => errs.push(...nestedCompleteness(n, s, sPath, vPath.child('anyOf').index(i), opts)));
  v.oneOf?.forEach((n, i) => errs.push(...nestedCompleteness(n, s, sPath, vPath.child('oneOf').index(i), opts)));
  return errs;
}

function nestedCompleteness(v: NestedValueValidation | undefined, s: Structural | undefined, sPath: FieldPath, vPath: FieldPath, opts: StructuralValidationOptions): FieldError[] {
  if (!v) return [];
  if (!s) return [field.required(sPath, `because it is defined in ${vPath}`)];
  const errs: FieldError[] = [];
  errs.push(...vvCompleteness(v, s, sPath, vPath, opts));
  errs.push(...nestedCompleteness(v.items, s.items, sPath.child('items'), vPath.child('items'), opts));
  const sAdditional = s.additionalProperties?.structural;
  if (v.properties) {
    for (const k of Object.keys(v.properties)) {
      const vFld = v.properties[k]!;
      const sFld = propertyOf(s, k);
      if (sFld) {
        errs.push(...nestedCompleteness(vFld, sFld, sPath.child('properties').key(k), vPath.child('properties').key(k), opts));
      } else if (!sAdditional || !opts.allowValidationPropertiesWithAdditionalProperties) {
        errs.push(field.required(sPath.child('properties').key(k), `because it is defined in ${vPath.child('properties').key(k)}`));
      } else {
        errs.push(...nestedCompleteness(vFld, sAdditional, sPath.child('additionalProperties'), vPath.child('properties').key(k), opts));
      }
    }
  }
  if (v.additionalProperties && opts.allowNestedAdditionalProperties) {
    errs.push(...nestedCompleteness(v.additionalProperties, sAdditional, sPath.child('additionalProperties'), vPath.child('additionalProperties'), opts));
  }
  return errs;
}
