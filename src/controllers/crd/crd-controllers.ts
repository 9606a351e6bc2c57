/**
 * apiextensions-apiserver's controllers of CustomResourceDefinitions (its
 * `start-apiextensions-controllers` post-start hook), on one shared CRD informer: naming,
 * establishing, the NonStructuralSchema and KubernetesAPIApprovalPolicyConformant conditions, and
 * the finalizer that deletes a deleted CRD's custom resources. Here they run in the elected leader
 * with the other controllers; kube-controller-manager has no `--controllers` name for them.
 */
import type { Logger } from 'pino';
import type { ApiSurface } from '../../registry/api-surface.ts';
import { Informer } from '../../registry/informer.ts';
import type { ResourceStore } from '../../registry/resource-store.ts';
import { ApiApprovalController } from './api-approval-controller.ts';
import { EstablishingController } from './establishing-controller.ts';
import { CrdFinalizer, type CrdFinalizerOptions } from './finalizer-controller.ts';
import { NamingController } from './naming-controller.ts';
import { NonStructuralSchemaController } from './non-structural-schema-controller.ts';

export interface CrdControllerOptions {
  /** The establishing delay: 0 on one server, upstream's 5 s when several share the storage. */
  readonly establishDelayMs?: number;
  readonly finalizer?: CrdFinalizerOptions;
}

interface Part {
  start(): void;
  stop(): void;
  idle(): Promise<void>;
  resync(): void;
}

/** Upstream's apiextensions informer factory resyncs every 5 minutes. */
const RESYNC_MS = 5 * 60_000;

export class CrdControllers {
  readonly #surface: ApiSurface;
  readonly #crds: ResourceStore;
  readonly #logger: Logger;
  readonly #options: CrdControllerOptions;
  #view: Informer | undefined;
  #parts: Part[] = [];
  #stopped = true;
  #resync: NodeJS.Timeout | undefined;

  constructor(surface: ApiSurface, crds: ResourceStore, logger: Logger, options: CrdControllerOptions = {}) {
    this.#surface = surface;
    this.#crds = crds;
    this.#logger = logger.child({ controller: 'apiextensions' });
    this.#options = options;
  }

  async start(): Promise<void> {
    this.#stopped = false;
    const view = new Informer(this.#crds, { logger: this.#logger });
    this.#view = view;
    const parts: Part[] = [
      new NamingController(this.#crds, view, this.#logger),
      new EstablishingController(this.#crds, view, this.#logger, this.#options.establishDelayMs ?? 0),
      new NonStructuralSchemaController(this.#crds, view, this.#logger),
      new ApiApprovalController(this.#crds, view, this.#logger),
      new CrdFinalizer(this.#surface, this.#crds, view, this.#logger, this.#options.finalizer),
    ];
    this.#parts = parts;
    // The controllers wait for the informer's first list (WaitForCacheSync) before any sync.
    await view.start();
    if (this.#stopped) return;
    for (const part of parts) part.start();
    this.#resync = setInterval(() => {
      for (const part of parts) part.resync();
    }, RESYNC_MS);
    this.#resync.unref();
  }

  stop(): void {
    this.#stopped = true;
    clearInterval(this.#resync);
    for (const part of this.#parts) part.stop();
    this.#parts = [];
    this.#view?.stop();
    this.#view = undefined;
  }

  /** Resolves once no controller has work queued or under way (tests). */
  async idle(): Promise<void> {
    await Promise.all(this.#parts.map((p) => p.idle()));
  }
}
