/** The columns of `kubectl get pods` (upstream's printPod, for pods no kubelet has reported on yet as well). */
import type { KubeObject } from '../api/types.ts';
import type { TableColumn } from '../registry/kind.ts';
import { ageCell } from './columns.ts';

type Obj = Record<string, any>;
const statusOf = (o: KubeObject) => (o.status ?? {}) as Obj;
const specOf = (o: KubeObject) => (o.spec ?? {}) as Obj;

function ready(o: KubeObject): string {
  const spec = specOf(o);
  const statuses: Obj[] = statusOf(o).containerStatuses ?? [];
  const sidecars = (spec.initContainers ?? []).filter((c: Obj) => c.restartPolicy === 'Always').length;
  const total = (spec.containers ?? []).length + sidecars;
  const readyCount = statuses.filter((s) => s.ready).length;
  return `${readyCount}/${total}`;
}

/** The STATUS cell: a reason, the phase, or what the containers say; Terminating once deleted. */
function podStatus(o: KubeObject): string {
  const status = statusOf(o);
  let reason: string = status.reason || status.phase || '';
  const initStatuses: Obj[] = status.initContainerStatuses ?? [];
  const initCount = (specOf(o).initContainers ?? []).length;
  let initializing = false;
  initStatuses.forEach((s, i) => {
    if (initializing) return;
    const t = s.state?.terminated;
    if (t && t.exitCode === 0) return;
    if (t) reason = t.reason ? `Init:${t.reason}` : t.signal ? `Init:Signal:${t.signal}` : `Init:ExitCode:${t.exitCode}`;
    else if (s.state?.waiting?.reason && s.state.waiting.reason !== 'PodInitializing') reason = `Init:${s.state.waiting.reason}`;
    else reason = `Init:${i}/${initCount}`;
    initializing = true;
  });
  if (!initializing) {
    let running = false;
    for (const s of [...(status.containerStatuses ?? [])].reverse()) {
      if (s.state?.waiting?.reason) reason = s.state.waiting.reason;
      else if (s.state?.terminated?.reason) reason = s.state.terminated.reason;
      else if (s.state?.terminated) reason = s.state.terminated.signal ? `Signal:${s.state.terminated.signal}` : `ExitCode:${s.state.terminated.exitCode}`;
      else if (s.ready && s.state?.running) running = true;
    }
    if (reason === 'Completed' && running) reason = (status.conditions ?? []).some((c: Obj) => c.type === 'Ready' && c.status === 'True') ? 'Running' : 'NotReady';
  }
  if (o.metadata?.deletionTimestamp) reason = status.reason === 'NodeLost' ? 'Unknown' : 'Terminating';
  return reason;
}

function restarts(o: KubeObject): string {
  const statuses: Obj[] = [...(statusOf(o).initContainerStatuses ?? []), ...(statusOf(o).containerStatuses ?? [])];
  return String(statuses.reduce((n, s) => n + (s.restartCount ?? 0), 0));
}

function readinessGates(o: KubeObject): string {
  const gates: Obj[] = specOf(o).readinessGates ?? [];
  if (gates.length === 0) return '<none>';
  const conditions: Obj[] = statusOf(o).conditions ?? [];
  const trueCount = gates.filter((g) => conditions.some((c) => c.type === g.conditionType && c.status === 'True')).length;
  return `${trueCount}/${gates.length}`;
}

export const POD_COLUMNS: TableColumn[] = [
  { name: 'Name', type: 'string', format: 'name', description: 'The name of the pod.', cell: (o) => o.metadata?.name ?? '' },
  { name: 'Ready', type: 'string', description: 'Ready containers out of all.', cell: ready },
  { name: 'Status', type: 'string', description: 'The aggregate status of the containers in this pod.', cell: podStatus },
  { name: 'Restarts', type: 'string', description: 'The number of times the containers in this pod have been restarted.', cell: restarts },
  { name: 'Age', type: 'string', description: 'Time since the pod was created.', cell: ageCell },
  { name: 'IP', type: 'string', priority: 1, description: 'The IP address assigned to the pod.', cell: (o) => statusOf(o).podIP || '<none>' },
  { name: 'Node', type: 'string', priority: 1, description: 'The node the pod runs on.', cell: (o) => specOf(o).nodeName || '<none>' },
  { name: 'Nominated Node', type: 'string', priority: 1, description: 'The node the pod is nominated for, when preempting.', cell: (o) => statusOf(o).nominatedNodeName || '<none>' },
  { name: 'Readiness Gates', type: 'string', priority: 1, description: 'Readiness gates met out of all.', cell: readinessGates },
];
