/**
 * The REST routes of a kind, described once and rendered by the v2 and v3 builders.
 * Routes exist only for the verbs a kind lists, like the handlers.
 */
import type { KindDefinition, Verb } from '../../registry/kind.ts';
import { gvCamel, gvkOf, gvPrefix, gvTag, type GroupVersionKind } from './names.ts';
import { DELETE_OPTIONS, listMessageOf, PATCH, STATUS } from './schemas.ts';

export type HttpMethod = 'get' | 'put' | 'post' | 'patch' | 'delete';
export type Action = 'get' | 'list' | 'post' | 'put' | 'patch' | 'delete' | 'deletecollection';

export interface ParamSpec {
  readonly name: string;
  readonly in: 'query' | 'path';
  readonly type: 'string' | 'boolean' | 'integer';
  readonly description: string;
}

/** Query and path parameters by name; descriptions are this project's own words. */
export const PARAMS: Readonly<Record<string, ParamSpec>> = Object.fromEntries(
  (
    [
      ['name', 'path', 'string', 'name of the object'],
      ['namespace', 'path', 'string', 'namespace of the object'],
      ['pretty', 'query', 'string', "if 'true', the output is indented"],
      ['dryRun', 'query', 'string', "'All' runs every stage of the request but persists nothing"],
      ['fieldManager', 'query', 'string', 'name of the actor making the change, recorded in managedFields; required for apply'],
      ['fieldValidation', 'query', 'string',
        'how to treat unknown and duplicate fields in the body: Ignore (drop them), Warn (drop them and send a warning for each; the default) or Strict (fail the request)'],
      ['force', 'query', 'boolean', 'apply only: take ownership of fields other managers own'],
      ['gracePeriodSeconds', 'query', 'integer', 'seconds to wait before the object is deleted; 0 deletes at once'],
      ['orphanDependents', 'query', 'boolean', "deprecated: use propagationPolicy; true orphans dependents, false deletes them"],
      ['propagationPolicy', 'query', 'string', 'garbage collection of dependents: Orphan, Background or Foreground'],
      ['ignoreStoreReadErrorWithClusterBreakingPotential', 'query', 'boolean',
        'delete an object that cannot be read from storage (unsafe; needs the matching permission)'],
      ['labelSelector', 'query', 'string', 'only objects whose labels match this selector'],
      ['fieldSelector', 'query', 'string', 'only objects whose fields match this selector'],
      ['resourceVersion', 'query', 'string', 'the resource version to read or watch from (see resourceVersionMatch)'],
      ['resourceVersionMatch', 'query', 'string', 'how resourceVersion applies to a list: Exact or NotOlderThan'],
      ['limit', 'query', 'integer', 'maximum number of items to return; the list metadata carries a continue token when more remain'],
      ['continue', 'query', 'string', 'the continue token of the previous page'],
      ['timeoutSeconds', 'query', 'integer', 'ends the list or watch after this many seconds'],
      ['watch', 'query', 'boolean', 'stream changes (ADDED, MODIFIED, DELETED, BOOKMARK events) instead of listing'],
      ['allowWatchBookmarks', 'query', 'boolean', 'watch only: the server may send BOOKMARK events'],
      ['sendInitialEvents', 'query', 'boolean',
        'watch only: start with synthetic ADDED events for the current state, then a bookmark marking their end'],
    ] as const
  ).map(([name, where, type, description]) => [name, { name, in: where, type, description }]),
);

export const LIST_QUERY = ['allowWatchBookmarks', 'continue', 'fieldSelector', 'labelSelector', 'limit', 'resourceVersion',
  'resourceVersionMatch', 'sendInitialEvents', 'timeoutSeconds', 'watch'];
export const WRITE_QUERY = ['dryRun', 'fieldManager', 'fieldValidation'];
export const PATCH_QUERY = ['dryRun', 'fieldManager', 'fieldValidation', 'force'];
export const DELETE_QUERY = ['dryRun', 'gracePeriodSeconds', 'ignoreStoreReadErrorWithClusterBreakingPotential',
  'orphanDependents', 'propagationPolicy'];
const DELETE_COLLECTION_QUERY = [...DELETE_QUERY, 'continue', 'fieldSelector', 'labelSelector', 'limit',
  'resourceVersion', 'resourceVersionMatch', 'sendInitialEvents', 'timeoutSeconds'];

export const PATCH_CONTENT_TYPES = [
  'application/apply-patch+yaml',
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
];

/** The patch media types a kind's PATCH operations consume (no strategic merge patch without its wire capability). */
export function patchContentTypes(kind: KindDefinition): readonly string[] {
  return kind.wire.strategicMergePatch ? PATCH_CONTENT_TYPES : PATCH_CONTENT_TYPES.filter((t) => !t.includes('strategic-merge'));
}

export interface Operation {
  readonly method: HttpMethod;
  readonly action: Action;
  readonly operationId: string;
  readonly description: string;
  readonly tag: string;
  readonly gvk: GroupVersionKind;
  /** Operation-level query parameters (kubectl looks for fieldValidation here, on PATCH). */
  readonly query: readonly string[];
  /** Request body message, if any. */
  readonly body?: string;
  readonly patch?: true;
  /** The media types a PATCH consumes (the kind's). */
  readonly patchTypes?: readonly string[];
  /** Response message and the success codes that return it. */
  readonly response: string;
  readonly codes: readonly ('200' | '201' | '202')[];
  /** List operations stream watch events too. */
  readonly watchable?: true;
  /** The media types the operation consumes and produces, when not the built-in kinds' (custom resources). */
  readonly consumes?: readonly string[];
  readonly produces?: readonly string[];
  /** The body may be omitted (a custom resource's DELETE takes optional DeleteOptions). */
  readonly bodyOptional?: true;
}

export interface PathSpec {
  readonly path: string;
  /** Path-level parameters (in this order): path parameters, then `pretty`. */
  readonly params: readonly string[];
  readonly operations: readonly Operation[];
}

function has(kind: KindDefinition, verb: Verb): boolean {
  return kind.verbs.includes(verb);
}

/** The paths of one kind: collection, item, all-namespaces list, and one per declared subresource. */
export function kindPaths(kind: KindDefinition): PathSpec[] {
  const prefix = gvPrefix(kind.group, kind.version);
  const scope = kind.namespaced ? `${prefix}/namespaces/{namespace}` : prefix;
  const collection = `${scope}/${kind.plural}`;
  const item = `${collection}/{name}`;
  const ns = kind.namespaced ? 'Namespaced' : '';
  const gv = gvCamel(kind.group, kind.version);
  const tag = gvTag(kind.group, kind.version);
  const gvk = gvkOf(kind);
  const message = kind.schemaMessage;
  const list = listMessageOf(message) ?? `${message}List`;
  const nsParams = kind.namespaced ? ['namespace'] : [];
  const op = (o: Omit<Operation, 'tag' | 'gvk'>): Operation => ({ ...o, tag, gvk, ...(o.patch ? { patchTypes: patchContentTypes(kind) } : {}) });
  const paths: PathSpec[] = [];

  const collectionOps: Operation[] = [];
  if (has(kind, 'list') || has(kind, 'watch')) {
    collectionOps.push(op({ method: 'get', action: 'list', operationId: `list${gv}${ns}${kind.kind}`,
      description: `list or watch objects of kind ${kind.kind}`, query: LIST_QUERY, response: list, codes: ['200'],
      watchable: true }));
  }
  if (has(kind, 'create')) {
    collectionOps.push(op({ method: 'post', action: 'post', operationId: `create${gv}${ns}${kind.kind}`,
      description: `create a ${kind.kind}`, query: WRITE_QUERY, body: message, response: message,
      codes: ['200', '201', '202'] }));
  }
  if (has(kind, 'deletecollection')) {
    collectionOps.push(op({ method: 'delete', action: 'deletecollection',
      operationId: `delete${gv}Collection${ns}${kind.kind}`, description: `delete collection of ${kind.kind}`,
      query: DELETE_COLLECTION_QUERY, body: DELETE_OPTIONS, response: STATUS, codes: ['200'] }));
  }
  if (collectionOps.length) paths.push({ path: collection, params: [...nsParams, 'pretty'], operations: collectionOps });

  const itemOps: Operation[] = [];
  if (has(kind, 'get')) {
    itemOps.push(op({ method: 'get', action: 'get', operationId: `read${gv}${ns}${kind.kind}`,
      description: `read the specified ${kind.kind}`, query: [], response: message, codes: ['200'] }));
  }
  if (has(kind, 'update')) {
    itemOps.push(op({ method: 'put', action: 'put', operationId: `replace${gv}${ns}${kind.kind}`,
      description: `replace the specified ${kind.kind}`, query: WRITE_QUERY, body: message, response: message,
      codes: ['200', '201'] }));
  }
  if (has(kind, 'patch')) {
    itemOps.push(op({ method: 'patch', action: 'patch', operationId: `patch${gv}${ns}${kind.kind}`,
      description: `partially update the specified ${kind.kind}`, query: PATCH_QUERY, body: PATCH, patch: true,
      response: message, codes: ['200', '201'] }));
  }
  if (has(kind, 'delete')) {
    itemOps.push(op({ method: 'delete', action: 'delete', operationId: `delete${gv}${ns}${kind.kind}`,
      description: `delete a ${kind.kind}`, query: DELETE_QUERY, body: DELETE_OPTIONS, response: STATUS,
      codes: ['200', '202'] }));
  }
  if (itemOps.length) paths.push({ path: item, params: ['name', ...nsParams, 'pretty'], operations: itemOps });

  if (kind.namespaced && (has(kind, 'list') || has(kind, 'watch'))) {
    paths.push({ path: `${prefix}/${kind.plural}`, params: ['pretty'], operations: [op({ method: 'get', action: 'list',
      operationId: `list${gv}${kind.kind}ForAllNamespaces`, description: `list or watch objects of kind ${kind.kind}`,
      query: LIST_QUERY, response: list, codes: ['200'], watchable: true })] });
  }

  // Subresources as their kinds declare them: the parent's message unless one of their own is named.
  for (const sub of kind.subresources) {
    const body = sub.schemaMessage ?? message;
    const Sub = sub.name.charAt(0).toUpperCase() + sub.name.slice(1);
    const subOps: Operation[] = [];
    if (sub.verbs.includes('get')) {
      subOps.push(op({ method: 'get', action: 'get', operationId: `read${gv}${ns}${kind.kind}${Sub}`,
        description: `read ${sub.name} of the specified ${kind.kind}`, query: [], response: body, codes: ['200'] }));
    }
    if (sub.verbs.includes('create')) {
      subOps.push(op({ method: 'post', action: 'post', operationId: `create${gv}${ns}${kind.kind}${Sub}`,
        description: `create ${sub.name} of a ${kind.kind}`, query: WRITE_QUERY, body, response: body,
        codes: ['200', '201', '202'] }));
    }
    if (sub.verbs.includes('update')) {
      subOps.push(op({ method: 'put', action: 'put', operationId: `replace${gv}${ns}${kind.kind}${Sub}`,
        description: `replace ${sub.name} of the specified ${kind.kind}`, query: WRITE_QUERY, body,
        response: body, codes: ['200', '201'] }));
    }
    if (sub.verbs.includes('patch')) {
      subOps.push(op({ method: 'patch', action: 'patch', operationId: `patch${gv}${ns}${kind.kind}${Sub}`,
        description: `partially update ${sub.name} of the specified ${kind.kind}`, query: PATCH_QUERY, body: PATCH,
        patch: true, response: body, codes: ['200', '201'] }));
    }
    if (subOps.length) paths.push({ path: `${item}/${sub.name}`, params: ['name', ...nsParams, 'pretty'], operations: subOps });
  }
  return paths;
}
