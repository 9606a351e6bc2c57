import type { KubeObject } from '../api/types.ts';
import type { TableColumn } from '../registry/kind.ts';
import { humanDuration } from '../registry/table.ts';

/** What the event table shows, read from either form of Event. */
export interface EventView {
  lastSeen(o: KubeObject): string | undefined;
  type(o: KubeObject): unknown;
  reason(o: KubeObject): unknown;
  object(o: KubeObject): { kind?: string; name?: string } | undefined;
  message(o: KubeObject): unknown;
}

/** LAST SEEN, TYPE, REASON, OBJECT, MESSAGE (and NAME with -o wide): the columns `kubectl get events` prints. */
export function eventColumns(view: EventView): TableColumn[] {
  return [
    {
      name: 'Last Seen',
      type: 'string',
      description: 'Time of the last observation of the event.',
      cell: (o) => {
        const seen = view.lastSeen(o) ?? o.metadata?.creationTimestamp;
        return seen ? humanDuration(Date.now() - Date.parse(seen)) : '<unknown>';
      },
    },
    { name: 'Type', type: 'string', description: 'Type of this event (Normal, Warning).', cell: (o) => view.type(o) ?? '' },
    { name: 'Reason', type: 'string', description: 'Why the action was taken.', cell: (o) => view.reason(o) ?? '' },
    {
      name: 'Object',
      type: 'string',
      description: 'The object this Event is about.',
      cell: (o) => {
        const r = view.object(o);
        return r ? `${(r.kind ?? '').toLowerCase()}/${r.name ?? ''}` : '';
      },
    },
    { name: 'Message', type: 'string', description: 'A human-readable description of the status of this operation.', cell: (o) => view.message(o) ?? '' },
    // Shown with -o wide only, as kubectl prints events.
    { name: 'Name', type: 'string', format: 'name', priority: 1, description: 'Name of the event.', cell: (o) => o.metadata?.name ?? '' },
  ];
}
