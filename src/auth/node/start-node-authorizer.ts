/**
 * Builds the Node authorizer on the node graph, kept by informers on pods, persistent volumes,
 * volume attachments and (when served) resource slices, so that a kubelet's request reads memory,
 * never the database. Resolves once every informer has its first list.
 */
import type { Logger } from 'pino';
import type { Closers } from '../../closers.ts';
import type { ApiSurface } from '../../registry/api-surface.ts';
import { Informer } from '../../registry/informer.ts';
import { StartupError } from '../../startup-error.ts';
import { populateNodeGraph } from './graph-populator.ts';
import { NodeAuthorizer } from './node-authorizer.ts';
import { NodeGraph } from './node-graph.ts';

export async function startNodeAuthorizer(deps: { surface: ApiSurface; logger: Logger; closers: Closers }): Promise<NodeAuthorizer> {
  const informers: Informer[] = [];
  const informer = (group: string, resource: string): Informer | undefined => {
    const store = deps.surface.findStore(group, resource);
    if (!store) return undefined;
    const inf = new Informer(store, { logger: deps.logger });
    deps.closers.add(`node-authorizer-${resource}-informer`, () => inf.stop());
    informers.push(inf);
    return inf;
  };
  const pods = informer('', 'pods');
  if (!pods) throw new StartupError('--authorization-mode=Node needs the pods API, which --runtime-config turns off');
  // The others only widen what a node may read; a kind that is not served has nothing to relate.
  const persistentVolumes = informer('', 'persistentvolumes');
  const volumeAttachments = informer('storage.k8s.io', 'volumeattachments');
  const resourceSlices = informer('resource.k8s.io', 'resourceslices');

  const graph = new NodeGraph();
  populateNodeGraph(graph, {
    pods,
    ...(persistentVolumes ? { persistentVolumes } : {}),
    ...(volumeAttachments ? { volumeAttachments } : {}),
    ...(resourceSlices ? { resourceSlices } : {}),
  });
  await Promise.all(informers.map((i) => i.start()));
  return new NodeAuthorizer(graph);
}
