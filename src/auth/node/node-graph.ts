/**
 * The graph the Node authorizer decides on, as upstream keeps it (plugin/pkg/auth/authorizer/node/
 * graph.go): one vertex per API object, edges pointing toward the nodes.
 *
 *   pod -> node                      volumeattachment -> node      resourceslice -> node
 *   secret, configmap, pvc, serviceaccount, resourceclaim -> pod
 *   pv -> pvc (its claimRef)         secret -> pv (kubelet-visible secrets of its source)
 *
 * An edge into a pod carries the pod's node as its destination, so a search from an object never
 * wanders into pods on other nodes. Removing a vertex removes the neighbours that were joined to it
 * alone, so the graph holds only what some pod, volume or attachment still names. A node vertex
 * exists while something points at it; a node nothing points at has no relationships.
 */
import { MIRROR_POD_ANNOTATION, podReferences } from './pod-references.ts';
import { pvKubeletSecrets } from './pv-references.ts';

type Obj = Record<string, any>;

export type VertexType = 'configmap' | 'node' | 'pod' | 'pv' | 'pvc' | 'resourceclaim' | 'resourceslice' | 'secret' | 'serviceaccount' | 'volumeattachment';

interface Vertex {
  readonly key: string;
  /** Edges out, each with the node it leads to ('' for pv -> pvc and secret -> pv, which lead to no one node). */
  readonly out: Map<Vertex, string>;
  readonly in: Set<Vertex>;
  /** How many edges out lead to each node: one lookup answers the common one-hop question. */
  readonly destinations: Map<string, number>;
}

const keyOf = (type: VertexType, namespace: string, name: string) => `${type}/${namespace}/${name}`;

export class NodeGraph {
  readonly #vertices = new Map<string, Vertex>();

  /** Whether some path leads from the object to the node (never through a pod on another node). */
  hasPath(nodeName: string, type: VertexType, namespace: string, name: string): boolean {
    const node = this.#vertices.get(keyOf('node', '', nodeName));
    const start = this.#vertices.get(keyOf(type, namespace, name));
    if (!node || !start) return false;
    if (start.destinations.has(nodeName)) return true;
    const seen = new Set<Vertex>([start]);
    const stack = [start];
    while (stack.length > 0) {
      const v = stack.pop()!;
      for (const [to, destination] of v.out) {
        if (destination !== '') {
          if (destination === nodeName) return true;
          continue;
        }
        if (to === node) return true;
        if (!seen.has(to)) {
          seen.add(to);
          stack.push(to);
        }
      }
    }
    return false;
  }

  /** Whether the graph holds a vertex for the object (tests and debugging). */
  hasVertex(type: VertexType, namespace: string, name: string): boolean {
    return this.#vertices.has(keyOf(type, namespace, name));
  }

  get size(): number {
    return this.#vertices.size;
  }

  /**
   * (Re)builds a bound pod's edges: pod -> node, and for anything but a mirror pod (which a node
   * creates itself, so it must never widen the node's reach) the edges from what it names.
   */
  setPod(pod: Obj): void {
    const namespace = String(pod.metadata?.namespace ?? '');
    const name = String(pod.metadata?.name ?? '');
    this.#remove(keyOf('pod', namespace, name));
    const nodeName = String(pod.spec?.nodeName ?? '');
    if (nodeName === '') return;
    const podVertex = this.#vertex(keyOf('pod', namespace, name));
    this.#link(podVertex, this.#vertex(keyOf('node', '', nodeName)), nodeName);
    if (pod.metadata?.annotations?.[MIRROR_POD_ANNOTATION] !== undefined) return;

    const refs = podReferences(pod);
    const into = (type: VertexType, names: Iterable<string>) => {
      for (const n of names) this.#link(this.#vertex(keyOf(type, namespace, n)), podVertex, nodeName);
    };
    if (refs.serviceAccount !== '') into('serviceaccount', [refs.serviceAccount]);
    into('secret', refs.secrets);
    into('configmap', refs.configMaps);
    into('pvc', refs.pvcs);
    into('resourceclaim', refs.resourceClaims);
  }

  deletePod(namespace: string, name: string): void {
    this.#remove(keyOf('pod', namespace, name));
  }

  /** A bound volume leads to its claim, and its kubelet-visible secrets to it. */
  setPersistentVolume(pv: Obj): void {
    const name = String(pv.metadata?.name ?? '');
    this.#remove(keyOf('pv', '', name));
    const claimRef = pv.spec?.claimRef;
    if (!claimRef) return;
    const pvVertex = this.#vertex(keyOf('pv', '', name));
    this.#link(pvVertex, this.#vertex(keyOf('pvc', String(claimRef.namespace ?? ''), String(claimRef.name ?? ''))), '');
    for (const secret of pvKubeletSecrets(pv)) this.#link(this.#vertex(keyOf('secret', secret.namespace, secret.name)), pvVertex, '');
  }

  deletePersistentVolume(name: string): void {
    this.#remove(keyOf('pv', '', name));
  }

  setVolumeAttachment(name: string, nodeName: string): void {
    this.#setNodeScoped('volumeattachment', name, nodeName);
  }

  deleteVolumeAttachment(name: string): void {
    this.#remove(keyOf('volumeattachment', '', name));
  }

  setResourceSlice(name: string, nodeName: string): void {
    this.#setNodeScoped('resourceslice', name, nodeName);
  }

  deleteResourceSlice(name: string): void {
    this.#remove(keyOf('resourceslice', '', name));
  }

  #setNodeScoped(type: VertexType, name: string, nodeName: string): void {
    this.#remove(keyOf(type, '', name));
    if (nodeName === '') return;
    this.#link(this.#vertex(keyOf(type, '', name)), this.#vertex(keyOf('node', '', nodeName)), nodeName);
  }

  #vertex(key: string): Vertex {
    let v = this.#vertices.get(key);
    if (!v) this.#vertices.set(key, (v = { key, out: new Map(), in: new Set(), destinations: new Map() }));
    return v;
  }

  #link(from: Vertex, to: Vertex, destination: string): void {
    this.#unlink(from, to);
    from.out.set(to, destination);
    to.in.add(from);
    if (destination !== '') from.destinations.set(destination, (from.destinations.get(destination) ?? 0) + 1);
  }

  #unlink(from: Vertex, to: Vertex): void {
    const destination = from.out.get(to);
    if (destination === undefined) return;
    from.out.delete(to);
    to.in.delete(from);
    if (destination === '') return;
    const left = (from.destinations.get(destination) ?? 1) - 1;
    if (left > 0) from.destinations.set(destination, left);
    else from.destinations.delete(destination);
  }

  /** Removes a vertex and every neighbour that was joined to it alone. */
  #remove(key: string): void {
    const v = this.#vertices.get(key);
    if (!v) return;
    const neighbours = [...v.out.keys(), ...v.in];
    for (const to of [...v.out.keys()]) this.#unlink(v, to);
    for (const from of [...v.in]) this.#unlink(from, v);
    this.#vertices.delete(key);
    for (const n of neighbours) if (n.out.size === 0 && n.in.size === 0) this.#vertices.delete(n.key);
  }
}
