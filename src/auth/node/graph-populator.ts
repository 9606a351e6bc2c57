/**
 * Keeps a NodeGraph current from informers, as upstream's graph populator does: bound pods,
 * persistent volumes, volume attachments and (when served) resource slices. Handlers run as the
 * informer hears of each change, so a decision reads the graph the last event left.
 */
import type { StoredKubeObject } from '../../api/types.ts';
import type { InformerHandlers } from '../../registry/informer.ts';
import type { NodeGraph } from './node-graph.ts';
import { podReferencesMayDiffer } from './pod-references.ts';

type Obj = Record<string, any>;

/** What the populator needs of an informer: to be told of its objects. */
export interface GraphSource {
  on(handlers: InformerHandlers): void;
}

export interface GraphSources {
  readonly pods: GraphSource;
  readonly persistentVolumes?: GraphSource;
  readonly volumeAttachments?: GraphSource;
  readonly resourceSlices?: GraphSource;
}

const nodeNameOf = (obj: StoredKubeObject) => String((obj as Obj).spec?.nodeName ?? '');

export function populateNodeGraph(graph: NodeGraph, sources: GraphSources): void {
  sources.pods.on({
    added: (pod) => {
      if (nodeNameOf(pod) !== '') graph.setPod(pod);
    },
    updated: (pod, old) => {
      // Unbound pods are not in the graph; a bound pod's references are fixed but for these changes.
      if (nodeNameOf(pod) === '' || !podReferencesMayDiffer(pod, old)) return;
      graph.setPod(pod);
    },
    deleted: (pod) => graph.deletePod(pod.metadata.namespace ?? '', pod.metadata.name),
  });
  sources.persistentVolumes?.on({
    added: (pv) => graph.setPersistentVolume(pv),
    updated: (pv) => graph.setPersistentVolume(pv),
    deleted: (pv) => graph.deletePersistentVolume(pv.metadata.name),
  });
  sources.volumeAttachments?.on({
    added: (va) => graph.setVolumeAttachment(va.metadata.name, nodeNameOf(va)),
    updated: (va, old) => {
      if (nodeNameOf(va) !== nodeNameOf(old)) graph.setVolumeAttachment(va.metadata.name, nodeNameOf(va));
    },
    deleted: (va) => graph.deleteVolumeAttachment(va.metadata.name),
  });
  // A slice's node is immutable: no update handler, as upstream.
  sources.resourceSlices?.on({
    added: (slice) => graph.setResourceSlice(slice.metadata.name, nodeNameOf(slice)),
    deleted: (slice) => graph.deleteResourceSlice(slice.metadata.name),
  });
}
