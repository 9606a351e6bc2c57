import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { defineKind } from '../registry/kind.ts';
import { eventColumns } from './event-columns.ts';
import { coreEventToEventsV1, eventsV1ToCoreEvent, referenceFieldSelectors } from './event-conversion.ts';
import * as field from '../registry/validation/field.ts';

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

/** The events.k8s.io/v1 rules for new events (core/v1 Events written the new way follow them too). */
export function validateEventsV1(obj: KubeObject): FieldError[] {
  const e = obj as KubeObject & EventFields;
  const errs: FieldError[] = [];
  const required = (name: keyof EventFields) => {
    if (e[name] === undefined || e[name] === null || e[name] === '') errs.push(field.required(name));
  };
  required('eventTime');
  required('reportingController');
  required('reportingInstance');
  required('action');
  required('reason');
  for (const name of ['action', 'reason', 'reportingInstance'] as const) {
    const v = e[name];
    if (typeof v === 'string' && Buffer.byteLength(v) > MAX_SHORT) errs.push(field.tooLong(name, MAX_SHORT));
  }
  if (typeof e.note === 'string' && Buffer.byteLength(e.note) > MAX_NOTE) errs.push(field.tooLong('note', MAX_NOTE));
  if (e.type !== 'Normal' && e.type !== 'Warning') {
    if (e.type === undefined || e.type === '') errs.push(field.required('type'));
    else errs.push(field.notSupported('type', e.type, ['Normal', 'Warning']));
  }
  if (e.series && !(typeof e.series.count === 'number' && e.series.count >= 2)) {
    errs.push(field.invalid(field.path('series', 'count'), e.series.count ?? 0, 'should be at least 2'));
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
  // Selectors run on the stored (core/v1) form, hence the core paths.
  fieldSelectors: {
    type: ['type'],
    reason: ['reason'],
    reportingController: ['reportingComponent'],
    ...referenceFieldSelectors('regarding'),
  },
  tableColumns: eventColumns({
    lastSeen: (o) => (o as EventFields).series?.lastObservedTime ?? (o as EventFields).eventTime ?? (o as EventFields).deprecatedLastTimestamp,
    type: (o) => (o as EventFields).type,
    reason: (o) => (o as EventFields).reason,
    object: (o) => (o as EventFields).regarding,
    message: (o) => (o as EventFields).note,
  }),
  // Stored as core/v1 Event, as upstream: both APIs show the same events.
  storage: { group: '', resource: 'events', toStorage: eventsV1ToCoreEvent, fromStorage: coreEventToEventsV1 },
  // Legacy events (no eventTime) read through this API may be written back as they are.
  strategy: { validate: (_ctx, obj) => validateEventsV1(obj), validateUpdate: (_ctx, obj, old) => (old.eventTime ? validateEventsV1(obj) : []) },
});
