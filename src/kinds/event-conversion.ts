import type { KubeObject } from '../api/types.ts';

/**
 * core/v1 Event ⇄ events.k8s.io/v1 Event. The two are one resource upstream (stored as core v1);
 * the newer form renames fields and keeps the legacy ones as `deprecated*`.
 */
const RENAMES: ReadonlyArray<readonly [core: string, events: string]> = [
  ['involvedObject', 'regarding'],
  ['message', 'note'],
  ['reportingComponent', 'reportingController'],
  ['source', 'deprecatedSource'],
  ['firstTimestamp', 'deprecatedFirstTimestamp'],
  ['lastTimestamp', 'deprecatedLastTimestamp'],
  ['count', 'deprecatedCount'],
];
const SHARED = ['metadata', 'eventTime', 'series', 'action', 'reason', 'related', 'reportingInstance', 'type'];

function copy(from: KubeObject, to: Record<string, unknown>, pairs: ReadonlyArray<readonly [string, string]>): void {
  for (const [a, b] of pairs) if (from[a] !== undefined) to[b] = structuredClone(from[a]);
}

const SAME = SHARED.map((f) => [f, f] as const);

export function coreEventToEventsV1(core: KubeObject): KubeObject {
  const out: Record<string, unknown> = { apiVersion: 'events.k8s.io/v1', kind: 'Event' };
  copy(core, out, SAME);
  copy(core, out, RENAMES);
  // The newer form requires eventTime; legacy events have none, which reads as null.
  if (out.eventTime === undefined) out.eventTime = null;
  return out;
}

export function eventsV1ToCoreEvent(event: KubeObject): KubeObject {
  const out: Record<string, unknown> = { apiVersion: 'v1', kind: 'Event' };
  copy(event, out, SAME);
  copy(event, out, RENAMES.map(([core, events]) => [events, core] as const));
  if (out.eventTime === null) delete out.eventTime;
  // core/v1 Event requires involvedObject; an events.k8s.io Event without regarding still round-trips.
  if (out.involvedObject === undefined) out.involvedObject = {};
  return out;
}

const REFERENCE_FIELDS = ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'] as const;

/**
 * Field selectors on the object an event is about, by the name each API gives it
 * (`involvedObject.name` in core/v1, `regarding.name` in events.k8s.io/v1); both select on the
 * stored core form.
 */
export function referenceFieldSelectors(prefix: 'involvedObject' | 'regarding'): Record<string, readonly string[]> {
  return Object.fromEntries(REFERENCE_FIELDS.map((f) => [`${prefix}.${f}`, ['involvedObject', f]]));
}
