import assert from 'node:assert/strict';
import { coreEvents } from '../../src/kinds/core-event.ts';
import { events } from '../../src/kinds/event.ts';
import { runKindSuite } from './kind-suite.ts';

// Expectations from upstream's event validation (pkg/apis/core/validation/events.go): paths are the
// internal type's, whichever API the event was written through.
const T = '2025-01-01T00:00:00.000000Z';
const about = (namespace = 'default') => ({ kind: 'ConfigMap', name: 'cfg', namespace });
const legacy = (extra: Record<string, unknown> = {}) => ({ involvedObject: about(), reason: 'Legacy', message: 'old style', type: 'Warning', ...extra });
const newStyle = (extra: Record<string, unknown> = {}) => ({
  apiVersion: 'events.k8s.io/v1',
  kind: 'Event',
  regarding: about(),
  eventTime: T,
  reportingController: 'example.com/controller',
  reportingInstance: 'instance-1',
  action: 'Sync',
  reason: 'Synced',
  type: 'Normal',
  ...extra,
});
const CAN_HAVE = (n: number) => `Invalid value: "": can have at most ${n} characters`;

runKindSuite({
  kind: coreEvents,
  valid: [
    { name: 'a legacy event about an object in its namespace', object: legacy() },
    { name: 'a legacy event about no namespace, in default', object: legacy({ involvedObject: { kind: 'Node', name: 'n1' } }) },
    { name: 'a new-style event with its reporting fields', object: legacy({ eventTime: T, reportingComponent: 'example.com/c', reportingInstance: 'i', action: 'A' }) },
  ],
  invalid: [
    {
      name: 'a legacy event about an object in another namespace',
      object: legacy({ involvedObject: about('kube-system') }),
      errors: [{ field: 'involvedObject.namespace', message: 'Invalid value: "kube-system": does not match event.namespace' }],
    },
    {
      name: 'a new-style event without its reporting instance and with a long reason',
      object: legacy({ eventTime: T, reportingComponent: 'example.com/c', action: 'A', reason: 'r'.repeat(129) }),
      errors: [
        { field: 'reportingInstance', message: 'Required value' },
        { field: 'reason', message: CAN_HAVE(128) },
      ],
    },
    {
      name: 'a new-style event with a message over 1024 bytes',
      object: legacy({ eventTime: T, reportingComponent: 'example.com/c', reportingInstance: 'i', action: 'A', message: 'é'.repeat(513) }),
      errors: [{ field: 'message', message: CAN_HAVE(1024) }],
    },
  ],
  updates: [
    // core/v1 keeps the legacy rules only: an event's content may change (count and timestamps do).
    { name: 'a legacy event is counted again', object: legacy({ count: 1 }), change: (o) => ({ ...o, count: 2 }), expect: (o) => assert.equal(o.count, 2) },
  ],
  columns: [
    { name: 'Last Seen, Type, Reason, Object, Message', object: legacy({ lastTimestamp: '2025-01-01T00:00:00Z' }), cells: [coreEvents.tableColumns[0]!.cell(legacy({ lastTimestamp: '2025-01-01T00:00:00Z' }) as never), 'Warning', 'Legacy', 'configmap/cfg', 'old style'] },
  ],
});

runKindSuite({
  kind: events,
  valid: [
    { name: 'a complete new-style event', object: newStyle() },
    { name: 'a series', object: newStyle({ series: { count: 2, lastObservedTime: T } }) },
  ],
  invalid: [
    {
      name: 'no eventTime and no type',
      object: (({ type: _type, ...rest }) => rest)(newStyle({ eventTime: null })),
      errors: [
        { field: 'eventTime', message: 'Required value' },
        { field: 'type', message: 'Invalid value: "": has invalid value: ' },
      ],
    },
    {
      name: 'deprecated fields set',
      object: newStyle({ deprecatedCount: 3, deprecatedSource: { component: 'c' } }),
      errors: [
        { field: 'count', message: 'Invalid value: "": needs to be unset' },
        { field: 'source', message: 'Invalid value: "": needs to be unset' },
      ],
    },
    {
      name: 'a series of one',
      object: newStyle({ series: { count: 1, lastObservedTime: T } }),
      errors: [{ field: 'series.count', message: 'Invalid value: "": should be at least 2' }],
    },
    {
      name: 'a reporting controller that is no qualified name',
      object: newStyle({ reportingController: 'a/b/c' }),
      errors: [
        {
          field: 'reportingController',
          message: `Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
        },
      ],
    },
  ],
  updates: [
    { name: 'the note may not change', object: newStyle({ note: 'a' }), change: (o) => ({ ...o, note: 'b' }), errors: [{ field: 'message', message: 'Invalid value: "b": field is immutable' }] },
    {
      name: 'the object it is about may not change (printed as the internal struct)',
      object: newStyle(),
      change: (o) => ({ ...o, regarding: { kind: 'ConfigMap', name: 'other', namespace: 'default' } }),
      errors: [{ field: 'involvedObject', message: 'Invalid value: {"Kind":"ConfigMap","Namespace":"default","Name":"other","UID":"","APIVersion":"","ResourceVersion":"","FieldPath":""}: field is immutable' }],
    },
    {
      name: 'a series may grow',
      object: newStyle({ series: { count: 2, lastObservedTime: T } }),
      change: (o) => ({ ...o, series: { count: 3, lastObservedTime: '2025-01-01T00:01:00.000000Z' } }),
      expect: (o) => assert.equal((o.series as { count: number }).count, 3),
    },
  ],
});
