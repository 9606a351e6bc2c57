import type { KubeObject } from '../api/types.ts';
import { defineKind } from '../registry/kind.ts';
import { eventColumns } from './event-columns.ts';
import { referenceFieldSelectors } from './event-conversion.ts';
import { legacyEventErrors } from './event-validation.ts';

type CoreEvent = KubeObject & {
  involvedObject?: { kind?: string; name?: string; namespace?: string };
  message?: string;
  reason?: string;
  type?: string;
  eventTime?: string | null;
  lastTimestamp?: string;
  series?: { lastObservedTime?: string };
};

/** core/v1 Event: what `kubectl get events` and `kubectl describe` read. */
export const coreEvents = defineKind({
  group: '',
  version: 'v1',
  kind: 'Event',
  plural: 'events',
  namespaced: true,
  shortNames: ['ev'],
  allowCreateOnUpdate: true,
  schemaMessage: 'k8s.io.api.core.v1.Event',
  fieldSelectors: {
    ...referenceFieldSelectors('involvedObject'),
    reason: ['reason'],
    reportingComponent: ['reportingComponent'],
    source: ['source', 'component'],
    type: ['type'],
  },
  tableColumns: eventColumns({
    lastSeen: (o) => (o as CoreEvent).series?.lastObservedTime ?? (o as CoreEvent).lastTimestamp ?? (o as CoreEvent).eventTime ?? undefined,
    type: (o) => (o as CoreEvent).type,
    reason: (o) => (o as CoreEvent).reason,
    object: (o) => (o as CoreEvent).involvedObject,
    message: (o) => (o as CoreEvent).message,
  }),
  // core/v1 writes pass the legacy rules only, as upstream keeps them for backwards compatibility.
  strategy: { validate: (_ctx, obj) => legacyEventErrors(obj), validateUpdate: (_ctx, obj) => legacyEventErrors(obj) },
});
