/**
 * The FlowSchema `Dangling` condition, as upstream's API priority and fairness config controller
 * keeps it: True (`NotFound`) while the schema names a PriorityLevelConfiguration that does not
 * exist, False (`Found`) once it does. It is written only when status, reason or message differ
 * from the stored condition, with lastTransitionTime set to the time of that write, by server-side
 * apply of the status subresource (forced, as upstream's config consumer). Each schema gets at most
 * six writes a minute; past that its write waits 30 to 75 s, as upstream protects itself from
 * servers that disagree and undo each other's conditions.
 */
import type { Logger } from 'pino';
import { ApiError, notFound } from '../api/errors.ts';
import { systemContext } from '../api/request-context.ts';
import type { KubeObject, StoredKubeObject } from '../api/types.ts';
import { Informer } from '../registry/informer.ts';
import type { ResourceStore } from '../registry/resource-store.ts';
import { nowTimestamp } from '../registry/system-fields.ts';
import { CoalescedPass } from './coalesced-pass.ts';

/** The field manager upstream's config consumer applies FlowSchema status as. */
export const CONFIG_CONSUMER_FIELD_MANAGER = 'api-priority-and-fairness-config-consumer-v1';

/** Upstream holds a schema's write back once more than this many were made in the past minute. */
const WRITES_BEFORE_THROTTLE = 5;
const MINUTE_MS = 60_000;

export interface DanglingCondition {
  type: 'Dangling';
  status: 'True' | 'False';
  lastTransitionTime?: string;
  reason: 'NotFound' | 'Found';
  message: string;
}

type FlowSchema = StoredKubeObject & { spec?: { priorityLevelConfiguration?: { name?: string } }; status?: { conditions?: Partial<DanglingCondition>[] } };

/** The condition a schema should carry (without its time), given whether its level exists. */
export function desiredDanglingCondition(priorityLevel: string, found: boolean): Omit<DanglingCondition, 'lastTransitionTime'> {
  return found
    ? { type: 'Dangling', status: 'False', reason: 'Found', message: `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(priorityLevel)} and it exists` }
    : { type: 'Dangling', status: 'True', reason: 'NotFound', message: `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(priorityLevel)} but there is no such object` };
}

export interface FlowSchemaDanglingOptions {
  /** The wait before a schema written too often is written again (default 30 to 75 s at random). */
  readonly throttleDelayMs?: () => number;
  /** The clock the one-minute window is measured with (tests move it). */
  readonly now?: () => number;
}

export class FlowSchemaDanglingController {
  readonly #flowSchemas: ResourceStore;
  readonly #priorityLevels: ResourceStore;
  readonly #logger: Logger;
  readonly #throttleDelayMs: () => number;
  readonly #now: () => number;
  /** When each schema's condition was written, newest last, over the past minute. */
  readonly #writes = new Map<string, number[]>();
  #schemas: Informer | undefined;
  #levels: Informer | undefined;
  #passes: CoalescedPass | undefined;
  #stopped = true;

  constructor(flowSchemas: ResourceStore, priorityLevels: ResourceStore, logger: Logger, options: FlowSchemaDanglingOptions = {}) {
    this.#flowSchemas = flowSchemas;
    this.#priorityLevels = priorityLevels;
    this.#logger = logger.child({ controller: 'flowschema-dangling' });
    this.#throttleDelayMs = options.throttleDelayMs ?? (() => 30_000 + Math.floor(Math.random() * 45_000));
    this.#now = options.now ?? Date.now;
  }

  async start(): Promise<void> {
    this.#stopped = false;
    this.#passes = new CoalescedPass(() => this.#syncAll());
    const schemas = new Informer(this.#flowSchemas, { logger: this.#logger });
    const levels = new Informer(this.#priorityLevels, { logger: this.#logger });
    this.#schemas = schemas;
    this.#levels = levels;
    // Both views are complete before the first pass: a level not yet listed is not a missing one.
    await Promise.all([schemas.start(), levels.start()]);
    if (this.#stopped) return;
    const poke = () => this.#passes?.request();
    schemas.on({ added: poke, updated: poke });
    // Only a level's existence matters here.
    levels.on({ added: poke, deleted: poke });
    poke();
  }

  stop(): void {
    this.#stopped = true;
    this.#schemas?.stop();
    this.#levels?.stop();
    this.#schemas = undefined;
    this.#levels = undefined;
    this.#passes?.stop();
  }

  async #syncAll(): Promise<'retry' | void> {
    let retry = false;
    let throttled = false;
    this.#forgetOldWrites();
    const levels = this.#levels;
    for (const fs of (this.#schemas?.list() ?? []) as FlowSchema[]) {
      if (this.#stopped || !levels) return;
      const level = fs.spec?.priorityLevelConfiguration?.name ?? '';
      const want = desiredDanglingCondition(level, levels.get('', level) !== undefined);
      const have = fs.status?.conditions?.find((c) => c.type === 'Dangling');
      if (have && have.status === want.status && have.reason === want.reason && have.message === want.message) continue;
      if (this.#tooManyWrites(fs.metadata.name)) {
        throttled = true;
        continue;
      }
      try {
        await this.#write(fs.metadata.name, { ...want, lastTransitionTime: nowTimestamp() });
      } catch (err) {
        // A schema deleted meanwhile needs nothing more: its deletion is on its way.
        if (err instanceof ApiError && err.code === 404) continue;
        this.#logger.warn({ err, flowSchema: fs.metadata.name }, 'writing the Dangling condition failed; retrying');
        retry = true;
      }
    }
    if (throttled) this.#passes?.request(this.#throttleDelayMs());
    return retry ? 'retry' : undefined;
  }

  #forgetOldWrites(): void {
    const now = this.#now();
    for (const [name, times] of this.#writes) if (times.every((t) => now - t > MINUTE_MS)) this.#writes.delete(name);
  }

  /** Whether the schema was written more than upstream allows in the past minute; else notes this write. */
  #tooManyWrites(name: string): boolean {
    const now = this.#now();
    const recent = (this.#writes.get(name) ?? []).filter((t) => now - t <= MINUTE_MS);
    if (recent.length > WRITES_BEFORE_THROTTLE) {
      this.#writes.set(name, recent);
      return true;
    }
    recent.push(now);
    this.#writes.set(name, recent);
    return false;
  }

  async #write(name: string, condition: DanglingCondition): Promise<void> {
    const config: KubeObject = {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
      kind: 'FlowSchema',
      metadata: { name },
      status: { conditions: [condition] },
    };
    const fields = this.#flowSchemas.fields.forSubresource('status');
    await this.#flowSchemas.update(systemContext({ subresource: 'status' }), '', name, {
      apply: true,
      build: (current) => {
        // A schema deleted meanwhile is not re-created by its status.
        if (current === null) throw notFound(this.#flowSchemas.qualified, name);
        return fields.apply(current, config, CONFIG_CONSUMER_FIELD_MANAGER, true) as KubeObject;
      },
    });
  }
}
