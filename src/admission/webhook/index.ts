/**
 * The admission webhook plugins, as src/admission/index.ts builds them: each keeps its
 * configurations from a watch (started before the first request) and closes its connections on stop.
 */
import type { AdmissionDeps } from '../index.ts';
import type { AdmissionPlugin } from '../plugin.ts';
import { MutatingAdmissionWebhook } from './mutating.ts';
import { ValidatingAdmissionWebhook } from './validating.ts';

export { MutatingAdmissionWebhook } from './mutating.ts';
export { ValidatingAdmissionWebhook } from './validating.ts';

type Built = { plugin: AdmissionPlugin; start: () => Promise<void>; stop: () => void };

export function mutatingAdmissionWebhook(deps: AdmissionDeps): Built {
  const plugin = new MutatingAdmissionWebhook(deps);
  return { plugin, start: () => plugin.start(), stop: () => plugin.stop() };
}

export function validatingAdmissionWebhook(deps: AdmissionDeps): Built {
  const plugin = new ValidatingAdmissionWebhook(deps);
  return { plugin, start: () => plugin.start(), stop: () => plugin.stop() };
}
