/**
 * Parameter objects: one informer per param kind that some policy names (started when first
 * needed, stopped when no policy names the kind any more), and upstream's CollectParams: the
 * objects a binding's paramRef selects, by name or label selector, in the paramRef's namespace or
 * the request's, with parameterNotFoundAction deciding what no object means.
 */
import type { Logger } from 'pino';
import { labelSelectorFromObject, matchesLabels, type LabelSelectorObject } from '../../api/selectors/label-selector.ts';
import type { KubeObject, StoredKubeObject } from '../../api/types.ts';
import { NO_ADMISSION } from '../chain.ts';
import { Informer } from '../../registry/informer.ts';
import { apiVersionOf, type KindDefinition } from '../../registry/kind.ts';
import { ResourceStore } from '../../registry/resource-store.ts';
import type { Storage } from '../../storage/storage.ts';

export interface ParamKind {
  readonly apiVersion?: string;
  readonly kind?: string;
}

export interface ParamRef {
  readonly name?: string;
  readonly namespace?: string;
  readonly selector?: LabelSelectorObject | null;
  readonly parameterNotFoundAction?: string;
}

/** How long a request waits for a new param informer's first list, as upstream's (1 s). */
const SYNC_WAIT_MS = 1000;

/** paramKind as Go's generated String() prints it (upstream's messages quote it so). */
export function paramKindString(pk: ParamKind): string {
  return `&ParamKind{APIVersion:${pk.apiVersion ?? ''},Kind:${pk.kind ?? ''},}`;
}

/** The group and version of an apiVersion, or undefined when it does not parse (more than one slash). */
export function parseGroupVersion(apiVersion: string): { group: string; version: string } | undefined {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: parts[0]! };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  return undefined;
}

/** A param kind's objects, as one informer keeps them. */
export class ParamSource {
  readonly kind: KindDefinition;
  readonly informer: Informer;
  #synced = false;
  readonly #started: Promise<void>;

  constructor(kind: KindDefinition, storage: Storage, logger: Logger) {
    this.kind = kind;
    this.informer = new Informer(new ResourceStore(kind, storage, NO_ADMISSION), { logger });
    this.#started = this.informer.start().then(
      () => {
        this.#synced = true;
      },
      (err: unknown) => logger.warn({ err, resource: kind.plural }, 'param informer failed to start'),
    );
  }

  /** Whether the first list is in, waiting up to a second for it. */
  async waitSynced(): Promise<boolean> {
    if (this.#synced) return true;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.#started, new Promise<void>((resolve) => (timer = setTimeout(resolve, SYNC_WAIT_MS)))]);
    clearTimeout(timer);
    return this.#synced;
  }

  get namespaced(): boolean {
    return this.kind.namespaced;
  }

  stop(): void {
    this.informer.stop();
  }
}

/** Why params could not be had: a configuration error in upstream's words. */
export class ParamError extends Error {}

/**
 * The param objects to evaluate a binding with (each with apiVersion and kind), as upstream's
 * CollectParams: `[null]` when the policy takes no params or the binding names none, `[]` when
 * none is found and the binding allows that. Throws a ParamError for configuration errors.
 */
export async function collectParams(paramKind: ParamKind | null | undefined, source: ParamSource | undefined, paramRef: ParamRef | null | undefined, requestNamespace: string): Promise<(KubeObject | null)[]> {
  if (!paramKind) return [null];
  if (!paramRef) return [null];
  if (!source) throw new ParamError(`paramKind kind \`${paramKindString(paramKind)}\` not known`);
  let namespace = '';
  if (source.namespaced) {
    namespace = paramRef.namespace || requestNamespace;
    if (!namespace) throw new ParamError('cannot use namespaced paramRef in policy binding that matches cluster-scoped resources');
  }
  if (!(await source.waitSynced())) throw new ParamError(`paramKind kind \`${paramKindString(paramKind)}\` not yet synced to use for admission`);
  if (paramRef.namespace && !source.namespaced) throw new ParamError('paramRef.namespace must not be provided for a cluster-scoped `paramKind`');

  let params: StoredKubeObject[];
  if (paramRef.name) {
    if (paramRef.selector) throw new ParamError('paramRef.name and paramRef.selector are mutually exclusive');
    const found = source.informer.get(namespace, paramRef.name);
    params = found ? [found] : [];
  } else if (paramRef.selector) {
    let selector;
    try {
      selector = labelSelectorFromObject(paramRef.selector);
    } catch (err) {
      throw new ParamError(err instanceof Error ? err.message : String(err));
    }
    params = source.informer
      .list()
      .filter((o) => (!source.namespaced || o.metadata.namespace === namespace) && matchesLabels(selector, o.metadata.labels))
      .sort((x, y) => ((x.metadata.namespace ?? '') + '/' + x.metadata.name < (y.metadata.namespace ?? '') + '/' + y.metadata.name ? -1 : 1));
  } else {
    throw new ParamError('one of name or selector must be provided');
  }
  if (params.length === 0 && paramRef.parameterNotFoundAction === 'Deny') {
    throw new ParamError('no params found for policy binding with `Deny` parameterNotFoundAction');
  }
  // Params carry their type, as upstream's wrapper gives typed objects theirs.
  return params.map((p) => (p.apiVersion && p.kind ? p : { ...p, apiVersion: apiVersionOf(source.kind), kind: source.kind.kind }));
}
