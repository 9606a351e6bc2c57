/**
 * The NonStructuralSchema condition controller (apiextensions-apiserver
 * pkg/controller/nonstructuralschema): True (`Violations`, the aggregated errors) while a CRD's
 * schemas are not structural or preserveUnknownFields is true, as a CRD stored before v1 may be;
 * removed once they are. Each generation is judged once (upstream's guard against servers fighting
 * over the condition).
 */
import type { Logger } from 'pino';
import { conditionEquivalent, findCondition, nonStructuralCondition } from '../../crd/validation/index.ts';
import type { Informer } from '../../registry/informer.ts';
import type { ResourceStore } from '../../registry/resource-store.ts';
import { CrdQueueController } from './crd-queue-controller.ts';
import { asCrd, copyOf, updateCrdStatus, withoutCondition, writeCondition, type Crd } from './crd-status.ts';

const TYPE = 'NonStructuralSchema';

export class NonStructuralSchemaController extends CrdQueueController {
  readonly #lastSeenGeneration = new Map<string, number>();

  constructor(crds: ResourceStore, view: Informer, logger: Logger) {
    super(crds, view, logger, 'non_structural_schema_condition_controller', 5);
  }

  protected override forget(name: string): void {
    this.#lastSeenGeneration.delete(name);
  }

  async sync(name: string): Promise<void> {
    const cached = this.view.get('', name);
    if (!cached) return;
    const crd = asCrd(cached);
    const generation = crd.metadata.generation ?? 0;
    const lastSeen = this.#lastSeenGeneration.get(name);
    if (lastSeen !== undefined && generation <= lastSeen) return;
    const condition = nonStructuralCondition(crd);
    const old = findCondition(crd, TYPE);
    if (!condition && !old) return;
    if (condition && conditionEquivalent(old, condition)) return;
    const stored = condition ? await writeCondition(this.crds, crd, condition) : await this.#removeCondition(crd);
    if (stored) this.#lastSeenGeneration.set(name, stored.metadata.generation ?? 0);
  }

  #removeCondition(crd: Crd): Promise<Crd | undefined> {
    const next = copyOf(crd);
    next.status = { ...next.status, conditions: withoutCondition(next.status?.conditions, TYPE) };
    return updateCrdStatus(this.crds, next, crd.metadata.resourceVersion);
  }
}
