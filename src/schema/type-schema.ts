/**
 * The type-schema object: what a kind's JSON looks like, as one tree of nodes that the type checker,
 * null handling, field validation, strategic merge patch and OpenAPI walk. Built-in kinds get theirs
 * compiled from the generated wire facts (`messageSchema`); a custom resource will get one compiled
 * from its CRD's openAPIV3Schema into the same nodes (objects with properties, arrays, maps from
 * additionalProperties, the string formats, x-kubernetes-int-or-string, x-kubernetes-preserve-unknown-fields
 * as `any`, list and map markers from x-kubernetes-list-type / -list-map-keys / -map-type), and with
 * no protobuf message: everything that walks a schema works on either.
 */
import {
  fieldsOf,
  getMessage,
  isScalar,
  wellKnownShape,
  type FieldSchema,
  type JsonShape,
  type ListType,
} from './generated/index.ts';

/** A JSON value of no fixed shape (RawExtension, FieldsV1, preserve-unknown-fields). */
export interface AnySchema extends Named {
  readonly kind: 'any';
}

/** A named type of the generated facts a node was compiled from (Time, Quantity …): OpenAPI refers to it. */
interface Named {
  readonly message?: string;
}

export interface StringSchema extends Named {
  readonly kind: 'string';
  /** The wire format the decoder checks: RFC 3339 times, base64 bytes, quantities, Go durations. */
  readonly format?: 'date-time' | 'micro-time' | 'byte' | 'quantity' | 'duration';
}

export interface IntegerSchema {
  readonly kind: 'integer';
  readonly format: 'int32' | 'int64' | 'uint32' | 'uint64';
}

export interface NumberSchema {
  readonly kind: 'number';
  readonly format: 'double' | 'float';
}

export interface BooleanSchema {
  readonly kind: 'boolean';
}

/** A string or an int32 (intstr.IntOrString). */
export interface IntOrStringSchema extends Named {
  readonly kind: 'int-or-string';
}

export interface ArraySchema {
  readonly kind: 'array';
  readonly items: TypeSchema;
}

/** A JSON object with free keys and values of one schema. */
export interface MapSchema {
  readonly kind: 'map';
  readonly values: TypeSchema;
}

/** A structure with named fields. */
export interface ObjectSchema {
  readonly kind: 'object';
  /** Its name as Go prints it in decoder errors (`v1.ObjectMeta`). */
  readonly goName: string;
  /** The protobuf message it was compiled from (built-in kinds), for codecs and OpenAPI names. */
  readonly message?: string;
  /** `apiVersion` and `kind` are fields of its JSON (it embeds TypeMeta). */
  readonly typeMeta: boolean;
  /** The whole object is replaced, never merged field by field (`+structType=atomic`). */
  readonly atomic: boolean;
  /** Its JSON fields (inline-embedded structs flattened), in declaration order. */
  readonly fields: ReadonlyMap<string, FieldNode>;
  /**
   * The schema of fields it does not declare, when it keeps them (a CRD's
   * x-kubernetes-preserve-unknown-fields beside properties: server-side apply tracks them as deduced
   * values); without it an undeclared field is a schema error. Built-in kinds never set it.
   */
  readonly otherFields?: TypeSchema;
}

export type TypeSchema = AnySchema | StringSchema | IntegerSchema | NumberSchema | BooleanSchema | IntOrStringSchema | ArraySchema | MapSchema | ObjectSchema;

/** One field of an object: its value's schema, its Go type (for error texts) and its merge markers. */
export interface FieldNode {
  readonly name: string;
  /** The whole value (an array or map schema for list and map fields). */
  readonly schema: TypeSchema;
  /** A list or a map field (its schema is an array or map of elements), rather than one element. */
  readonly collection?: 'list' | 'map';
  /** The field must be set (`+required`). */
  readonly required: boolean;
  /** Go's name of the whole value's type (`[]v1.Container`, `map[string]string`, `*int32` is `int32`). */
  readonly goType: string;
  /** Go's name of one element's type (the value's own for plain fields). */
  readonly goElementType: string;
  /** Strategic merge patch strategies: `merge`, `replace`, `retainKeys` (possibly two). */
  readonly patchStrategies: readonly string[];
  readonly patchMergeKey: string;
  readonly listType?: ListType;
  readonly listMapKeys?: readonly string[];
  /** `atomic` or `granular` (a map field's `+mapType`, or a struct field's `+structType`). */
  readonly mapType?: 'atomic' | 'granular';
}

const GO_SCALARS: Readonly<Record<string, string>> = {
  string: 'string',
  bytes: '[]uint8',
  bool: 'bool',
  int32: 'int32',
  sint32: 'int32',
  sfixed32: 'int32',
  uint32: 'uint32',
  fixed32: 'uint32',
  int64: 'int64',
  sint64: 'int64',
  sfixed64: 'int64',
  uint64: 'uint64',
  fixed64: 'uint64',
  double: 'float64',
  float: 'float32',
};

const TIME = 'k8s.io.apimachinery.pkg.apis.meta.v1.Time';
const MICRO_TIME = 'k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime';

/** Go's name of a proto type: `v1.ObjectMeta` for `k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta`. */
function goTypeName(type: string): string {
  if (Object.hasOwn(GO_SCALARS, type)) return GO_SCALARS[type]!;
  return type.split('.').slice(-2).join('.');
}

function fromShape(shape: JsonShape, type: string): TypeSchema {
  const named = type ? { message: type } : {};
  switch (shape.kind) {
    case 'string':
      if (shape.format === 'date-time') return { kind: 'string', format: type === MICRO_TIME ? 'micro-time' : 'date-time', ...named };
      return shape.format ? { kind: 'string', format: shape.format, ...named } : { kind: 'string', ...named };
    case 'integer':
      return { kind: 'integer', format: shape.format };
    case 'number':
      return { kind: 'number', format: shape.format };
    case 'boolean':
      return { kind: 'boolean' };
    case 'int-or-string':
      return { kind: 'int-or-string', ...named };
    case 'any':
      return { kind: 'any', ...named };
    case 'array':
      return { kind: 'array', items: fromShape(shape.items, '') };
    case 'message':
      return messageSchema(shape.message);
  }
}

/** The schema of a proto scalar, from its Go type. */
function scalarSchema(type: string): TypeSchema {
  const go = GO_SCALARS[type]!;
  switch (go) {
    case 'string':
      return { kind: 'string' };
    case '[]uint8':
      return { kind: 'string', format: 'byte' };
    case 'bool':
      return { kind: 'boolean' };
    case 'float64':
      return { kind: 'number', format: 'double' };
    case 'float32':
      return { kind: 'number', format: 'float' };
    default:
      return { kind: 'integer', format: go as IntegerSchema['format'] };
  }
}

/** The schema of one value of a proto type (a scalar, a well-known type, or a message). */
function elementSchema(type: string): TypeSchema {
  if (isScalar(type)) return scalarSchema(type);
  const wk = wellKnownShape(type);
  if (wk) return fromShape(wk, type);
  return getMessage(type) ? messageSchema(type) : { kind: 'any' };
}

function compileField(name: string, f: FieldSchema): FieldNode {
  const element = elementSchema(f.type);
  const goElement = goTypeName(f.type);
  const schema: TypeSchema = f.keyType ? { kind: 'map', values: element } : f.repeated ? { kind: 'array', items: element } : element;
  const goType = f.keyType ? `map[${goTypeName(f.keyType)}]${goElement}` : f.repeated ? `[]${goElement}` : goElement;
  return {
    name,
    schema,
    ...(f.keyType ? { collection: 'map' as const } : f.repeated ? { collection: 'list' as const } : {}),
    required: f.required === true,
    goType,
    goElementType: goElement,
    patchStrategies: (f.patchStrategy ?? '').split(',').filter(Boolean),
    patchMergeKey: f.patchMergeKey ?? '',
    ...(f.listType ? { listType: f.listType } : {}),
    ...(f.listMapKey ? { listMapKeys: f.listMapKey } : {}),
    ...(f.keyType ? (f.mapType ? { mapType: f.mapType } : {}) : !f.repeated && f.structType ? { mapType: f.structType } : {}),
  };
}

/** An object schema whose fields are compiled on first use (message graphs are large and cyclic). */
class MessageObjectSchema implements ObjectSchema {
  readonly kind = 'object' as const;
  readonly goName: string;
  readonly message: string;
  readonly typeMeta: boolean;
  readonly atomic: boolean;
  #fields: ReadonlyMap<string, FieldNode> | undefined;

  constructor(message: string) {
    this.message = message;
    this.goName = goTypeName(message);
    this.typeMeta = getMessage(message)?.typeMeta === true;
    this.atomic = getMessage(message)?.structType === 'atomic';
  }

  get fields(): ReadonlyMap<string, FieldNode> {
    if (!this.#fields) {
      const out = new Map<string, FieldNode>();
      for (const [name, f] of Object.entries(fieldsOf(this.message))) out.set(name, compileField(name, f));
      this.#fields = out;
    }
    return this.#fields;
  }
}

const compiled = new Map<string, ObjectSchema>();

/**
 * The schema of a message of the generated wire facts (`k8s.io.api.core.v1.ConfigMap`), compiled once.
 * Throws for a name the facts do not have (kinds name their message statically).
 */
export function messageSchema(message: string): ObjectSchema {
  let schema = compiled.get(message);
  if (!schema) {
    if (!getMessage(message)) throw new Error(`unknown schema message ${message}`);
    schema = new MessageObjectSchema(message);
    compiled.set(message, schema);
  }
  return schema;
}
