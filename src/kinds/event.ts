import { defineKind } from '../registry/kind.ts';
import { eventColumns } from './event-columns.ts';
import { coreEventToEventsV1, eventsV1ToCoreEvent, referenceFieldSelectors } from './event-conversion.ts';
import { eventsV1CreateErrors, eventsV1UpdateErrors } from './event-validation.ts';

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
  // Validated in the stored (core/v1) form, as upstream validates the internal type.
  strategy: {
    validate: (_ctx, obj) => eventsV1CreateErrors(eventsV1ToCoreEvent(obj)),
    validateUpdate: (_ctx, obj, old) => eventsV1UpdateErrors(eventsV1ToCoreEvent(obj), eventsV1ToCoreEvent(old)),
  },
});
