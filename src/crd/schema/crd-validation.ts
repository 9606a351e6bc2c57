/**
 * The schema rules of a CustomResourceDefinition version (upstream's
 * validateCustomResourceDefinitionValidation and ValidateCustomResourceDefinitionOpenAPISchema,
 * pkg/apis/apiextensions/validation/validation.go), with upstream's paths and texts:
 *
 * - with the status subresource, only some keywords at the root (`only "object" is allowed as the
 *   type at the root …`, `only [Description Type …] fields are allowed at the root …`);
 * - `nullable cannot be true at the root`;
 * - the schema must be structural (validate-structural.ts), then its defaults valid and pruned
 *   (validate-defaults.ts); a schema that cannot even be converted reports that last;
 * - per node: an OpenAPI v3 type (`Unsupported value: "foo": supported values: "array", …`), no `id`,
 *   `$ref`, `additionalItems`, `patternProperties`, `definitions`, `dependencies`, `type: null`,
 *   list-form `items`, `uniqueItems`; `default` only where defaults are allowed (`must not be set`
 *   with the reason: in top-level metadata, inside additionalProperties applying to object metadata);
 *   properties and additionalProperties mutually exclusive; the x-kubernetes-* combinations
 *   (map-type on objects, list-type on arrays with atomic set items, map lists with scalar,
 *   required-or-defaulted, non-nullable keys); the static x-kubernetes-validations rules (rule
 *   present, message without line breaks, known reason, valid fieldPath).
 *
 * CEL compilation and cost limits are the job of src/crd/cel: it plugs in through `cel` hooks,
 * called where upstream compiles (only for schemas that are structural with valid defaults, only at
 * nodes whose subtree has no schema error).
 */
import type { FieldError } from '../../api/errors.ts';
import * as field from '../../registry/validation/field.ts';
import type { FieldPath, PathLike } from '../../registry/validation/field.ts';
import { validFieldPath } from '../cel/field-path.ts';
import type { JSONSchemaProps } from './types.ts';
import type { Structural } from './structural.ts';
import { tryToStructural } from './convert.ts';
import { validateStructural } from './validate-structural.ts';
import { validateDefaults, type CelDefaultValidator } from './validate-defaults.ts';
import { rootPath } from './field-errors.ts';
import { internalSchemaJson } from './internal-json.ts';

const OPENAPI_V3_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const SUPPORTED_VALIDATION_REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];
const META_FIELDS = new Set(['metadata', 'kind', 'apiVersion']);

/** The Go field names allowed at the root of a schema with the status subresource. */
const ALLOWED_AT_ROOT_WITH_STATUS = [
  'Description',
  'Type',
  'Format',
  'Title',
  'Maximum',
  'ExclusiveMaximum',
  'Minimum',
  'ExclusiveMinimum',
  'MaxLength',
  'MinLength',
  'Pattern',
  'MaxItems',
  'MinItems',
  'UniqueItems',
  'MultipleOf',
  'Required',
  'Items',
  'Properties',
  'ExternalDocs',
  'Example',
  'XPreserveUnknownFields',
  'XValidations',
];

/** The internal JSONSchemaProps fields in declaration order, with the v1 JSON key each reads. */
const INTERNAL_FIELDS: readonly (readonly [string, keyof JSONSchemaProps])[] = [
  ['ID', 'id'],
  ['Schema', '$schema'],
  ['Ref', '$ref'],
  ['Description', 'description'],
  ['Type', 'type'],
  ['Nullable', 'nullable'],
  ['Format', 'format'],
  ['Title', 'title'],
  ['Default', 'default'],
  ['Maximum', 'maximum'],
  ['ExclusiveMaximum', 'exclusiveMaximum'],
  ['Minimum', 'minimum'],
  ['ExclusiveMinimum', 'exclusiveMinimum'],
  ['MaxLength', 'maxLength'],
  ['MinLength', 'minLength'],
  ['Pattern', 'pattern'],
  ['MaxItems', 'maxItems'],
  ['MinItems', 'minItems'],
  ['UniqueItems', 'uniqueItems'],
  ['MultipleOf', 'multipleOf'],
  ['Enum', 'enum'],
  ['MaxProperties', 'maxProperties'],
  ['MinProperties', 'minProperties'],
  ['Required', 'required'],
  ['Items', 'items'],
  ['AllOf', 'allOf'],
  ['OneOf', 'oneOf'],
  ['AnyOf', 'anyOf'],
  ['Not', 'not'],
  ['Properties', 'properties'],
  ['AdditionalProperties', 'additionalProperties'],
  ['PatternProperties', 'patternProperties'],
  ['Dependencies', 'dependencies'],
  ['AdditionalItems', 'additionalItems'],
  ['Definitions', 'definitions'],
  ['ExternalDocs', 'externalDocs'],
  ['Example', 'example'],
  ['XPreserveUnknownFields', 'x-kubernetes-preserve-unknown-fields'],
  ['XEmbeddedResource', 'x-kubernetes-embedded-resource'],
  ['XIntOrString', 'x-kubernetes-int-or-string'],
  ['XListMapKeys', 'x-kubernetes-list-map-keys'],
  ['XListType', 'x-kubernetes-list-type'],
  ['XMapType', 'x-kubernetes-map-type'],
  ['XValidations', 'x-kubernetes-validations'],
];

/** Whether a v1 field holds what Go would see as its zero value (nil, '', false, empty list or map). */
function isZeroField(v: unknown): boolean {
  if (v === undefined || v === null || v === '' || v === false) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') return Object.keys(v).length === 0;
  return false;
}

/** One place x-kubernetes-validations sit, as the CEL side needs it. */
export interface CelRuleSite {
  /** The node's path (`spec.versions[0].schema.openAPIV3Schema.properties[spec]`). */
  readonly path: FieldPath;
  readonly schema: JSONSchemaProps;
  /** The steps from the root to the node (for cardinality estimates). */
  readonly steps: readonly CelStep[];
  /** The highest ancestor old and new values cannot be paired below (oldSelf is refused there). */
  readonly uncorrelatablePath: FieldPath | undefined;
  /** The whole schema, structural (its checks passed). */
  readonly root: Structural;
}

export type CelStep = { readonly property: string; readonly schema: JSONSchemaProps } | { readonly additionalProperties: JSONSchemaProps } | { readonly items: JSONSchemaProps };

/** Where src/crd/cel plugs in. */
export interface CrdCelHooks {
  /** Compile one node's rules; its errors follow every schema error (upstream's CELErrors). */
  validateRules(site: CelRuleSite): FieldError[];
  /** After the walk: errors for the whole schema (the estimated total cost). */
  finish?(): FieldError[];
  /** Evaluate a default against its node's rules. */
  validateDefault?: CelDefaultValidator;
}

export interface CrdSchemaOptions {
  /** The path of the version's `schema` (`spec.versions[0].schema`); errors sit under `openAPIV3Schema`. */
  path?: PathLike;
  /** The version has the status subresource. */
  statusSubresourceEnabled?: boolean;
  /** Defaults may be used (true for v1). */
  allowDefaults?: boolean;
  disallowDefaultsReason?: string;
  /** The ratchets upstream relaxes on updates of CRDs that already break them (see optionsForUpdate). */
  requireValidPropertyType?: boolean;
  requireStructuralSchema?: boolean;
  requirePrunedDefaults?: boolean;
  requireAtomicSetType?: boolean;
  requireMapListKeysMapSetValidation?: boolean;
  cel?: CrdCelHooks;
}

interface Settings {
  readonly allowDefaults: boolean;
  readonly disallowDefaultsReason: string;
  readonly insideResourceMeta: boolean;
  readonly requireValidPropertyType: boolean;
  readonly uncorrelatablePath: FieldPath | undefined;
}

interface Walk {
  readonly opts: CrdSchemaOptions;
  readonly schemaErrors: FieldError[];
  readonly celErrors: FieldError[];
  /** Set when CEL rules are to be compiled (structural and defaults passed). */
  readonly celRoot: Structural | undefined;
}

/**
 * The problems of a version's openAPIV3Schema, as upstream reports them when a CRD is written.
 *
 * @example
 * validateCrdSchema({ type: 'object', properties: { spec: {} } }, { path: 'spec.versions[0].schema' })
 * // [{ type: 'FieldValueRequired', field: 'spec.versions[0].schema.openAPIV3Schema.properties[spec].type',
 * //    detail: 'must not be empty for specified object fields' }]
 */
export function validateCrdSchema(props: JSONSchemaProps, options: CrdSchemaOptions = {}): FieldError[] {
  const opts: CrdSchemaOptions = {
    allowDefaults: true,
    requireValidPropertyType: true,
    requireStructuralSchema: true,
    requirePrunedDefaults: true,
    requireAtomicSetType: true,
    requireMapListKeysMapSetValidation: true,
    ...options,
  };
  const base = rootPath(opts.path);
  const schemaPath = base.child('openAPIV3Schema');
  const errs: FieldError[] = [];

  if (opts.statusSubresourceEnabled) {
    const problem = statusRootProblem(props, base);
    if (problem) errs.push(problem);
  }
  if (props.nullable) errs.push(field.forbidden(base.child('openAPIV3Schema.nullable'), 'nullable cannot be true at the root'));

  let celRoot: Structural | undefined;
  const initErrors: FieldError[] = [];
  if (opts.requireStructuralSchema) {
    const converted = tryToStructural(props);
    if ('error' in converted) {
      // These overlap with the per-node errors: shown only when there are none.
      initErrors.push(field.invalid(schemaPath, '', converted.error));
    } else {
      const structuralErrs = validateStructural(schemaPath, converted.structural);
      if (structuralErrs.length > 0) {
        errs.push(...structuralErrs);
      } else {
        const defaultErrs = validateDefaults(schemaPath, converted.structural, true, {
          requirePrunedDefaults: opts.requirePrunedDefaults === true,
          ...(opts.cel?.validateDefault ? { celValidateDefault: opts.cel.validateDefault } : {}),
        });
        if (defaultErrs.length > 0) errs.push(...defaultErrs);
        else celRoot = converted.structural;
      }
    }
  }

  const walk: Walk = { opts, schemaErrors: [], celErrors: [], celRoot };
  const settings: Settings = {
    allowDefaults: opts.allowDefaults === true,
    disallowDefaultsReason: opts.disallowDefaultsReason ?? '',
    insideResourceMeta: false,
    requireValidPropertyType: opts.requireValidPropertyType === true,
    uncorrelatablePath: undefined,
  };
  validateNode(walk, props, schemaPath, settings, true, celRoot ? [] : undefined);
  errs.push(...walk.schemaErrors, ...walk.celErrors);
  if (errs.length === 0) errs.push(...initErrors);
  if (celRoot && opts.cel?.finish) errs.push(...opts.cel.finish());
  return errs;
}

/** The first keyword a status-enabled root may not have (upstream stops at it). */
function statusRootProblem(props: JSONSchemaProps, base: FieldPath): FieldError | undefined {
  for (const [goName, key] of INTERNAL_FIELDS) {
    if (isZeroField(props[key])) continue;
    if (goName === 'Type') {
      if (props.type !== 'object') {
        return field.invalid(base.child('openAPIV3Schema.type'), props.type, 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled');
      }
      continue;
    }
    if (!ALLOWED_AT_ROOT_WITH_STATUS.includes(goName)) {
      return {
        type: 'FieldValueInvalid',
        field: String(base.child('openAPIV3Schema')),
        rawValue: internalSchemaJson(props),
        detail: `only [${ALLOWED_AT_ROOT_WITH_STATUS.join(' ')}] fields are allowed at the root of the schema if the status subresource is enabled`,
      };
    }
  }
  return undefined;
}

/** specStandardValidatorV3.validate: the keywords refused at any node. */
function standardErrors(s: JSONSchemaProps, p: FieldPath, settings: Settings): FieldError[] {
  const errs: FieldError[] = [];
  if (settings.requireValidPropertyType && s.type && !OPENAPI_V3_TYPES.includes(s.type)) {
    errs.push(field.notSupported(p.child('type'), s.type, OPENAPI_V3_TYPES));
  }
  if (s.default !== undefined && s.default !== null && !settings.allowDefaults) {
    const detail = settings.disallowDefaultsReason ? `must not be set ${settings.disallowDefaultsReason}` : 'must not be set';
    errs.push(field.forbidden(p.child('default'), detail));
  }
  if (s.id) errs.push(field.forbidden(p.child('id'), 'id is not supported'));
  if (s.additionalItems !== undefined && s.additionalItems !== null) errs.push(field.forbidden(p.child('additionalItems'), 'additionalItems is not supported'));
  if (s.patternProperties && Object.keys(s.patternProperties).length > 0) errs.push(field.forbidden(p.child('patternProperties'), 'patternProperties is not supported'));
  if (s.definitions && Object.keys(s.definitions).length > 0) errs.push(field.forbidden(p.child('definitions'), 'definitions is not supported'));
  if (s.dependencies !== undefined && s.dependencies !== null) errs.push(field.forbidden(p.child('dependencies'), 'dependencies is not supported'));
  if (s.$ref !== undefined && s.$ref !== null) errs.push(field.forbidden(p.child('$ref'), '$ref is not supported'));
  if (s.type === 'null') errs.push(field.forbidden(p.child('type'), 'type cannot be set to null, use nullable as an alternative'));
  if (Array.isArray(s.items) && s.items.length > 0) errs.push(field.forbidden(p.child('items'), 'items must be a schema object and not an array'));
  if (settings.insideResourceMeta && s['x-kubernetes-embedded-resource']) {
    errs.push(field.forbidden(p.child('x-kubernetes-embedded-resource'), 'must not be used inside of resource meta'));
  }
  return errs;
}

function withForbiddenDefaults(s: Settings, reason: string): Settings {
  return { ...s, allowDefaults: false, disallowDefaultsReason: reason };
}

function withForbidOldSelf(s: Settings, p: FieldPath): Settings {
  return s.uncorrelatablePath ? s : { ...s, uncorrelatablePath: p };
}

/** Whether old and new values of an object can be paired (a map type upstream does not know cannot). */
function mapIsCorrelatable(mapType: string | undefined): boolean {
  return mapType === undefined || mapType === 'granular' || mapType === 'atomic';
}

/**
 * One node and its subtree (upstream's ValidateCustomResourceDefinitionOpenAPISchema). `steps` is
 * undefined where CEL rules are not compiled (inside junctors, or when structural checks failed).
 */
function validateNode(walk: Walk, s: JSONSchemaProps | undefined, p: FieldPath, settings: Settings, isRoot: boolean, steps: CelStep[] | undefined): void {
  if (!s) return;
  const errs = walk.schemaErrors;
  const before = errs.length;
  errs.push(...standardErrors(s, p, settings));
  if (s.uniqueItems) errs.push(field.forbidden(p.child('uniqueItems'), 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));

  const props = s.properties ?? {};
  const hasProps = Object.keys(props).length > 0;
  const ap = s.additionalProperties;
  if (ap !== undefined && ap !== null) {
    // additionalProperties are for maps, properties for structs: never both (but `true` is harmless).
    if (hasProps && (ap === false || typeof ap === 'object')) {
      errs.push(field.forbidden(p.child('additionalProperties'), 'additionalProperties and properties are mutual exclusive'));
    }
    // Pruning a default without an actual value is ambiguous under metadata's maps.
    const sub = settings.insideResourceMeta ? withForbiddenDefaults(settings, 'inside additionalProperties applying to object metadata') : settings;
    if (typeof ap === 'object') validateNode(walk, ap, p.child('additionalProperties'), sub, false, steps && [...steps, { additionalProperties: ap }]);
  }

  for (const k of Object.keys(props)) {
    let sub = settings;
    if (!mapIsCorrelatable(s['x-kubernetes-map-type'] ?? undefined)) sub = withForbidOldSelf(sub, p);
    if ((isRoot || s['x-kubernetes-embedded-resource']) && META_FIELDS.has(k)) {
      sub = { ...sub, insideResourceMeta: true };
      if (isRoot) sub = withForbiddenDefaults(sub, `in top-level ${k}`);
    }
    const child = props[k] ?? {};
    validateNode(walk, child, p.child('properties').key(k), sub, false, steps && [...steps, { property: k, schema: child }]);
  }

  validateNode(walk, s.not ?? undefined, p.child('not'), settings, false, undefined);
  s.allOf?.forEach((x, i) => validateNode(walk, x, p.child('allOf').index(i), settings, false, undefined));
  s.oneOf?.forEach((x, i) => validateNode(walk, x, p.child('oneOf').index(i), settings, false, undefined));
  s.anyOf?.forEach((x, i) => validateNode(walk, x, p.child('anyOf').index(i), settings, false, undefined));
  for (const k of Object.keys(s.definitions ?? {})) validateNode(walk, s.definitions![k], p.child('definitions').key(k), settings, false, undefined);

  const items = s.items;
  if (items !== undefined && items !== null) {
    // Only map lists pair their items between old and new values.
    const sub = s['x-kubernetes-list-type'] !== 'map' ? withForbidOldSelf(settings, p) : settings;
    if (Array.isArray(items)) items.forEach((x, i) => validateNode(walk, x, p.child('items').index(i), sub, false, steps && [...steps, { items: x }]));
    else validateNode(walk, items, p.child('items'), sub, false, steps && [...steps, { items }]);
  }
  for (const k of Object.keys(s.dependencies ?? {})) {
    const dep = s.dependencies![k];
    if (dep && !Array.isArray(dep)) validateNode(walk, dep, p.child('dependencies').key(k), settings, false, undefined);
  }

  errs.push(...extensionErrors(s, p, walk.opts));
  errs.push(...ruleErrors(s, p));

  const rules = s['x-kubernetes-validations'];
  if (rules && rules.length > 0 && errs.length === before && steps && walk.celRoot && walk.opts.cel) {
    walk.celErrors.push(...walk.opts.cel.validateRules({ path: p, schema: s, steps, uncorrelatablePath: settings.uncorrelatablePath, root: walk.celRoot }));
  }
}

/** The x-kubernetes-* combinations of one node. */
function extensionErrors(s: JSONSchemaProps, p: FieldPath, opts: CrdSchemaOptions): FieldError[] {
  const errs: FieldError[] = [];
  const type = s.type ?? '';
  const listType = s['x-kubernetes-list-type'] ?? undefined;
  const mapType = s['x-kubernetes-map-type'] ?? undefined;
  const mapKeys = s['x-kubernetes-list-map-keys'] ?? [];
  const items = s.items !== undefined && s.items !== null && !Array.isArray(s.items) ? s.items : undefined;

  if (s['x-kubernetes-preserve-unknown-fields'] === false) {
    errs.push(field.invalid(p.child('x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'));
  }
  if (mapType !== undefined && type !== 'object') {
    if (type === '') errs.push(field.required(p.child('type'), 'must be object if x-kubernetes-map-type is specified'));
    else errs.push(field.invalid(p.child('type'), type, 'must be object if x-kubernetes-map-type is specified'));
  }
  if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular') {
    errs.push(field.notSupported(p.child('x-kubernetes-map-type'), mapType, ['atomic', 'granular']));
  }
  if (listType !== undefined && type !== 'array') {
    if (type === '') errs.push(field.required(p.child('type'), 'must be array if x-kubernetes-list-type is specified'));
    else errs.push(field.invalid(p.child('type'), type, 'must be array if x-kubernetes-list-type is specified'));
  } else if (opts.requireAtomicSetType && listType === 'set' && items) {
    const itemListType = items['x-kubernetes-list-type'] ?? undefined;
    if (items.type === 'array' && itemListType !== undefined && itemListType !== 'atomic') {
      errs.push(field.invalid(p.child('items').child('x-kubernetes-list-type'), itemListType, 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    } else if (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      // Upstream shows the items' list-type here (usually unset).
      errs.push(field.invalid(p.child('items').child('x-kubernetes-map-type'), itemListType ?? null, 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    }
  }
  if (listType !== undefined && listType !== 'atomic' && listType !== 'set' && listType !== 'map') {
    errs.push(field.notSupported(p.child('x-kubernetes-list-type'), listType, ['atomic', 'set', 'map']));
  }
  if (mapKeys.length > 0) {
    if (listType === undefined) errs.push(field.required(p.child('x-kubernetes-list-type'), 'must be map if x-kubernetes-list-map-keys is non-empty'));
    else if (listType !== 'map') errs.push(field.invalid(p.child('x-kubernetes-list-type'), listType, 'must be map if x-kubernetes-list-map-keys is non-empty'));
  }
  if (listType === 'map') {
    if (mapKeys.length === 0) errs.push(field.required(p.child('x-kubernetes-list-map-keys'), 'must not be empty if x-kubernetes-list-type is map'));
    if (s.items === undefined || s.items === null) errs.push(field.required(p.child('items'), 'must have a schema if x-kubernetes-list-type is map'));
    if (Array.isArray(s.items)) errs.push({ type: 'FieldValueInvalid', field: String(p.child('items')), rawValue: internalItemsJson(s.items), detail: 'must only have a single schema if x-kubernetes-list-type is map' });
    if (items && items.type !== 'object') {
      errs.push(field.invalid(p.child('items').child('type'), items.type ?? '', "must be object if parent array's x-kubernetes-list-type is map"));
    }
    if (items && items.type === 'object') {
      const seen = new Set<string>();
      for (const k of mapKeys) {
        const keySchema = ownProperty(items, k);
        if (keySchema) {
          if (keySchema.type === 'array' || keySchema.type === 'object') {
            errs.push(field.invalid(p.child('items').child('properties').key(k).child('type'), items.type, "must be a scalar type if parent array's x-kubernetes-list-type is map"));
          }
        } else {
          errs.push(field.invalid(p.child('x-kubernetes-list-map-keys'), mapKeys, 'entries must all be names of item properties'));
        }
        if (seen.has(k)) errs.push(field.invalid(p.child('x-kubernetes-list-map-keys'), mapKeys, 'must not contain duplicate entries'));
        seen.add(k);
      }
    }
  }
  if (opts.requireMapListKeysMapSetValidation) errs.push(...mapListKeysMapSetErrors(s, p));
  return errs;
}

/** Map and set list items are never nullable; map keys are required or defaulted, and not nullable. */
export function mapListKeysMapSetErrors(s: JSONSchemaProps, p: FieldPath): FieldError[] {
  const items = s.items !== undefined && s.items !== null && !Array.isArray(s.items) ? s.items : undefined;
  const listType = s['x-kubernetes-list-type'];
  if (!items || (listType !== 'set' && listType !== 'map')) return [];
  const errs: FieldError[] = [];
  if (items.nullable) errs.push(field.forbidden(p.child('items').child('nullable'), `cannot be nullable when x-kubernetes-list-type is ${listType}`));
  if (listType === 'map') {
    const required = new Set(items.required ?? []);
    for (const k of s['x-kubernetes-list-map-keys'] ?? []) {
      const keySchema = ownProperty(items, k);
      if (!keySchema) continue;
      if (!required.has(k) && (keySchema.default === undefined || keySchema.default === null)) {
        errs.push(field.required(p.child('items').child('properties').key(k).child('default'), 'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property'));
      }
      if (keySchema.nullable) {
        errs.push(field.forbidden(p.child('items').child('properties').key(k).child('nullable'), 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable'));
      }
    }
  }
  return errs;
}

const NEWLINES = /[\n\r]+/;

/** A property of a JSONSchemaProps by any name (`constructor` included). */
function ownProperty(s: JSONSchemaProps, k: string): JSONSchemaProps | undefined {
  return s.properties && Object.hasOwn(s.properties, k) ? s.properties[k] : undefined;
}

/** The static checks of x-kubernetes-validations entries. */
function ruleErrors(s: JSONSchemaProps, p: FieldPath): FieldError[] {
  const rules = s['x-kubernetes-validations'];
  if (!rules || rules.length === 0) return [];
  const errs: FieldError[] = [];
  rules.forEach((rule, i) => {
    const at = p.child('x-kubernetes-validations').index(i);
    const ruleText = rule.rule ?? '';
    const message = rule.message ?? '';
    const trimmedRule = ruleText.trim();
    const trimmedMessage = message.trim();
    if (trimmedRule === '') errs.push(field.required(at.child('rule'), 'rule is not specified'));
    else if (message.length > 0 && trimmedMessage === '') errs.push(field.invalid(at.child('message'), message, 'must be non-empty if specified'));
    else if (NEWLINES.test(trimmedMessage)) errs.push(field.invalid(at.child('message'), message, 'must not contain line breaks'));
    else if (NEWLINES.test(trimmedRule) && trimmedMessage === '') errs.push(field.required(at.child('message'), 'message must be specified if rule contains line breaks'));
    const messageExpression = rule.messageExpression ?? '';
    if (messageExpression.length > 0 && messageExpression.trim() === '') {
      errs.push(field.required(at.child('messageExpression'), 'messageExpression must be non-empty if specified'));
    }
    if (rule.reason !== undefined && rule.reason !== null && !SUPPORTED_VALIDATION_REASONS.includes(rule.reason)) {
      errs.push(field.notSupported(at.child('reason'), rule.reason, SUPPORTED_VALIDATION_REASONS));
    }
    const fieldPath = rule.fieldPath ?? '';
    if (fieldPath.length > 0 && fieldPath.trim() === '') errs.push(field.invalid(at.child('fieldPath'), fieldPath, 'must be non-empty if specified'));
    if (NEWLINES.test(fieldPath)) errs.push(field.invalid(at.child('fieldPath'), fieldPath, 'must not contain line breaks'));
    if (fieldPath.length > 0 && !pathValid(s, fieldPath)) errs.push(field.invalid(at.child('fieldPath'), fieldPath, 'must be a valid path'));
  });
  return errs;
}

/** A rule's fieldPath names a field of the node (a node that is not structural accepts any). */
function pathValid(s: JSONSchemaProps, fieldPath: string): boolean {
  const converted = tryToStructural(s);
  if ('error' in converted) return true;
  return !(validFieldPath(fieldPath, converted.structural) instanceof Error);
}

function internalItemsJson(items: JSONSchemaProps[]): string {
  return `{"Schema":null,"JSONSchemas":[${items.map(internalSchemaJson).join(',')}]}`;
}

/**
 * The selectable fields of a version (upstream's ValidateCustomResourceSelectableFields): paths
 * without array notation to string, boolean or integer fields outside metadata, unique, at most 8.
 */
export function validateSelectableFields(fields: readonly { jsonPath?: string }[], s: Structural, path: PathLike): FieldError[] {
  const base = rootPath(path);
  const errs: FieldError[] = [];
  const unique = new Set<string>();
  fields.forEach((f, i) => {
    const at = base.index(i).child('jsonPath');
    const jsonPath = f.jsonPath ?? '';
    if (jsonPath === '') {
      errs.push(field.required(at));
      return;
    }
    const found = validFieldPath(jsonPath, s, false);
    if (found instanceof Error) {
      errs.push(field.invalid(at, jsonPath, `is an invalid path: ${found.message}`));
      return;
    }
    if (/^[^.[]*/.exec(found.path)![0] === 'metadata') errs.push(field.invalid(at, jsonPath, 'must not point to fields in metadata'));
    const type = found.schema?.type;
    if (type !== 'string' && type !== 'boolean' && type !== 'integer') {
      errs.push(field.invalid(at, jsonPath, 'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.'));
    }
    if (unique.has(found.path)) errs.push(field.duplicate(at, jsonPath));
    else unique.add(found.path);
  });
  if (unique.size > 8) errs.push(field.tooMany(base, unique.size, 8));
  return errs;
}
