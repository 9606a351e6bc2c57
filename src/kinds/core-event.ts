import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { defineKind } from '../registry/kind.ts';
import { eventColumns } from './event-columns.ts';
import { coreEventToEventsV1, referenceFieldSelectors } from './event-conversion.ts';
import { validateEventsV1 } from './event.ts';
import * as field from '../registry/validation/field.ts';

type CoreEvent = KubeObject & {
  involvedObject?: { kind?: string; name?: string; namespace?: string };
  message?: string;
  reason?: string;
  type?: string;
  eventTime?: string | null;
  lastTimestamp?: string;
  series?: { lastObservedTime?: string };
};

/**
 * core/v1 Event rules: an event written the new way (with eventTime) obeys the events.k8s.io rules;
 * a legacy one only has to be about an object in its own namespace (one that names no namespace, as when
 * involvedObject is missing, only in "default").
 */
function validateCoreEvent(obj: KubeObject): FieldError[] {
  const e = obj as CoreEvent;
  if (e.eventTime) {
    return validateEventsV1(coreEventToEventsV1(obj)).map((err) => ({ ...err, field: coreField(err.field) }));
  }
  const errs: FieldError[] = [];
  const involvedNs = e.involvedObject?.namespace ?? '';
  const namespace = obj.metadata?.namespace ?? '';
  // Without a namespace of its own (no involvedObject at all, say) the event may only live in "default".
  const agrees = involvedNs === '' ? namespace === '' || namespace === 'default' : involvedNs === namespace;
  if (!agrees) {
    errs.push(field.invalid(field.path('involvedObject', 'namespace'), involvedNs, 'does not match event.namespace'));
  }
  return errs;
}

const CORE_NAMES: Record<string, string> = { note: 'message', regarding: 'involvedObject', reportingController: 'reportingComponent' };

function coreField(field: string): string {
  const [head, ...rest] = field.split('.');
  return [CORE_NAMES[head] ?? head, ...rest].join('.');
}

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
  strategy: { validate: (_ctx, obj) => validateCoreEvent(obj), validateUpdate: (_ctx, obj) => validateCoreEvent(obj) },
});
