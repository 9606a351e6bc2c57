import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { defineKind } from '../registry/kind.ts';
import { humanDuration } from '../registry/table.ts';

type EventFields = {
  eventTime?: string | null;
  action?: string;
  reason?: string;
  note?: string;
  type?: string;
  reportingController?: string;
  reportingInstance?: string;
  regarding?: { kind?: string; name?: string };
  series?: { count?: number; lastObservedTime?: string };
  deprecatedLastTimestamp?: string;
};

const MAX_SHORT = 128;
const MAX_NOTE = 1024;

function validateEvent(obj: KubeObject): FieldError[] {
  const e = obj as KubeObject & EventFields;
  const errs: FieldError[] = [];
  const required = (field: keyof EventFields) => {
    if (e[field] === undefined || e[field] === null || e[field] === '') errs.push({ type: 'FieldValueRequired', field });
  };
  required('eventTime');
  required('reportingController');
  required('reportingInstance');
  required('action');
  required('reason');
  for (const field of ['action', 'reason', 'reportingInstance'] as const) {
    const v = e[field];
    if (typeof v === 'string' && v.length > MAX_SHORT) errs.push({ type: 'FieldValueTooLong', field, detail: `must have at most ${MAX_SHORT} bytes` });
  }
  if (typeof e.note === 'string' && Buffer.byteLength(e.note) > MAX_NOTE) {
    errs.push({ type: 'FieldValueTooLong', field: 'note', detail: `must have at most ${MAX_NOTE} bytes` });
  }
  if (e.type !== 'Normal' && e.type !== 'Warning') {
    if (e.type === undefined || e.type === '') errs.push({ type: 'FieldValueRequired', field: 'type' });
    else errs.push({ type: 'FieldValueNotSupported', field: 'type', value: e.type, detail: 'supported values: "Normal", "Warning"' });
  }
  if (e.series && !(typeof e.series.count === 'number' && e.series.count >= 2)) {
    errs.push({ type: 'FieldValueInvalid', field: 'series.count', value: e.series.count ?? 0, detail: 'should be at least 2' });
  }
  return errs;
}

export const events = defineKind({
  group: 'events.k8s.io',
  version: 'v1',
  kind: 'Event',
  plural: 'events',
  namespaced: true,
  shortNames: ['ev'],
  allowCreateOnUpdate: true,
  schemaMessage: 'k8s.io.api.events.v1.Event',
  fieldSelectors: {
    type: ['type'],
    reason: ['reason'],
    reportingController: ['reportingController'],
    'regarding.kind': ['regarding', 'kind'],
    'regarding.name': ['regarding', 'name'],
    'regarding.namespace': ['regarding', 'namespace'],
    'regarding.uid': ['regarding', 'uid'],
  },
  tableColumns: [
    {
      name: 'Last Seen',
      type: 'string',
      description: 'Time of the last observation of the event.',
      cell: (o) => {
        const seen = (o as EventFields).series?.lastObservedTime ?? (o as EventFields).eventTime ?? o.metadata?.creationTimestamp;
        return seen ? humanDuration(Date.now() - Date.parse(seen)) : '<unknown>';
      },
    },
    { name: 'Type', type: 'string', description: 'Type of this event (Normal, Warning).', cell: (o) => (o as EventFields).type ?? '' },
    { name: 'Reason', type: 'string', description: 'Why the action was taken.', cell: (o) => (o as EventFields).reason ?? '' },
    {
      name: 'Object',
      type: 'string',
      description: 'The object this Event is about.',
      cell: (o) => {
        const r = (o as EventFields).regarding;
        return r ? `${(r.kind ?? '').toLowerCase()}/${r.name ?? ''}` : '';
      },
    },
    { name: 'Message', type: 'string', description: 'A human-readable description of the status of this operation.', cell: (o) => (o as EventFields).note ?? '' },
  ],
  strategy: { validate: validateEvent, validateUpdate: (obj) => validateEvent(obj) },
});
