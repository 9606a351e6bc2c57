import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { goStruct } from '../api/go/values.ts';
import { qualifiedNameErrors } from '../api/validation/names.ts';
import { canonicalJson } from '../registry/system-fields.ts';
import * as field from '../registry/validation/field.ts';

/**
 * Event rules, as upstream validates events: on the stored (core/v1) form, whichever API wrote it,
 * with the paths of the internal type (`message`, `involvedObject.namespace`, `reportingController`,
 * `firstTimestamp` … even for an events.k8s.io/v1 request, as upstream reports them).
 *
 * - Every write passes the legacy rules; an event with eventTime (a new-style event) must also
 *   carry its reporting fields, within upstream's length limits.
 * - Writes through events.k8s.io/v1 also need eventTime and a Normal or Warning type, may not set the
 *   deprecated fields, and may not change an event's content on update.
 */

const REPORTING_INSTANCE_LIMIT = 128;
const ACTION_LIMIT = 128;
const REASON_LIMIT = 128;
const NOTE_LIMIT = 1024;

type CoreEvent = KubeObject & {
  involvedObject?: { namespace?: string };
  reason?: string;
  message?: string;
  source?: { component?: string; host?: string };
  firstTimestamp?: string | null;
  lastTimestamp?: string | null;
  count?: number;
  type?: string;
  eventTime?: string | null;
  series?: { count?: number; lastObservedTime?: string | null } | null;
  action?: string;
  reportingComponent?: string;
  reportingInstance?: string;
};

const bytes = (s: string | undefined) => Buffer.byteLength(s ?? '');
const isSet = (time: string | null | undefined) => typeof time === 'string' && time !== '';

/** The rules every event write passes (upstream's legacyValidateEvent). */
export function legacyEventErrors(obj: KubeObject): FieldError[] {
  const e = obj as CoreEvent;
  const errs: FieldError[] = [];
  const involvedNs = e.involvedObject?.namespace ?? '';
  const namespace = obj.metadata?.namespace ?? '';
  const nsPath = field.path('involvedObject', 'namespace');
  if (!isSet(e.eventTime)) {
    // Without a namespace of its own the event may only live in "default" (old clients).
    const agrees = involvedNs === '' ? namespace === '' || namespace === 'default' : involvedNs === namespace;
    if (!agrees) errs.push(field.invalid(nsPath, involvedNs, 'does not match event.namespace'));
    return errs;
  }
  if (involvedNs === '' && namespace !== 'default' && namespace !== 'kube-system') errs.push(field.invalid(nsPath, involvedNs, 'does not match event.namespace'));
  const controller = e.reportingComponent ?? '';
  if (controller === '') errs.push(field.required('reportingController'));
  for (const msg of qualifiedNameErrors(controller)) errs.push(field.invalid('reportingController', controller, msg));
  const limit = (name: string, value: string | undefined, max: number, required: boolean) => {
    if (required && !value) errs.push(field.required(name));
    if (bytes(value) > max) errs.push(field.invalid(name, '', `can have at most ${max} characters`));
  };
  limit('reportingInstance', e.reportingInstance, REPORTING_INSTANCE_LIMIT, true);
  limit('action', e.action, ACTION_LIMIT, true);
  limit('reason', e.reason, REASON_LIMIT, true);
  limit('message', e.message, NOTE_LIMIT, false);
  return errs;
}

function seriesErrors(e: CoreEvent): FieldError[] {
  if (!e.series) return [];
  const errs: FieldError[] = [];
  if ((e.series.count ?? 0) < 2) errs.push(field.invalid('series.count', '', 'should be at least 2'));
  if (!isSet(e.series.lastObservedTime)) errs.push(field.required('series.lastObservedTime'));
  return errs;
}

/** A create through events.k8s.io/v1 (the object in its stored, core/v1 form). */
export function eventsV1CreateErrors(obj: KubeObject): FieldError[] {
  const e = obj as CoreEvent;
  const errs = [...legacyEventErrors(obj), ...seriesErrors(e)];
  if (!isSet(e.eventTime)) errs.push(field.required('eventTime'));
  if (e.type !== 'Normal' && e.type !== 'Warning') errs.push(field.invalid('type', '', `has invalid value: ${e.type ?? ''}`));
  if (isSet(e.firstTimestamp)) errs.push(field.invalid('firstTimestamp', '', 'needs to be unset'));
  if (isSet(e.lastTimestamp)) errs.push(field.invalid('lastTimestamp', '', 'needs to be unset'));
  if ((e.count ?? 0) !== 0) errs.push(field.invalid('count', '', 'needs to be unset'));
  if (e.source?.component || e.source?.host) errs.push(field.invalid('source', '', 'needs to be unset'));
  return errs;
}

/** Fields an events.k8s.io/v1 update may not change, in upstream's order (reason is checked twice there too). */
const IMMUTABLE: readonly string[] = [
  'involvedObject', 'reason', 'message', 'source', 'firstTimestamp', 'lastTimestamp', 'count', 'reason', 'type', 'eventTime',
  'action', 'related', 'reportingComponent', 'reportingInstance',
];
const INTERNAL_NAME: Readonly<Record<string, string>> = { reportingComponent: 'reportingController' };

type Ref = { kind?: string; namespace?: string; name?: string; uid?: string; apiVersion?: string; resourceVersion?: string; fieldPath?: string };

/** An object reference as upstream prints its internal struct (Go field names, declaration order). */
function refValue(r: Ref): unknown {
  return goStruct({ Kind: r.kind ?? '', Namespace: r.namespace ?? '', Name: r.name ?? '', UID: r.uid ?? '', APIVersion: r.apiVersion ?? '', ResourceVersion: r.resourceVersion ?? '', FieldPath: r.fieldPath ?? '' });
}

/** How upstream prints a changed field's value: structs with their Go names, the rest as they are. */
function immutableValue(name: string, value: unknown): unknown {
  if (value === null || value === undefined) return name === 'involvedObject' || name === 'source' ? refOrSource(name, {}) : null;
  return refOrSource(name, value);
}

function refOrSource(name: string, value: unknown): unknown {
  if (name === 'involvedObject' || name === 'related') return refValue(value as Ref);
  if (name === 'source') {
    const src = value as { component?: string; host?: string };
    return goStruct({ Component: src.component ?? '', Host: src.host ?? '' });
  }
  return value;
}

/** An update through events.k8s.io/v1 (both objects in their stored, core/v1 form). */
export function eventsV1UpdateErrors(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = legacyEventErrors(obj);
  if (canonicalJson(obj.series ?? null) !== canonicalJson(old.series ?? null)) errs.push(...seriesErrors(obj as CoreEvent));
  for (const name of IMMUTABLE) {
    if (canonicalJson(obj[name] ?? null) !== canonicalJson(old[name] ?? null)) errs.push(field.immutable(INTERNAL_NAME[name] ?? name, immutableValue(name, obj[name])));
  }
  return errs;
}
