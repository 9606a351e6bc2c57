/**
 * What the CRD condition controllers share: a named key queue fed by the shared CRD informer (every
 * added, updated or deleted CRD is queued by name), a resync that queues them all, and a `sync` of
 * one name that each controller writes. A controller that keeps per-CRD memory forgets it in
 * `forget` when the CRD is deleted.
 */
import type { Logger } from 'pino';
import type { Informer } from '../../registry/informer.ts';
import type { ResourceStore } from '../../registry/resource-store.ts';
import { KeyQueue } from './key-queue.ts';

export abstract class CrdQueueController {
  protected readonly crds: ResourceStore;
  protected readonly view: Informer;
  protected readonly queue: KeyQueue;

  constructor(crds: ResourceStore, view: Informer, logger: Logger, queueName: string, workers = 1) {
    this.crds = crds;
    this.view = view;
    this.queue = new KeyQueue(queueName, (key) => this.sync(key), logger, workers);
  }

  /** Judges the CRD of that name as the informer holds it now (gone: nothing, unless the controller says). */
  abstract sync(name: string): Promise<void>;

  /** Drops what the controller remembers of a deleted CRD. */
  protected forget(_name: string): void {}

  start(): void {
    const enqueue = (obj: { metadata: { name: string } }) => this.queue.add(obj.metadata.name);
    this.view.on({
      added: enqueue,
      updated: enqueue,
      deleted: (obj) => {
        this.forget(obj.metadata.name);
        enqueue(obj);
      },
    });
    this.queue.run();
  }

  stop(): void {
    this.queue.stop();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  /** The informer's periodic resync: every CRD is looked at again. */
  resync(): void {
    for (const obj of this.view.list()) this.queue.add(obj.metadata.name);
  }
}
