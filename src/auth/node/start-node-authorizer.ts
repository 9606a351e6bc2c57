/**
 * Builds the Node authorizer on a pod informer indexed by the node each pod is bound to, so that a
 * kubelet's request reads memory, never the database. Resolves once the first list is in.
 */
import type { Logger } from 'pino';
import type { Closers } from '../../closers.ts';
import type { ApiSurface } from '../../registry/api-surface.ts';
import { Informer } from '../../registry/informer.ts';
import { StartupError } from '../../startup-error.ts';
import { NodeAuthorizer } from './node-authorizer.ts';

export async function startNodeAuthorizer(deps: { surface: ApiSurface; logger: Logger; closers: Closers }): Promise<NodeAuthorizer> {
  const store = deps.surface.findStore('', 'pods');
  if (!store) throw new StartupError('--authorization-mode=Node needs the pods API, which --runtime-config turns off');
  const pods = new Informer(store, {
    logger: deps.logger,
    index: (pod) => {
      const nodeName = (pod as { spec?: { nodeName?: string } }).spec?.nodeName;
      return nodeName ? [nodeName] : [];
    },
  });
  deps.closers.add('node-authorizer-pod-informer', () => pods.stop());
  await pods.start();
  return new NodeAuthorizer({ podsOn: (node) => pods.byIndex(node) as unknown as Record<string, any>[] });
}
