/**
 * The store of a served custom resource version: the generic store, plus upstream's one rule that
 * depends on the CRD's state at request time: while the CRD is terminating (its `Terminating`
 * condition True, set when it is deleted and its objects are being removed), a create is refused
 * and everything else is served, so clients and the cleanup can still read, update and delete.
 */
import { ApiError } from '../../api/errors.ts';
import type { RequestContext } from '../../api/request-context.ts';
import type { KubeObject } from '../../api/types.ts';
import type { AdmissionChain } from '../../admission/chain.ts';
import type { KindDefinition } from '../../registry/kind.ts';
import { ResourceStore, type CreateOptions, type StoredObject } from '../../registry/resource-store.ts';
import type { Storage } from '../../storage/storage.ts';

/** What a CRD's stores read of it while serving; the serving loop updates it in place. */
export interface CrdServingState {
  terminating: boolean;
}

/**
 * Upstream's refusal (crdHandler.serveResource): MethodNotSupported on the group and resource, its
 * message replaced.
 */
export function terminatingCreateError(kind: KindDefinition): ApiError {
  return new ApiError(405, 'MethodNotAllowed', 'create not allowed while custom resource definition is terminating', { group: kind.group, kind: kind.plural });
}

export class CustomResourceStore extends ResourceStore {
  readonly #state: CrdServingState;

  constructor(kind: KindDefinition, storage: Storage, admission: AdmissionChain, state: CrdServingState) {
    super(kind, storage, admission);
    this.#state = state;
  }

  /**
   * A create (POST) is refused while the CRD terminates. Upstream checks the `create` verb only: an
   * apply that creates is a patch, and passes (it comes here with its fields recorded).
   */
  override async create(ctx: RequestContext, namespace: string, input: KubeObject, options: CreateOptions = {}): Promise<StoredObject> {
    if (this.#state.terminating && !options.fieldsRecorded) throw terminatingCreateError(this.kind);
    return super.create(ctx, namespace, input, options);
  }
}
