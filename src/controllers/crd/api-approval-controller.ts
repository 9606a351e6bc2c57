/**
 * The KubernetesAPIApprovalPolicyConformant condition controller (apiextensions-apiserver
 * pkg/controller/apiapproval): CRDs of the protected groups (k8s.io, kubernetes.io and their
 * subdomains) carry whether their `api-approved.kubernetes.io` annotation is a valid approval.
 * Each annotation value is judged once per CRD (upstream's guard against fighting servers); the
 * group is immutable, so a CRD outside those groups never needs the condition removed.
 */
import type { Logger } from 'pino';
import { API_APPROVAL_ANNOTATION, apiApprovalCondition, conditionEquivalent, findCondition } from '../../crd/validation/index.ts';
import type { Informer } from '../../registry/informer.ts';
import type { ResourceStore } from '../../registry/resource-store.ts';
import { CrdQueueController } from './crd-queue-controller.ts';
import { asCrd, writeCondition } from './crd-status.ts';

export class ApiApprovalController extends CrdQueueController {
  readonly #lastSeenAnnotation = new Map<string, string>();

  constructor(crds: ResourceStore, view: Informer, logger: Logger) {
    super(crds, view, logger, 'kubernetes_api_approval_conformant_condition_controller', 5);
  }

  protected override forget(name: string): void {
    this.#lastSeenAnnotation.delete(name);
  }

  async sync(name: string): Promise<void> {
    const cached = this.view.get('', name);
    if (!cached) return;
    const crd = asCrd(cached);
    const annotation = crd.metadata.annotations?.[API_APPROVAL_ANNOTATION] ?? '';
    if (this.#lastSeenAnnotation.get(name) === annotation) return;
    const condition = apiApprovalCondition(crd);
    if (!condition) return;
    if (conditionEquivalent(findCondition(crd, condition.type), condition)) return;
    const stored = await writeCondition(this.crds, crd, condition);
    if (stored) this.#lastSeenAnnotation.set(name, annotation);
  }
}
