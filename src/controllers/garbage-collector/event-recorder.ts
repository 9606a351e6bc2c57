/**
 * Events about an object, as client-go's event recorder writes them: a core/v1 Event named
 * `<object name>.<unix nanoseconds in hex>` in the object's namespace ("default" for a
 * cluster-scoped one), from the controller as its source. A failure to record is logged, never
 * thrown: an event is a courtesy, not part of the work.
 */
import type { Logger } from 'pino';
import type { ResourceStore } from '../../registry/resource-store.ts';
import { nowTimestamp } from '../../registry/system-fields.ts';
import { controllerContext } from '../controller-context.ts';
import type { ObjectReference } from './graph.ts';

export type EventType = 'Normal' | 'Warning';

export class EventRecorder {
  readonly #events: () => ResourceStore | undefined;
  readonly #component: string;
  readonly #logger: Logger;
  #lastNanos = 0n;

  /** `events` finds the core/v1 events store at the time of recording (undefined: events are not served). */
  constructor(events: () => ResourceStore | undefined, component: string, logger: Logger) {
    this.#events = events;
    this.#component = component;
    this.#logger = logger;
  }

  async record(involved: ObjectReference, type: EventType, reason: string, message: string): Promise<void> {
    const store = this.#events();
    if (!store) return;
    const now = new Date();
    const namespace = involved.namespace || 'default';
    const timestamp = nowTimestamp(now);
    const event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${involved.name}.${this.#nanos(now).toString(16)}`, namespace },
      involvedObject: { kind: involved.kind, ...(involved.namespace ? { namespace: involved.namespace } : {}), name: involved.name, uid: involved.uid, apiVersion: involved.apiVersion },
      reason,
      message,
      source: { component: this.#component },
      firstTimestamp: timestamp,
      lastTimestamp: timestamp,
      count: 1,
      type,
      reportingComponent: this.#component,
      reportingInstance: '',
    };
    try {
      await store.create(controllerContext(), namespace, event);
    } catch (err) {
      this.#logger.warn({ err, reason, involved }, 'could not record an event');
    }
  }

  /** Unix time in nanoseconds, strictly increasing, so that two events in one millisecond get two names. */
  #nanos(now: Date): bigint {
    let nanos = BigInt(now.getTime()) * 1_000_000n;
    if (nanos <= this.#lastNanos) nanos = this.#lastNanos + 1n;
    this.#lastNanos = nanos;
    return nanos;
  }
}
