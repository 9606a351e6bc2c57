/**
 * The project's type schema seen the way structured-merge-diff sees a schema: every node is an "atom"
 * that may be a scalar, a list and/or a map, with element relationships derived from the field markers
 * exactly as kube-openapi's schemaconv derives them from the OpenAPI extensions.
 *
 * Atoms are built once per schema node and cached (per FieldNode, per array/map/object schema), so the
 * walkers never recompile anything. Children are resolved lazily because message graphs are cyclic.
 */
import { fieldsOf, getMessage } from '../../schema/generated/index.ts';
import type { FieldNode, ObjectSchema, TypeSchema } from '../../schema/type-schema.ts';
import type { JsonValue } from '../fieldpath/path-element.ts';

/** Upstream's scalar kinds: date-times, quantities and int-or-strings are `untyped` (any scalar). */
export type ScalarKind = 'numeric' | 'string' | 'boolean' | 'untyped';

export interface ListAtom {
  /** `separable` never comes out of schemaconv, so a list is either atomic or associative. */
  readonly relationship: 'atomic' | 'associative';
  /** Key fields of an associative list of maps; empty for a set of scalars. */
  readonly keys: readonly string[];
  readonly element: Atom;
  /** The schema default of a key field, used when an item omits it (`protocol: TCP` of ports). */
  keyDefault(name: string): JsonValue | undefined;
}

export interface MapAtom {
  /** `granular` stands for upstream's unset and `separable` relationships alike: only atomic is special. */
  readonly relationship: 'atomic' | 'granular';
  /** The atom of a declared (struct) field, or undefined. */
  field(name: string): Atom | undefined;
  /** True when the map declares fields (a struct); named fields are what EnsureNamedFieldsAreMembers adds. */
  readonly hasFields: boolean;
  /** The atom of keys that are not declared fields; undefined means such keys are schema errors. */
  readonly elementType: Atom | undefined;
  /** An object of free keys with deduced values (preserve-unknown-fields): schema reconciliation skips it. */
  readonly untypedDeduced: boolean;
}

export interface Atom {
  readonly scalar?: ScalarKind;
  readonly list?: ListAtom;
  readonly map?: MapAtom;
}

/**
 * An atom with the single-kind views that deduceAtom hands out, cached so that two deductions of the same
 * kind are the same object: the walkers compare deduced atoms by identity where upstream compares them
 * structurally, which agrees because a view differs structurally from its whole atom exactly when it is a
 * different object.
 */
class AtomNode implements Atom {
  readonly scalar?: ScalarKind;
  readonly list?: ListAtom;
  readonly map?: MapAtom;
  #scalarView: Atom | undefined;
  #listView: Atom | undefined;
  #mapView: Atom | undefined;

  /** Exactly one kind (computed once: deduceAtom asks on every value of every walk). */
  readonly single: boolean;

  constructor(parts: { scalar?: ScalarKind; list?: ListAtom; map?: MapAtom }) {
    if (parts.scalar) this.scalar = parts.scalar;
    if (parts.list) this.list = parts.list;
    if (parts.map) this.map = parts.map;
    this.single = (this.scalar ? 1 : 0) + (this.list ? 1 : 0) + (this.map ? 1 : 0) === 1;
  }

  scalarView(): Atom {
    if (this.single) return this;
    return (this.#scalarView ??= new AtomNode({ scalar: this.scalar! }));
  }

  listView(): Atom {
    if (this.single) return this;
    return (this.#listView ??= new AtomNode({ list: this.list! }));
  }

  mapView(): Atom {
    if (this.single) return this;
    return (this.#mapView ??= new AtomNode({ map: this.map! }));
  }
}

class ListNode implements ListAtom {
  readonly relationship: 'atomic' | 'associative';
  readonly keys: readonly string[];
  readonly #items: TypeSchema | (() => Atom);
  #element: Atom | undefined;
  readonly #defaults = new Map<string, JsonValue | undefined>();

  constructor(relationship: 'atomic' | 'associative', keys: readonly string[], items: TypeSchema | (() => Atom)) {
    this.relationship = relationship;
    this.keys = keys;
    this.#items = items;
  }

  get element(): Atom {
    if (!this.#element) this.#element = typeof this.#items === 'function' ? this.#items() : typeAtom(this.#items);
    return this.#element;
  }

  keyDefault(name: string): JsonValue | undefined {
    if (!this.#defaults.has(name)) this.#defaults.set(name, typeof this.#items === 'function' ? undefined : fieldDefault(this.#items, name));
    return this.#defaults.get(name);
  }
}

/**
 * A struct field's schema default. The type schema's FieldNode does not carry defaults, so they are read
 * from the generated wire facts of the item's message (`"TCP"`, `""`, `0`); Go constant references
 * (`ref(…)`) are not resolvable here and count as no default (no list-map key field uses one). A FieldNode
 * that does carry a `default` (a future CRD compilation) wins.
 */
function fieldDefault(items: TypeSchema, name: string): JsonValue | undefined {
  if (items.kind !== 'object') return undefined;
  const node = items.fields.get(name) as (FieldNode & { readonly default?: JsonValue }) | undefined;
  if (node && node.default !== undefined) return node.default;
  if (!items.message || !getMessage(items.message)) return undefined;
  const text = fieldsOf(items.message)[name]?.default;
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}

class FreeMapNode implements MapAtom {
  readonly relationship: 'atomic' | 'granular';
  readonly hasFields = false;
  readonly untypedDeduced: boolean;
  readonly #values: TypeSchema | (() => Atom);
  #element: Atom | undefined;

  constructor(relationship: 'atomic' | 'granular', values: TypeSchema | (() => Atom), untypedDeduced = false) {
    this.relationship = relationship;
    this.#values = values;
    this.untypedDeduced = untypedDeduced;
  }

  field(): Atom | undefined {
    return undefined;
  }

  get elementType(): Atom {
    if (!this.#element) this.#element = typeof this.#values === 'function' ? this.#values() : typeAtom(this.#values);
    return this.#element;
  }
}

const TYPE_META_FIELDS: ReadonlySet<string> = new Set(['apiVersion', 'kind']);

class StructNode implements MapAtom {
  readonly relationship: 'atomic' | 'granular';
  readonly hasFields = true;
  /** Undeclared fields: errors, unless the schema keeps them (a CRD's preserve-unknown-fields with properties). */
  readonly elementType: Atom | undefined;
  readonly untypedDeduced = false;
  readonly #schema: ObjectSchema;
  readonly #fieldAtoms = new Map<string, Atom>();

  constructor(schema: ObjectSchema, relationship: 'atomic' | 'granular') {
    this.#schema = schema;
    this.relationship = relationship;
    this.elementType = schema.otherFields ? typeAtom(schema.otherFields) : undefined;
  }

  field(name: string): Atom | undefined {
    const known = this.#fieldAtoms.get(name);
    if (known !== undefined) return known;
    const node = this.#schema.fields.get(name);
    if (node) {
      // Remembered by name for declared fields only (so as many as the schema has): a compiled
      // schema's fields do not change, and every walk asks for them key by key.
      const atom = fieldAtom(node);
      this.#fieldAtoms.set(name, atom);
      return atom;
    }
    // TypeMeta is inlined into every kind's Go type, so its two strings are declared fields upstream.
    if (this.#schema.typeMeta && TYPE_META_FIELDS.has(name)) return STRING;
    return undefined;
  }
}

const SCALARS: Readonly<Record<ScalarKind, AtomNode>> = {
  numeric: new AtomNode({ scalar: 'numeric' }),
  string: new AtomNode({ scalar: 'string' }),
  boolean: new AtomNode({ scalar: 'boolean' }),
  untyped: new AtomNode({ scalar: 'untyped' }),
};
const STRING = SCALARS.string;

/** Upstream's `__untyped_atomic_`: any scalar, or a list or map replaced whole (RawExtension). */
export const UNTYPED_ATOMIC: Atom = new AtomNode({
  scalar: 'untyped',
  list: new ListNode('atomic', [], () => UNTYPED_ATOMIC),
  map: new FreeMapNode('atomic', () => UNTYPED_ATOMIC),
});

/** Upstream's `__untyped_deduced_`: scalars, atomic lists, and maps whose keys are tracked one by one. */
export const DEDUCED: Atom = new AtomNode({
  scalar: 'untyped',
  list: new ListNode('atomic', [], () => UNTYPED_ATOMIC),
  map: new FreeMapNode('granular', () => DEDUCED, true),
});

/** An OpenAPI `type: object` without properties (FieldsV1, Patch): a map of deduced values, nothing else. */
const FREEFORM_OBJECT: Atom = new AtomNode({ map: new FreeMapNode('granular', () => DEDUCED, true) });

const RAW_EXTENSION = 'k8s.io.apimachinery.pkg.runtime.RawExtension';
const FREEFORM_MESSAGES: ReadonlySet<string> = new Set(['k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1', 'k8s.io.apimachinery.pkg.apis.meta.v1.Patch']);

const typeAtoms = new WeakMap<object, Atom>();
const objectAtoms = new WeakMap<ObjectSchema, { atomic?: Atom; granular?: Atom }>();
const fieldAtoms = new WeakMap<FieldNode, Atom>();

/** The atom of an object schema, granular or atomic (a field's +structType/+mapType may override the type's). */
export function objectAtom(schema: ObjectSchema, relationship: 'atomic' | 'granular' = schema.atomic ? 'atomic' : 'granular'): Atom {
  let cached = objectAtoms.get(schema);
  if (!cached) objectAtoms.set(schema, (cached = {}));
  return (cached[relationship] ??= new AtomNode({ map: new StructNode(schema, relationship) }));
}

/** The atom of a schema node reached without field markers (list items, map values): lists are atomic. */
export function typeAtom(schema: TypeSchema): Atom {
  switch (schema.kind) {
    case 'string':
      // schemaconv: strings without a format (Duration's OpenAPI has none) and byte strings are `string`;
      // date-times and quantities are untyped.
      return schema.format === undefined || schema.format === 'byte' || schema.format === 'duration' ? SCALARS.string : SCALARS.untyped;
    case 'integer':
    case 'number':
      return SCALARS.numeric;
    case 'boolean':
      return SCALARS.boolean;
    case 'int-or-string':
      return SCALARS.untyped;
    case 'any':
      if (schema.message === RAW_EXTENSION) return UNTYPED_ATOMIC;
      if (schema.message !== undefined && FREEFORM_MESSAGES.has(schema.message)) return FREEFORM_OBJECT;
      return DEDUCED;
    case 'object':
      return objectAtom(schema);
    case 'array': {
      let atom = typeAtoms.get(schema);
      if (!atom) typeAtoms.set(schema, (atom = new AtomNode({ list: new ListNode('atomic', [], schema.items) })));
      return atom;
    }
    case 'map': {
      let atom = typeAtoms.get(schema);
      if (!atom) typeAtoms.set(schema, (atom = new AtomNode({ map: new FreeMapNode('granular', schema.values, inlineUntyped(schema.values)) })));
      return atom;
    }
  }
}

/**
 * Whether map values are an untyped scalar written inline rather than a named type (a CRD's
 * `additionalProperties: {type: string, format: date-time}`); upstream treats such a map like one of
 * deduced values when reconciling sets with the schema. Named types (Quantity, Time) carry a message.
 */
function inlineUntyped(values: TypeSchema): boolean {
  if (values.kind === 'object' || values.kind === 'array' || values.kind === 'map' || values.kind === 'any') return false;
  if ('message' in values && values.message !== undefined) return false;
  return typeAtom(values) === SCALARS.untyped;
}

/**
 * A list field's relationship, as schemaconv reads x-kubernetes-list-type first, then
 * x-kubernetes-patch-strategy (`merge` or `merge,retainKeys`: associative, keyed by the patch merge key
 * or a set without one), and otherwise makes the list atomic.
 */
function listShape(node: FieldNode): { relationship: 'atomic' | 'associative'; keys: readonly string[] } {
  if (node.listType === 'atomic') return { relationship: 'atomic', keys: [] };
  if (node.listType === 'set') return { relationship: 'associative', keys: [] };
  if (node.listType === 'map') return { relationship: 'associative', keys: node.listMapKeys ?? [] };
  const strategy = node.patchStrategies.join(',');
  if (strategy === 'merge' || strategy === 'merge,retainKeys') {
    return { relationship: 'associative', keys: node.patchMergeKey ? [node.patchMergeKey] : [] };
  }
  return { relationship: 'atomic', keys: [] };
}

/** The atom of a struct field's value, its markers applied. */
export function fieldAtom(node: FieldNode): Atom {
  let atom = fieldAtoms.get(node);
  if (atom) return atom;
  const schema = node.schema;
  if (schema.kind === 'array') {
    const { relationship, keys } = listShape(node);
    atom = new AtomNode({ list: new ListNode(relationship, keys, schema.items) });
  } else if (schema.kind === 'map') {
    atom = new AtomNode({ map: new FreeMapNode(node.mapType === 'atomic' ? 'atomic' : 'granular', schema.values, inlineUntyped(schema.values)) });
  } else if (schema.kind === 'object') {
    atom = node.mapType ? objectAtom(schema, node.mapType) : objectAtom(schema);
  } else {
    atom = typeAtom(schema);
  }
  fieldAtoms.set(node, atom);
  return atom;
}

/**
 * Upstream's deduceAtom: the one kind of a multi-kind atom that fits the value; the whole atom when the
 * value is absent, null, or of a kind the atom does not allow (validation then reports it usefully).
 */
export function deduceAtom(atom: Atom, value: JsonValue | undefined): Atom {
  if (value === undefined || value === null || !(atom instanceof AtomNode)) return atom;
  if (typeof value === 'object') {
    if (Array.isArray(value)) return atom.list ? atom.listView() : atom;
    return atom.map ? atom.mapView() : atom;
  }
  return atom.scalar ? atom.scalarView() : atom;
}

/**
 * The kind of an atom that is a scalar and nothing else (deduceAtom gives it back unchanged whatever the
 * value), else undefined: lets the walkers treat the leaves of string maps and scalar fields inline.
 */
export function scalarOnly(atom: Atom): ScalarKind | undefined {
  return atom.scalar !== undefined && atom.list === undefined && atom.map === undefined ? atom.scalar : undefined;
}

/** The element atom for a key of a map atom: the declared field's, else the free-key element type. */
export function mapEntryAtom(map: MapAtom, key: string): Atom | undefined {
  return map.field(key) ?? map.elementType;
}

/**
 * What upstream resolves an empty type reference to (an undeclared key of a struct): an atom of no kind,
 * which every walker reports as `schema error: invalid atom: inlined`. Values are validated before any
 * other walk, so the other walkers meet it only for inputs that were not.
 */
export const NO_ATOM: Atom = new AtomNode({});
