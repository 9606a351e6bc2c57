import type { RequestContext } from '../api/request-context.ts';
import type { KubeObject } from '../api/types.ts';
import type { UserInfo } from '../auth/user.ts';
import type { GroupVersionKind } from '../registry/kind.ts';

/** The operations admission sees (upstream's admission.Operation). */
export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** A group, version and resource. */
export interface GroupVersionResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

/**
 * What an admission plugin is told about a write, as upstream's admission.Attributes: the operation,
 * what it acts on, the object as it would be stored (`object`; a mutating plugin may change it) and
 * as it is (`oldObject` for updates and deletes), who asks, and the options of the request.
 */
export interface AdmissionAttributes {
  readonly operation: AdmissionOperation;
  readonly kind: GroupVersionKind;
  readonly resource: GroupVersionResource;
  /** '' for the main resource. */
  readonly subresource: string;
  readonly name: string;
  /** '' for cluster-scoped kinds. */
  readonly namespace: string;
  readonly object?: KubeObject;
  readonly oldObject?: KubeObject;
  readonly user: UserInfo;
  readonly dryRun: boolean;
  /** CreateOptions, UpdateOptions or DeleteOptions as sent (what upstream passes to webhooks). */
  readonly options?: Readonly<Record<string, unknown>>;
  /** The request the write belongs to (warnings go to its `warnings`). */
  readonly context: RequestContext;
  /**
   * Whether the mutating phase runs a second time, as upstream's Attributes carry it. Absent until a
   * plugin that may ask for a second round needs it (`reinvocationContextOf`), so that a chain with
   * no mutating webhooks allocates nothing for it.
   */
  reinvocation?: ReinvocationContext;
}

/**
 * The mutating phase's second round (upstream's ReinvocationContext): a plugin that changed the
 * object after one that wants to see later changes (a webhook with reinvocationPolicy IfNeeded)
 * asks for it; the chain then runs every mutating plugin once more (in-tree plugins are
 * idempotent, and each webhook plugin decides which of its webhooks are called again). There are
 * never more than two rounds.
 */
export class ReinvocationContext {
  #isReinvoke = false;
  #shouldReinvoke = false;
  /** What each plugin remembers between the rounds, by plugin name. */
  readonly #values = new Map<string, unknown>();

  /** The second round is running. */
  get isReinvoke(): boolean {
    return this.#isReinvoke;
  }

  /** A plugin asked for a second round. */
  get shouldReinvoke(): boolean {
    return this.#shouldReinvoke;
  }

  /** Asks for a second round (in the second round it has no effect: there is no third). */
  setShouldReinvoke(): void {
    this.#shouldReinvoke = true;
  }

  /** The chain starts the second round. */
  setIsReinvoke(): void {
    this.#isReinvoke = true;
  }

  value(plugin: string): unknown {
    return this.#values.get(plugin);
  }

  setValue(plugin: string, value: unknown): void {
    this.#values.set(plugin, value);
  }
}

/** The request's reinvocation context, made on first use. */
export function reinvocationContextOf(a: AdmissionAttributes): ReinvocationContext {
  return (a.reinvocation ??= new ReinvocationContext());
}
