import type { Logger } from 'pino';
import { ApiError } from '../api/errors.ts';
import type { KubeObject, StoredKubeObject } from '../api/types.ts';
import { checkPolicy } from '../admission/policy/type-check.ts';
import { Informer } from '../registry/informer.ts';
import type { KindDefinition } from '../registry/kind.ts';
import type { ResourceStore } from '../registry/resource-store.ts';
import { CoalescedPass } from './coalesced-pass.ts';
import { controllerContext } from './controller-context.ts';

/** upstream's controller name, which is also its field manager. */
export const VALIDATING_ADMISSION_POLICY_STATUS = 'validatingadmissionpolicy-status-controller';

type Policy = StoredKubeObject & { status?: { observedGeneration?: number } };

/**
 * The ValidatingAdmissionPolicy status controller (kube-controller-manager's
 * validatingadmissionpolicy-status-controller): each policy whose generation is newer than its
 * status.observedGeneration is type-checked against the kinds it matches, and its status is
 * applied (server-side apply, forced, as this controller's field manager) with the generation and
 * the expression warnings.
 */
export class ValidatingAdmissionPolicyStatusController {
  readonly #store: ResourceStore;
  readonly #kinds: () => readonly KindDefinition[];
  readonly #logger: Logger;
  #informer: Informer | undefined;
  #passes: CoalescedPass | undefined;
  #stopped = true;

  /** `kinds` are the served kinds (the types policies are checked against). */
  constructor(store: ResourceStore, kinds: () => readonly KindDefinition[], logger: Logger) {
    this.#store = store;
    this.#kinds = kinds;
    this.#logger = logger.child({ controller: VALIDATING_ADMISSION_POLICY_STATUS });
  }

  async start(): Promise<void> {
    this.#stopped = false;
    this.#passes = new CoalescedPass(() => this.#reconcileAll());
    const informer = new Informer(this.#store, { logger: this.#logger });
    this.#informer = informer;
    const poke = () => this.#passes?.request();
    informer.on({ added: poke, updated: poke });
    await informer.start();
    poke();
  }

  stop(): void {
    this.#stopped = true;
    this.#informer?.stop();
    this.#informer = undefined;
    this.#passes?.stop();
  }

  async #reconcileAll(): Promise<'retry' | void> {
    let retry = false;
    for (const policy of (this.#informer?.list() ?? []) as Policy[]) {
      if (this.#stopped) return;
      const generation = policy.metadata.generation ?? 0;
      if (generation <= (policy.status?.observedGeneration ?? 0)) continue;
      try {
        await this.#reconcile(policy, generation);
      } catch (err) {
        if (err instanceof ApiError && (err.code === 404 || err.code === 409)) continue;
        this.#logger.warn({ err, policy: policy.metadata.name }, 'writing the type checking status failed; retrying');
        retry = true;
      }
    }
    return retry ? 'retry' : undefined;
  }

  async #reconcile(policy: Policy, generation: number): Promise<void> {
    let warnings: ReturnType<typeof checkPolicy> = [];
    try {
      warnings = checkPolicy(policy, this.#kinds());
    } catch (err) {
      // Type checking must not keep the policy's status from being written (nor change the policy).
      this.#logger.warn({ err, policy: policy.metadata.name }, 'type checking failed');
    }
    const config: KubeObject = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: policy.metadata.name },
      status: { observedGeneration: generation, typeChecking: warnings.length > 0 ? { expressionWarnings: warnings.map((w) => ({ fieldRef: w.fieldRef, warning: w.warning })) } : {} },
    };
    const ctx = controllerContext('status');
    const fields = this.#store.fields.forSubresource('status');
    await this.#store.update(ctx, '', policy.metadata.name, {
      apply: true,
      build: (current) => {
        // A policy deleted meanwhile is not recreated by its status.
        if (current === null) throw new ApiError(404, 'NotFound', `validatingadmissionpolicies.admissionregistration.k8s.io "${policy.metadata.name}" not found`);
        return fields.apply(current, config, VALIDATING_ADMISSION_POLICY_STATUS, true) as KubeObject;
      },
    });
  }
}
