/**
 * The ValidatingAdmissionWebhook plugin (validating phase): finds the matching webhooks, then asks
 * them all at once, as upstream does in parallel. Any refusal or failure (under failurePolicy Fail)
 * refuses the request; when several fail, the first to fail is the answer.
 */
import type { KindDefinition } from '../../registry/kind.ts';
import type { AdmissionAttributes } from '../attributes.ts';
import type { AdmissionDeps } from '../index.ts';
import type { AdmissionPlugin } from '../plugin.ts';
import { CallingWebhookError, internalErrorOf } from './errors.ts';
import { versionedObjects, type Invocation, type VersionedObjects } from './matching.ts';
import { GenericWebhook } from './webhook.ts';

const FAILED_OPEN_PREFIX = 'failed-open.validating.webhook.admission.k8s.io/';

export class ValidatingAdmissionWebhook extends GenericWebhook implements AdmissionPlugin {
  readonly name = 'ValidatingAdmissionWebhook';

  constructor(deps: AdmissionDeps) {
    super(deps, 'ValidatingWebhookConfiguration', false);
  }

  validate(a: AdmissionAttributes): void | Promise<void> {
    if (this.webhooksFor(a).length === 0) return;
    return this.#dispatch(a);
  }

  async #dispatch(a: AdmissionAttributes): Promise<void> {
    const req = this.request(a);
    const objects: VersionedObjects = { object: a.object, oldObject: a.oldObject };
    const relevant: { inv: Invocation; objects: VersionedObjects }[] = [];
    // The objects in each kind the webhooks are called for, converted once per kind.
    const byKind = new Map<KindDefinition | undefined, VersionedObjects>();
    for (const hook of this.webhooksFor(a)) {
      const inv = await this.matcher.shouldCallHook(hook, req, objects);
      if (!inv) continue;
      let versioned = byKind.get(inv.target);
      if (!versioned) {
        try {
          versioned = await versionedObjects(req, inv, objects);
        } catch (err) {
          throw internalErrorOf((err as Error).message);
        }
        byKind.set(inv.target, versioned);
      }
      relevant.push({ inv, objects: versioned });
    }
    if (relevant.length === 0) return;
    const errors: unknown[] = [];
    await Promise.all(
      relevant.map(async ({ inv, objects: versioned }, idx) => {
        try {
          await this.callHook(req, inv, versioned);
        } catch (err) {
          if (err instanceof CallingWebhookError) {
            if (inv.hook.hook.failurePolicy === 'Ignore') {
              this.failedOpen(inv.hook.name, err);
              this.annotate(a, `${FAILED_OPEN_PREFIX}round_0_index_${idx}`, inv.hook.name);
              return;
            }
            this.failedClosed(inv.hook.name, err);
            errors.push(internalErrorOf(err.message));
            return;
          }
          errors.push(err);
        }
      }),
    );
    if (errors.length > 0) throw errors[0];
  }
}
