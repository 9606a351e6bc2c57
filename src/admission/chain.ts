import type { AdmissionAttributes } from './attributes.ts';
import type { AdmissionPlugin } from './plugin.ts';

/**
 * The enabled plugins in upstream's order. The store runs the mutating phase (`admit`) before its
 * kind's rules and the validating phase (`validate`) after them, just before the write; each phase
 * calls the plugins in order, and the first refusal ends the request.
 *
 * The mutating phase runs a second time when a plugin asked for it on the request's reinvocation
 * context (upstream's reinvoker around the chain): a webhook changed the object after a webhook
 * with reinvocationPolicy IfNeeded had seen it. The second round runs every mutating plugin again,
 * so the in-tree ones apply themselves to what the webhooks changed; there is no third round.
 */
export class AdmissionChain {
  readonly plugins: readonly AdmissionPlugin[];
  /** Whether any plugin has a mutating or a validating phase (writes skip building attributes otherwise). */
  readonly mutates: boolean;
  readonly validates: boolean;

  constructor(plugins: readonly AdmissionPlugin[]) {
    this.plugins = plugins;
    this.mutates = plugins.some((p) => p.admit);
    this.validates = plugins.some((p) => p.validate);
  }

  get names(): string[] {
    return this.plugins.map((p) => p.name);
  }

  async admit(attributes: AdmissionAttributes): Promise<void> {
    // One loop for both rounds, so that the usual request (one round) costs no more than before.
    for (;;) {
      for (const plugin of this.plugins) {
        if (!plugin.admit || !plugin.handles(attributes.operation)) continue;
        const pending = plugin.admit(attributes);
        if (pending) await pending;
      }
      // Only a plugin that may ask for a second round makes the context: the usual request has none.
      const reinvocation = attributes.reinvocation;
      if (!reinvocation?.shouldReinvoke || reinvocation.isReinvoke) return;
      reinvocation.setIsReinvoke();
    }
  }

  async validate(attributes: AdmissionAttributes): Promise<void> {
    for (const plugin of this.plugins) {
      if (plugin.validate && plugin.handles(attributes.operation)) await plugin.validate(attributes);
    }
  }
}

/** A chain with no plugins (every plugin disabled, or a store used without admission in tests). */
export const NO_ADMISSION = new AdmissionChain([]);
