/** The ValidatingAdmissionPolicy plugin as the admission chain builds it. */
import type { Logger } from 'pino';
import type { Informer } from '../../registry/informer.ts';
import type { KindDefinition } from '../../registry/kind.ts';
import type { ResourceStore } from '../../registry/resource-store.ts';
import type { Storage } from '../../storage/storage.ts';
import type { AdmissionPlugin } from '../plugin.ts';
import { ValidatingAdmissionPolicy } from './plugin.ts';

export { ValidatingAdmissionPolicy, PLUGIN_NAME, VALIDATION_FAILURE_ANNOTATION } from './plugin.ts';

/** Builds the plugin; `start` lists and watches policies and bindings (the first request waits for neither). */
export function validatingAdmissionPolicy(deps: {
  readonly storage: Storage;
  readonly kinds: readonly KindDefinition[];
  readonly servedKinds?: () => readonly KindDefinition[];
  readonly namespaceView: Informer;
  readonly namespaces: ResourceStore;
  readonly logger: Logger;
}): { plugin: AdmissionPlugin; start: () => Promise<void>; stop: () => void } {
  const plugin = new ValidatingAdmissionPolicy(deps);
  return { plugin, start: () => plugin.start(), stop: () => plugin.stop() };
}
