/**
 * The naming controller (apiextensions-apiserver pkg/controller/status): grants a CRD the names it
 * asks for unless another CRD of its group holds them, writing status.acceptedNames, NamesAccepted
 * and Established (False until the establishing controller turns it True). Names are judged against
 * the accepted names of every CRD of the group, the controller's own latest writes included (its
 * mutation cache), so that two quick syncs never grant one name twice. Whenever a CRD's names
 * change or a CRD goes, every other CRD of its group is judged again: a name may have been freed.
 * One worker, as upstream: the judgement is not safe to run twice at once.
 */
import type { Logger } from 'pino';
import { deepEqualJson } from '../../crd/schema/json.ts';
import { calculateNamesAndConditions, conditionEquivalent, findCondition, namesUpToDate, setCondition } from '../../crd/validation/index.ts';
import type { Informer } from '../../registry/informer.ts';
import type { ResourceStore } from '../../registry/resource-store.ts';
import { nowTimestamp } from '../../registry/system-fields.ts';
import { CrdQueueController } from './crd-queue-controller.ts';
import { asCrd, copyOf, updateCrdStatus, type Crd } from './crd-status.ts';

export class NamingController extends CrdQueueController {
  /** What this controller wrote last, by name, until the informer has caught up with it. */
  readonly #written = new Map<string, Crd>();

  constructor(crds: ResourceStore, view: Informer, logger: Logger) {
    super(crds, view, logger, 'naming_condition_controller');
  }

  /** The newest known state of a CRD: the informer's, or this controller's later write. */
  #latest(crd: Crd): Crd {
    const written = this.#written.get(crd.metadata.name);
    if (!written) return crd;
    if (written.metadata.uid === crd.metadata.uid && Number(written.metadata.resourceVersion) > Number(crd.metadata.resourceVersion)) return written;
    this.#written.delete(crd.metadata.name);
    return crd;
  }

  async sync(name: string): Promise<void> {
    const cached = this.view.get('', name);
    if (!cached) {
      // The CRD is gone and has freed its names.
      this.#written.delete(name);
      this.#requeueOtherGroupCrds(name);
      return;
    }
    const crd = asCrd(cached);
    if (namesUpToDate(crd)) return;
    const group = crd.spec?.group ?? '';
    const groupCrds = this.view
      .list()
      .map((o) => this.#latest(asCrd(o)))
      .filter((c) => (c.spec?.group ?? '') === group);
    const result = calculateNamesAndConditions(crd, groupCrds);
    if (deepEqualJson(crd.status?.acceptedNames ?? {}, result.acceptedNames) && conditionEquivalent(result.namesAccepted, findCondition(crd, 'NamesAccepted'))) return;

    const next = copyOf(crd);
    const status = (next.status ??= {});
    status.acceptedNames = result.acceptedNames;
    const now = nowTimestamp();
    status.conditions = setCondition(setCondition(status.conditions, result.namesAccepted, now), result.established, now);
    const stored = await updateCrdStatus(this.crds, next, crd.metadata.resourceVersion ?? '0');
    if (!stored) return;
    this.#written.set(name, stored);
    // Names may have been released: the rest of the group is judged again.
    this.#requeueOtherGroupCrds(name);
  }

  #requeueOtherGroupCrds(name: string): void {
    const dot = name.indexOf('.');
    const group = dot < 0 ? '' : name.slice(dot + 1);
    for (const o of this.view.list()) {
      const c = asCrd(o);
      if ((c.spec?.group ?? '') === group && c.metadata.name !== name) this.queue.add(c.metadata.name);
    }
  }
}
