import type { FieldError } from '../api/errors.ts';
import type { RequestContext } from '../api/request-context.ts';
import type { KubeObject } from '../api/types.ts';
import type { SelectableFields } from '../api/selectors/field-selector.ts';
import type { Storage } from '../storage/storage.ts';
import type { DeleteOptions } from './delete-options.ts';
import { messageSchema, type ObjectSchema } from '../schema/type-schema.ts';
import type { Table, TableOptions } from './table.ts';

/** The verbs a REST resource can support; routes exist only for the ones a kind lists. */
export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export const ALL_VERBS: readonly Verb[] = [
  'create',
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'update',
  'watch',
];

/** How metadata.name is validated: one of the common rules, or a kind's own (returning the problems). */
export type NameRule = 'dns-subdomain' | 'dns-label' | 'path-segment' | ((name: string) => string[]);

/** One column of a server-side Table rendering. */
export interface TableColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format?: string;
  description: string;
  priority?: number;
  /** Reads the cell from the object; `Name` and `Age` columns are supplied by the machinery. */
  cell: (obj: KubeObject) => unknown;
}

/**
 * A kind served in one form and stored in another (events.k8s.io/v1 Event lives in core v1 Event's
 * storage, as upstream). The functions convert whole objects and must not mutate their input.
 */
export interface StorageMapping {
  readonly group: string;
  readonly resource: string;
  toStorage(obj: KubeObject): KubeObject;
  fromStorage(obj: KubeObject): KubeObject;
}

/**
 * Hooks a kind supplies; the generic store calls them in upstream's order (docs/architecture.md,
 * "The store and its hooks"). Every hook gets the request's context first.
 */
export interface KindStrategy {
  /** Fills defaults in a write body (create and update, every subresource), before anything else looks at it. */
  default?(ctx: RequestContext, obj: KubeObject): void;
  /** Clears fields a create must not set (status on kinds with a status subresource) and sets derived ones. */
  prepareForCreate?(ctx: RequestContext, obj: KubeObject): void;
  /** Carries over fields an update of the main resource must not change (status). */
  prepareForUpdate?(ctx: RequestContext, obj: KubeObject, old: KubeObject): void;
  /**
   * Refuses a write the user may not make for reasons beyond authorization of the request itself
   * (RBAC escalation prevention); throws an ApiError (403). Async, and run before admission and
   * validation, as upstream's policy-based storage wraps the store. `old` is set for updates.
   */
  authorizeWrite?(ctx: RequestContext, namespace: string, obj: KubeObject, old?: KubeObject): Promise<void>;
  /** Kind rules for a new object; returns field errors, never changes the object. */
  validate?(ctx: RequestContext, obj: KubeObject): FieldError[];
  /** Kind rules for an update (immutability and the like). */
  validateUpdate?(ctx: RequestContext, obj: KubeObject, old: KubeObject): FieldError[];
  /** Folds write-only input in (Secret.stringData into data) and removes it; runs before validation, which judges the folded object. */
  canonicalize?(ctx: RequestContext, obj: KubeObject): void;
  /** Warnings about a valid object being created (sent as `Warning` headers). */
  warningsOnCreate?(ctx: RequestContext, obj: KubeObject): string[];
  /** Warnings about a valid update. */
  warningsOnUpdate?(ctx: RequestContext, obj: KubeObject, old: KubeObject): string[];
  /** Finalizers kept outside metadata.finalizers that also hold a deleted object (Namespace spec.finalizers). */
  extraFinalizers?(obj: KubeObject): string[];
}

/** How a delete proceeds: at once, or gracefully (the object stays, marked, for a grace period). */
export interface DeleteStrategy {
  /**
   * The grace period in seconds a delete of this object gets, given the one the client asked for
   * (undefined: none named); 0 or undefined deletes at once. Kinds without graceful deletion omit it.
   */
  gracePeriodSeconds?(ctx: RequestContext, obj: KubeObject, requested: number | undefined): number | undefined;
  /** Changes made when a delete marks the object instead of removing it (Namespace: status.phase Terminating). */
  prepareForDelete?(ctx: RequestContext, obj: KubeObject): void;
  /**
   * The kind's own rule for the garbage collector's finalizers a delete sets (Namespace's), instead of
   * the generic one (src/registry/gc-finalizers.ts): the new finalizers, or undefined for no change.
   */
  garbageCollectionFinalizers?(obj: KubeObject, options: DeleteOptions): string[] | undefined;
  /**
   * A kind whose first delete only marks the object, whatever its finalizers and the options'
   * propagation say (CustomResourceDefinition: its custom resources go first, then its finalizer
   * controller lets it go). The store sets deletionTimestamp (no grace period, no new generation)
   * on a copy of the stored object, this hook adds what the kind needs (finalizer, condition), and
   * the store writes it after preconditions and admission. Later deletes take the usual path.
   */
  markOnFirstDelete?(ctx: RequestContext, obj: KubeObject): void;
}

/** A kind's subresource update: builds the object to store from the body and the stored object. */
export interface SubresourceStrategy {
  /**
   * Returns the object to store, from the request body (`obj`, already carrying the old system
   * fields) and the stored object (`old`): a status update takes the body's status and metadata and
   * keeps the rest of `old`.
   */
  prepareForUpdate(ctx: RequestContext, obj: KubeObject, old: KubeObject): KubeObject;
  /** Rules for the update through this subresource (instead of the kind's validateUpdate). */
  validateUpdate?(ctx: RequestContext, obj: KubeObject, old: KubeObject): FieldError[];
  /** Warnings about the update. */
  warningsOnUpdate?(ctx: RequestContext, obj: KubeObject, old: KubeObject): string[];
}

/** A read-only kind's objects, computed per request (from the server's own state). */
export interface ComputedObjects {
  /** Every object, in name order; `storage` is the server's storage (for health, say). */
  list(ctx: RequestContext, storage: Storage): Promise<KubeObject[]>;
}

/**
 * A kind whose POST is answered and never stored (SubjectAccessReview, TokenReview, …): the body is
 * decoded, defaulted and validated as any create's, then this computes the answer (201, the object
 * with its status). `namespace` is the path's ('' for cluster paths).
 */
export interface CreateResponder {
  create(ctx: RequestContext, namespace: string, body: KubeObject): Promise<KubeObject>;
}

/**
 * A subresource whose POST is answered by its own code (serviceaccounts/<name>/token): the body is
 * of `kind` (decoded, defaulted and validated by that kind's rules), the answer too.
 */
export interface SubresourceResponder {
  readonly kind: KindDefinition;
  create(ctx: RequestContext, namespace: string, name: string, body: KubeObject): Promise<KubeObject>;
}

/** A group, version and kind. */
export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/**
 * A subresource (`<resource>/<name>`): the verbs it serves, the kind it takes and returns (the
 * parent's unless named), and how it is served: an update strategy on the parent's object (status,
 * finalize), or, for subresources with a store of their own (scale, eviction, token, binding), that
 * store. Routing, discovery and OpenAPI read this declaration.
 */
export interface SubresourceDefinition {
  readonly name: string;
  readonly verbs: readonly Verb[];
  /** The kind of request and response bodies; the parent's when undefined. */
  readonly kind?: GroupVersionKind;
  /** That kind's message in the generated schema (for OpenAPI), when it is not the parent's. */
  readonly schemaMessage?: string;
  readonly strategy?: SubresourceStrategy;
  /** Set for subresources that answer a POST with their own code rather than updating the parent. */
  readonly respond?: SubresourceResponder;
  /**
   * Set for subresources whose body is another kind read from and written into the parent object
   * (a custom resource's scale): get answers `toSubresource(parent)`; update and patch decode (or
   * patch) a body of `mapping.kind`, write `fromSubresource(body, parent)` through the parent's store
   * (with `strategy`), and answer the stored parent mapped again.
   */
  readonly mapping?: SubresourceMapping;
}

/** How a subresource of another kind maps to and from its parent object (see SubresourceDefinition.mapping). */
export interface SubresourceMapping {
  /** The kind of the subresource's bodies: decoded, validated against and encoded as it. */
  readonly kind: KindDefinition;
  /** The subresource object of a stored parent (throws an ApiError when the parent has none). */
  toSubresource(parent: KubeObject): KubeObject;
  /** The object an update or patch starts from (toSubresource when undefined). */
  forUpdate?(parent: KubeObject): KubeObject;
  /** The parent with the body written into it (a copy); throws an ApiError for a body it refuses. */
  fromSubresource(body: KubeObject, parent: KubeObject): KubeObject;
  /**
   * How the parent's managedFields are seen from the subresource's object and written back
   * (upstream's ScaleHandler): with it, writes are tracked by a field manager of the subresource's
   * kind and server-side apply is served.
   */
  readonly managedFields?: SubresourceManagedFields;
}

/** managedFields moved between a parent and a subresource of another kind (see SubresourceMapping.managedFields). */
export interface SubresourceManagedFields {
  /** The subresource object's entries, from the parent's (`parent` in the served version). */
  toSubresource(parent: KubeObject): unknown[] | undefined;
  /** The parent's entries once the subresource's field manager left `entries`. */
  toParent(parent: KubeObject, entries: unknown): unknown[] | undefined;
}

/**
 * A kind is data: everything handlers, storage and watch need to serve it.
 * Define one with `defineKind` in `src/kinds/<kind>.ts`.
 */
export interface KindDefinition {
  /** API group; '' for the core group. */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** The resource name used in URLs (plural, lowercase). */
  readonly plural: string;
  readonly singular: string;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly namespaced: boolean;
  readonly verbs: readonly Verb[];
  /** Key of the message in the generated schema (`k8s.io.api.core.v1.ConfigMap`, as in protobuf descriptors). */
  readonly schemaMessage: string;
  /**
   * The type-schema object every walker reads (type checks, nulls, field validation, patch). Built-in
   * kinds get it compiled from `schemaMessage`; a custom resource will bring one from its CRD.
   */
  readonly schema: ObjectSchema;
  /** Served unless --runtime-config turns it off (true), or only when it turns it on (false: beta and alpha kinds). */
  readonly enabledByDefault: boolean;
  /** Subresources, each with its verbs and strategy (see `statusSubresource`). */
  readonly subresources: readonly SubresourceDefinition[];
  readonly nameRule: NameRule;
  /** PUT on a missing object creates it. */
  readonly allowCreateOnUpdate: boolean;
  /** PUT without metadata.resourceVersion overwrites whatever is stored. */
  readonly allowUnconditionalUpdate: boolean;
  /** metadata.generation is bumped when anything but metadata and status changes. */
  readonly tracksGeneration: boolean;
  /** A delete that removes the object answers with the object, not a Success Status. */
  readonly returnDeletedObject: boolean;
  /**
   * Metadata is validated with the core group's rules (a finalizer name without a domain must be a
   * standard one), as most built-in kinds are; kinds upstream validates with apimachinery's generic
   * rules (Lease, custom resources) set false.
   */
  readonly coreObjectMeta: boolean;
  /**
   * Field selectors beyond metadata.name and metadata.namespace: selector key → JSON path, or a path
   * and the text an absent field reads as (`spec.unschedulable` reads `false` when unset).
   */
  readonly fieldSelectors: SelectableFields;
  /** Columns after Name (the Name column and a trailing Age column are always present). */
  readonly tableColumns: readonly TableColumn[];
  readonly strategy: KindStrategy;
  readonly deleteStrategy: DeleteStrategy;
  /** The wire formats the kind speaks beyond JSON and YAML. */
  readonly wire: WireCapabilities;
  /**
   * Objects computed when read instead of stored (ComponentStatus): get and list answer from it, and
   * the kind serves no other verb.
   */
  readonly computed?: ComputedObjects;
  /** Set for kinds whose create is answered, not stored (the reviews); they serve no other verb. */
  readonly respond?: CreateResponder;
  /** Set when the kind's objects are stored as another resource (see StorageMapping). */
  readonly storage?: StorageMapping;
  /**
   * The API lifecycle of this kind's version, when upstream deprecates it (its generated
   * APILifecycleDeprecated/Removed/Replacement): requests to it get upstream's deprecation warning,
   * audit annotations and metric once the server's release reaches `deprecated` (src/http/deprecation.ts).
   */
  readonly deprecation?: ApiDeprecation;
  /**
   * Set on kinds served for a CustomResourceDefinition (src/crd/serving builds them): the CRD as
   * stored and the version this kind serves. Discovery, OpenAPI and the controllers read what they
   * need from it (schema, names, subresources, storage version); the generic store never does.
   */
  readonly customResource?: CustomResourceInfo;
  /**
   * The kind's own Table rendering, instead of `tableColumns` (custom resources: their
   * additionalPrinterColumns are JSONPath columns with upstream's own layout, src/crd/tables).
   */
  readonly table?: TableConvertor;
  /**
   * A deprecation warning sent on every request to the kind, independent of releases (a custom
   * resource version marked `deprecated`: its `deprecationWarning`, or upstream's default text).
   */
  readonly deprecationWarning?: string;
  /**
   * The decoder of a kind without Go types (custom resources), used instead of the type schema's
   * walkers (type errors, unknown fields, nulls): it prunes what the kind's schema does not specify and
   * returns those paths, sorted (fieldValidation reports them), drops nulls and coerces embedded
   * metadata, in place. Malformed metadata throws an ApiError (400).
   */
  readonly decode?: (obj: KubeObject) => string[];
}

/** Renders objects of a kind as a meta.k8s.io Table (what `toTable` in table.ts does from columns). */
export interface TableConvertor {
  toTable(objects: readonly KubeObject[], options?: TableOptions): Table;
}

/** What a custom resource kind was built from. */
export interface CustomResourceInfo {
  /** The CustomResourceDefinition (apiextensions.k8s.io/v1 JSON, as stored) the kind serves. */
  readonly crd: KubeObject;
  /** The name of the CRD's version this kind serves (`spec.versions[].name`). */
  readonly version: string;
}

/** A Kubernetes release, as upstream's API lifecycle names one (major, minor). */
export interface Release {
  readonly major: number;
  readonly minor: number;
}

/** When a kind's version is deprecated, when it stops being served, and what replaces it. */
export interface ApiDeprecation {
  readonly deprecated: Release;
  /** The release that no longer serves it; absent for versions with no planned removal (ComponentStatus). */
  readonly removed?: Release;
  readonly replacement?: GroupVersionKind;
}

/**
 * Which encodings a kind has: built-in kinds have a protobuf form and strategic merge patch (its
 * merge keys come from the Go types); custom resources have neither (a strategic merge patch is
 * answered 415, as upstream). CBOR is served for every kind while the CBORServingAndStorage gate is on.
 */
export interface WireCapabilities {
  readonly protobuf: boolean;
  readonly strategicMergePatch: boolean;
  readonly cbor: boolean;
}

/** The wire capabilities of a built-in kind. */
const BUILTIN_WIRE: WireCapabilities = Object.freeze({ protobuf: true, strategicMergePatch: true, cbor: true });

export type KindInput = Pick<KindDefinition, 'group' | 'version' | 'kind' | 'plural' | 'namespaced' | 'schemaMessage'> &
  Partial<Omit<KindDefinition, 'group' | 'version' | 'kind' | 'plural' | 'namespaced' | 'schemaMessage'>>;

/**
 * Declares a kind with the defaults most kinds share.
 *
 * @example
 * export const configMaps = defineKind({ group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps',
 *   namespaced: true, schemaMessage: 'k8s.io.api.core.v1.ConfigMap', shortNames: ['cm'] });
 */
export function defineKind(input: KindInput): KindDefinition {
  const kind = {
    singular: input.kind.toLowerCase(),
    shortNames: [],
    categories: [],
    verbs: ALL_VERBS,
    enabledByDefault: true,
    subresources: [],
    nameRule: 'dns-subdomain',
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    tracksGeneration: false,
    returnDeletedObject: false,
    coreObjectMeta: true,
    fieldSelectors: {},
    tableColumns: [],
    strategy: {},
    deleteStrategy: {},
    wire: BUILTIN_WIRE,
    ...input,
  };
  if (!input.schema) {
    // Compiled on first use: defining a kind (at import) costs nothing, and a kind that is never
    // written (or a test's kind without a generated message) never compiles one.
    let compiled: ObjectSchema | undefined;
    Object.defineProperty(kind, 'schema', { enumerable: true, get: () => (compiled ??= messageSchema(input.schemaMessage)) });
  }
  return Object.freeze(kind) as KindDefinition;
}

/** `v1` for the core group, otherwise `<group>/<version>`. */
export function apiVersionOf(kind: Pick<KindDefinition, 'group' | 'version'>): string {
  return kind.group ? `${kind.group}/${kind.version}` : kind.version;
}

/** The subresource of that name, if the kind has it. */
export function subresourceOf(kind: KindDefinition, name: string): SubresourceDefinition | undefined {
  return kind.subresources.find((s) => s.name === name);
}
