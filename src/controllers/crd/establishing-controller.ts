/**
 * The establishing controller (apiextensions-apiserver pkg/controller/establish): once a CRD's
 * names are accepted, Established becomes True (`InitialNamesAccepted`), or False `InvalidCABundle`
 * when its conversion webhook's CA bundle is unusable. Upstream's CRD handler queues the CRD as soon
 * as it sees NamesAccepted True without Established on a single server, and 5 s later when several
 * servers share the storage (so that every server serves the resource before it is announced).
 */
import type { Logger } from 'pino';
import { establishedCondition } from '../../crd/validation/index.ts';
import type { Informer } from '../../registry/informer.ts';
import type { ResourceStore } from '../../registry/resource-store.ts';
import { CrdQueueController } from './crd-queue-controller.ts';
import { asCrd, writeCondition } from './crd-status.ts';
import type { StoredKubeObject } from '../../api/types.ts';

export class EstablishingController extends CrdQueueController {
  readonly #delayMs: number;

  /** `delayMs`: 0 for one server (upstream's masterCount 1), 5000 for several. */
  constructor(crds: ResourceStore, view: Informer, logger: Logger, delayMs = 0) {
    super(crds, view, logger, 'crdEstablishing');
    this.#delayMs = delayMs;
  }

  override start(): void {
    const consider = (obj: StoredKubeObject) => {
      if (establishedCondition(asCrd(obj))) this.queue.addAfter(obj.metadata.name, this.#delayMs);
    };
    this.view.on({ added: consider, updated: consider });
    this.queue.run();
  }

  async sync(name: string): Promise<void> {
    const cached = this.view.get('', name);
    if (!cached) return;
    const crd = asCrd(cached);
    const condition = establishedCondition(crd);
    if (!condition) return;
    await writeCondition(this.crds, crd, condition);
  }
}
