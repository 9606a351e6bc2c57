import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';

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

/** How metadata.name is validated. */
export type NameRule = 'dns-subdomain' | 'dns-label' | 'path-segment';

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

/** Hooks a kind supplies; the generic store calls them in a fixed order (see registry/strategy.ts). */
export interface KindStrategy {
  /** Clears fields a create must not set (status on kinds with a status subresource) and sets defaults. */
  prepareForCreate?(obj: KubeObject): void;
  /** Carries over fields an update of the main resource must not change (status). */
  prepareForUpdate?(obj: KubeObject, old: KubeObject): void;
  /** Kind rules for a new object; returns field errors, never changes the object. */
  validate?(obj: KubeObject): FieldError[];
  /** Kind rules for an update (immutability and the like). */
  validateUpdate?(obj: KubeObject, old: KubeObject): FieldError[];
  /** Removes write-only input (Secret.stringData) after folding it in; runs before validation. */
  canonicalize?(obj: KubeObject): void;
  /** Changes made when a delete starts a graceful deletion (Namespace: status.phase Terminating). */
  prepareForDelete?(obj: KubeObject): void;
  /** Finalizers kept outside metadata.finalizers that also hold a deleted object (Namespace spec.finalizers). */
  extraFinalizers?(obj: KubeObject): string[];
  /** Builds the object an update of a custom subresource (not status) stores, from the body and the old object. */
  prepareSubresourceUpdate?(subresource: string, obj: KubeObject, old: KubeObject): KubeObject;
  /** Warnings to send as `Warning` headers. */
  warnings?(obj: KubeObject, old?: KubeObject): string[];
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
  /** `status` subresource: updates to the main resource ignore status and vice versa. */
  readonly hasStatus: boolean;
  /** Extra subresources served by custom handlers (e.g. namespaces/finalize). */
  readonly subresources: readonly string[];
  readonly nameRule: NameRule;
  /** PUT on a missing object creates it. */
  readonly allowCreateOnUpdate: boolean;
  /** PUT without metadata.resourceVersion overwrites whatever is stored. */
  readonly allowUnconditionalUpdate: boolean;
  /** metadata.generation is bumped when anything but metadata and status changes. */
  readonly tracksGeneration: boolean;
  /** Field selectors beyond metadata.name and metadata.namespace: selector key → JSON path. */
  readonly fieldSelectors: Readonly<Record<string, readonly string[]>>;
  /** Columns after Name (the Name column and a trailing Age column are always present). */
  readonly tableColumns: readonly TableColumn[];
  readonly strategy: KindStrategy;
  /** Set when the kind's objects are stored as another resource (see StorageMapping). */
  readonly storage?: StorageMapping;
}

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
  return Object.freeze({
    singular: input.kind.toLowerCase(),
    shortNames: [],
    categories: [],
    verbs: ALL_VERBS,
    hasStatus: false,
    subresources: [],
    nameRule: 'dns-subdomain',
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    tracksGeneration: false,
    fieldSelectors: {},
    tableColumns: [],
    strategy: {},
    ...input,
  });
}

/** `v1` for the core group, otherwise `<group>/<version>`. */
export function apiVersionOf(kind: Pick<KindDefinition, 'group' | 'version'>): string {
  return kind.group ? `${kind.group}/${kind.version}` : kind.version;
}
